"""Writes semantic_content.yaml: labelled pairs that point into ../shared/data (never copy it).

The labels of generated items follow from how they are made (an answer to the rule's own
question, another question's answer, an edited answer, an order confirmation against the
conversation's own or another's variables); the hand-written pairs are in OWN.

    python benchmarks/judges/make_semantic_content.py
"""

# ruff: noqa: E501
import glob
import itertools
import re
import zlib
from collections import Counter
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
items = []


def add(**kw):
    items.append(kw)


def load(rel):
    return list(yaml.safe_load_all(open(DATA / rel)))


RULE = re.compile(r"semantic_content\(\s*\w+\s*,\s*'([^']*)'")
rules = {}
for rel in sorted(glob.glob("sensei-pizza/rules/*.yaml", root_dir=DATA)) + sorted(
    glob.glob("rasa-bots/veterinary/sensei/rules-all/*.yaml", root_dir=DATA)
):
    m = RULE.search((DATA / rel).read_text())
    if m:
        rules[rel] = m.group(1)
out_rule = {
    "opening_hours": "sensei-pizza/rules/check_opening_hours.yaml",
    "pizza_types": "sensei-pizza/rules/check_pizza_types.yaml",
    "pizza_prices": "sensei-pizza/rules/check_pizza_prices.yaml",
    "beverages_prices": "sensei-pizza/rules/check_beverage_prices.yaml",
    "order_time": "sensei-pizza/rules/check_times.yaml",
    "opening_and_closing_weekends": "rasa-bots/veterinary/sensei/rules-all/opening_times_weekends.yaml",
    "visit_cost": "rasa-bots/veterinary/sensei/rules-all/visit_cost.yaml",
    "animal_kinds": "rasa-bots/veterinary/sensei/rules-all/animal_kinds.yaml",
    "care_pet": "rasa-bots/veterinary/sensei/rules-all/care_pet.yaml",
}
qa = sorted(
    glob.glob("sensei-pizza/conversations/*/conversations/qa_eval/*/*.yml", root_dir=DATA)
) + sorted(
    glob.glob(
        "rasa-bots/veterinary/sensei/conversations-gpt-4o-mini/conversation_outputs/qa/*/*.yml",
        root_dir=DATA,
    )
)
values = []
for rel in qa:
    d = load(rel)[0]
    for o in d["data_output"]:
        for k, v in o.items():
            if v in (None, "None") or k not in out_rule:
                continue
            values.append((rel, k, str(v)))
for rel, k, _value in values:
    add(
        value={"file": rel, "output": k},
        content={"rule": out_rule[k]},
        label=True,
        why=f"the chatbot's {k} answer states what the rule expects",
        family="qa-true",
    )
    others = [r for r in rules if r != out_rule[k] and r.split("/")[0] == out_rule[k].split("/")[0]]
    for r in others:
        add(
            value={"file": rel, "output": k},
            content={"rule": r},
            label=False,
            why=f"{k} answers another question than {Path(r).stem}",
            family="qa-other-topic",
        )
# edits of the real answers (first file of each output kind)
seen = set()
EDITS = {
    "opening_hours": [
        ([["1pm", "3pm"]], "opening time changed 1pm -> 3pm"),
        ([["11:30pm", "10:30pm"]], "closing time changed 11:30pm -> 10:30pm"),
        ([["Every day", "Weekdays only"]], "open on weekdays only, not every day"),
    ],
    "pizza_types": [
        ([["Hawaiian, ", ""]], "Hawaiian is missing from the list"),
        ([["Carbonara", "Calzone"]], "Carbonara replaced by Calzone"),
    ],
    "pizza_prices": [
        ([["15$ for medium", "17$ for medium"]], "medium Margarita price changed 15$ -> 17$"),
        ([["20$ for big", "25$ for big"]], "big Margarita price changed"),
    ],
    "beverages_prices": [
        ([["Water is 1$", "Water is 2$"]], "water price changed 1$ -> 2$"),
        ([["1.50$", "2.50$"]], "Sprite and Coke price changed"),
    ],
    "order_time": [([["15", "45"]], "order time changed 15 -> 45 minutes")],
    "opening_and_closing_weekends": [
        ([["do not open", "open"]], "negation removed: open on weekends"),
        (
            [["We do not open on weekends", "We open on weekends from 10am"]],
            "says it opens on weekends",
        ),
    ],
    "visit_cost": [
        ([["$50", "$80"], ["$60", "$90"]], "visit cost range changed to $80-$90"),
        ([["between $50 and $60", "$120"]], "visit cost $120, outside the range"),
    ],
    "animal_kinds": [
        ([["birds", "reptiles"]], "birds replaced by reptiles"),
        ([["dogs, cats and birds", "dogs only"]], "only dogs"),
    ],
    "care_pet": [
        (
            [["food, water, shelter, exercise, and love", "a bed"]],
            "only a bed, not the basic needs listed",
        )
    ],
}
for rel, k, v in values:
    if k in seen:
        continue
    seen.add(k)
    for edit, why in EDITS.get(k, []):
        if all(old in v for old, _ in edit):
            add(
                value={"file": rel, "output": k, "edit": edit},
                content={"rule": out_rule[k]},
                label=False,
                why=why,
                family="qa-edited",
            )
        else:
            print("skip edit", k, edit)
