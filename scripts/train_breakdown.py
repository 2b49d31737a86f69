"""Train the offline breakdown classifier from the DBDC3 English development data.

Reproducible: the data are read in sorted order, the folds are ``GroupKFold`` by
dialogue and the learner is deterministic (``sparring.evaluate._training``). Prints the
nested grouped cross-validation figures beside "always breakdown", measures the model on
held-out corpora and on ChatChecker's annotated task-bot dialogues (``_calibration``:
which decides whether it may label turns) and writes the model as JSON (feature names
and set version, standardisation, coefficients, threshold, data fingerprint, figures)::

    PYTHONPATH=src python scripts/train_breakdown.py \
        [--data ../shared/data/dbdc3/en-dev] \
        [--silver ../shared/data/chatchecker/chatbots/study_goal_assistant/runs] \
        [--out src/sparring/evaluate/data/breakdown-offline-v1.json] [--embeddings]

``--embeddings`` adds the meaning relations (``_embedded``: sentence-embedding cosines of
each reply to its context; needs ``pip install 'sparring[embeddings]'``) and writes
``breakdown-offline-meaning-v1.json`` unless ``--out`` is given: the model the offline
detector uses when that extra is installed. Embedding the 6,054 distinct DBDC3 utterances
and the ChatChecker turns takes about 15 minutes of CPU.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from sparring.evaluate._calibration import calibrate, silver_turns
from sparring.evaluate._classifier import MEANING_MODEL_FILE, MODEL_FILE
from sparring.evaluate._dbdc import load_dbdc
from sparring.evaluate._embedded import default_encoder
from sparring.evaluate._training import FOLDS, train

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "dbdc3" / "en-dev"
SILVER = ROOT.parent / "shared/data/chatchecker/chatbots/study_goal_assistant/runs"
OUT = ROOT / "src" / "sparring" / "evaluate" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="DBDC folder (default %(default)s)")
    parser.add_argument(
        "--silver", type=Path, default=SILVER, help="ChatChecker runs (default %(default)s)"
    )
    parser.add_argument("--out", type=Path, default=None, help=f"model file (default {OUT}/…)")
    parser.add_argument("--embeddings", action="store_true", help="add the meaning relations")
    args = parser.parse_args()
    out = args.out or OUT / (MEANING_MODEL_FILE if args.embeddings else MODEL_FILE)
    encode = default_encoder() if args.embeddings else None
    started = time.perf_counter()
    dialogues = load_dbdc(args.data)
    data_name = "DBDC3 English development (dbd-challenge/dbdc3)"
    model, _ = train(dialogues, args.data, data_name, encode)
    assert model.training is not None
    print(f"{len(dialogues)} dialogues, {model.training.turns} annotated system turns")
    print(f"nested GroupKFold({FOLDS}) by dialogue; shipped threshold {model.threshold:.3f}")
    print(f"{'figure':20s} {'offline':>8s} {'always':>8s}")
    for name, value in model.training.cv.items():
        print(f"{name:20s} {value:8.3f} {model.training.baseline[name]:8.3f}")
    silver = silver_turns(args.silver) if args.silver.is_dir() else []
    calibrate(model, dialogues, silver, encode)
    assert model.quality is not None
    for m in model.quality.measurements:
        print(m.data, "|", m.labels)
        print("   ", m.model_dump(exclude={"data", "labels"}))
    print(model.quality.summary)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model.model_dump(mode="json"), indent=1) + "\n", "utf-8")
    print(f"wrote {out} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