# own paraphrases (true) and contradictions (false), literal
OWN = [
    (
        "We are open daily from 1pm until 11:30pm.",
        "every day from 1pm to 11:30pm",
        True,
        "same hours, reworded",
    ),
    (
        "Our doors open at 1pm and close at 11:30pm, seven days a week.",
        "every day from 1pm to 11:30pm",
        True,
        "same hours, reworded",
    ),
    (
        "We open at 1pm every day and close at 11:30pm.",
        "every day from 1pm to 11:30pm",
        True,
        "same hours, reworded",
    ),
    (
        "We are closed on Mondays; other days from 1pm to 11:30pm.",
        "every day from 1pm to 11:30pm",
        False,
        "closed on Mondays: not every day",
    ),
    (
        "Every day from 1pm to 11pm",
        "every day from 1pm to 11:30pm",
        False,
        "closes at 11pm, not 11:30pm",
    ),
    (
        "Weekends are closed for us.",
        "We do not open on weekends",
        True,
        "closed at weekends = not open",
    ),
    (
        "Sorry, we are not open on Saturdays or Sundays.",
        "We do not open on weekends",
        True,
        "not open Saturday or Sunday",
    ),
    ("We open on weekends too.", "We do not open on weekends", False, "opens on weekends"),
    (
        "Yes, we open on weekends from 9am to 2pm.",
        "We do not open on weekends",
        False,
        "opens on weekends",
    ),
    (
        "A small pizza with no toppings",
        "A pizza with toppings: pepperoni, olives",
        False,
        "no toppings vs pepperoni and olives (issue 21)",
    ),
    (
        "A pizza with toppings: pepperoni, olives",
        "small pizza with no toppings",
        False,
        "toppings vs none",
    ),
    ("The total is $12", "The total is $21", False, "$12 is not $21"),
    ("The total is $21", "The total is $21", True, "identical"),
    ("Your total comes to 21 dollars.", "$21", True, "same amount"),
    ("Your total comes to 12 dollars.", "$21", False, "different amount"),
    ("It takes about 15 minutes.", "around 15 minutes", True, "same time"),
    ("It takes about 50 minutes.", "around 15 minutes", False, "different time"),
    ("We treat dogs and cats, and birds as well.", "dogs, cats and birds", True, "same animals"),
    ("We treat dogs and cats, but not birds.", "dogs, cats and birds", False, "birds negated"),
    ("We do not treat dogs, cats or birds.", "dogs, cats and birds", False, "all negated"),
    ("We only see cats.", "dogs, cats and birds", False, "only cats"),
    ("A visit costs $55.", "Between $50 and $60", True, "$55 is within the range"),
    ("A visit costs $65.", "Between $50 and $60", False, "$65 is outside the range"),
    ("A visit is free of charge.", "Between $50 and $60", False, "free: no cost in range"),
    (
        "Sprite and Coke cost 1.50$ each, water 1$.",
        "Sprite and Coke: 1.50$. Water: 1$",
        True,
        "same prices",
    ),
    (
        "Sprite and Coke cost 1$ each, water 1.50$.",
        "Sprite and Coke: 1.50$. Water: 1$",
        True,
        "replaced below",
    ),
    (
        "We do not sell Sprite; Coke is 1.50$ and water 1$.",
        "Sprite and Coke: 1.50$. Water: 1$",
        False,
        "Sprite not sold",
    ),
    (
        "Clean it regularly, keep the tires at the right pressure and oil the chain.",
        "You should clean it regularly, check the tire pressure, and lubricate the chain",
        True,
        "same advice, reworded",
    ),
    (
        "Never clean the chain.",
        "You should clean it regularly, check the tire pressure, and lubricate the chain",
        False,
        "contradicts cleaning",
    ),
    (
        "The shop is at SoHo, 14 Wooster Street",
        "The shop is at SoHo, 14 Wooster Street",
        True,
        "identical",
    ),
    (
        "The shop is at 41 Wooster Street, SoHo",
        "The shop is at SoHo, 14 Wooster Street",
        False,
        "house number 41 not 14",
    ),
    (
        "We are at 14 Greene Street, SoHo",
        "The shop is at SoHo, 14 Wooster Street",
        False,
        "another street",
    ),
    ("That will be 200 dollars.", "200$", True, "same amount"),
    ("That will be 2000 dollars.", "200$", False, "different amount"),
    (
        "We work mostly with photographs, and also do video and 3D rendering.",
        "The shop works mainly on photographs, but also on video, and virtual/3D rendering",
        True,
        "same services, reworded (virtual omitted)",
    ),
    (
        "We do not do video, only photographs.",
        "The shop works mainly on photographs, but also on video, and virtual/3D rendering",
        False,
        "no video",
    ),
    ("Your order will be ready in 15 minutes.", "around 15 minutes", True, "same time"),
    (
        "We do not deliver: pick it up at 23 Main Street.",
        "We offer home delivery",
        False,
        "no delivery",
    ),
    ("Yes, we deliver to your home.", "We offer home delivery", True, "delivery offered"),
    ("Delivery is not available.", "We offer home delivery", False, "no delivery"),
]
OWN[25] = (
    "Sprite and Coke cost 1$ each, water 1.50$.",
    "Sprite and Coke: 1.50$. Water: 1$",
    False,
    "the prices are swapped: same numbers, wrong items",
)
for v, c, label_, w in OWN:
    add(value=v, content=c, label=label_, why=w, family="own")
# order confirmations: content from the conversation's variables, value the chatbot's confirmation
SYN = {"big": ["big", "large"], "large": ["large", "big"]}


def mentions(text, word):
    words = SYN.get(word.lower(), [word.lower()])
    return any(re.search(r"\b" + re.escape(x) + r"\b", text.lower()) for x in words)


conf = []
for rel in sorted(
    glob.glob("sensei-pizza/conversations/*/conversations/*_eval/*/*.yml", root_dir=DATA)
):
    if "qa_eval" in rel:
        continue
    docs = load(rel)
    var = {k: v for x in docs[0]["ask_about"] if isinstance(x, dict) for k, v in x.items()}
    for i, t in enumerate(docs[2]["interaction"]):
        text = t.get("Assistant", "")
        if text.startswith("Thanks for ordering"):
            first = text.split("!")[0]
            conf.append((rel, i, var, first))
            break
for (rel, i, var, first), (rel2, _, var2, _) in itertools.product(conf, conf):
    size = var2["size"][0]
    if "toppings" in var2:
        content = (
            f"a {size} pizza with {', '.join(var2['toppings'][:-1])} and {var2['toppings'][-1]}"
        )
        parts = [size] + var2["toppings"]
    else:
        content = f"a {size} {var2['pizza_type'][0]} pizza"
        parts = [size, *var2["pizza_type"][0].split()]
    # the value: the confirmation sentence (up to "!") of conversation rel
    label = all(mentions(first, p) for p in parts) and (("toppings" in var2) == ("toppings" in var))
    if "toppings" in var2 and "toppings" in var:
        label = label and len(var["toppings"]) == len(var2["toppings"])
    same = rel == rel2
    if not same and zlib.crc32((rel + rel2).encode()) % 100 >= 6:
        continue
    missing = [p for p in parts if not mentions(first, p)]
    why = (
        "the confirmation names the size and every item"
        if label
        else f"the confirmation does not name {', '.join(missing) or 'the same pizza'}"
    )
    add(
        value={"file": rel, "turn": i, "until": "!"},
        content=content,
        label=label,
        why=why,
        family="confirmation-own" if same else "confirmation-other",
    )
    if same and "toppings" in var2:
        add(
            value={"file": rel, "turn": i, "until": "!"},
            content=f"a {size} pizza with no toppings",
            label=False,
            why="the confirmation lists toppings; the content says none",
            family="confirmation-negated",
        )
        add(
            value={"file": rel, "turn": i, "until": "!"},
            content=f"a {size} pizza without {var2['toppings'][0]}",
            label=not mentions(first, var2["toppings"][0]),
            why=f"the confirmation {'includes' if mentions(first, var2['toppings'][0]) else 'omits'} {var2['toppings'][0]}",
            family="confirmation-negated",
        )
for n, it in enumerate(items):
    it["id"] = f"{it['family']}-{n:03d}"
with (Path(__file__).resolve().parent / "semantic_content.yaml").open("w") as out:
    yaml.safe_dump(
        [{k: it[k] for k in ("id", "family", "value", "content", "label", "why")} for it in items],
        out,
        sort_keys=False,
        width=100,
        allow_unicode=True,
    )

print(len(items), Counter(it["family"] for it in items), Counter(it["label"] for it in items))
