"""One reader of Rasa projects for every part of sparring (neutral: no stage).

A Rasa 1.x (Markdown training data, ``templates``, ``FormAction`` in ``actions.py``),
2.x or 3.x (YAML) project is read into located parts (``RasaProject``: training files
with their NLU blocks, stories and rules; domain files with intents, entities, slots and
their mappings, forms, responses and actions; ``config.yml``; the action code's forms).
``mutation`` edits the files' text at those locations, ``adversarial``'s plan scans the
project for weaknesses by file and line, ``explore --project`` seeds its exploration and
measures coverage against it.
"""

from sparring.rasa_project._load import (
    code_forms,
    config_file,
    domain_files,
    find_project,
    is_rasa_project,
    json_training_files,
    load_project,
    training_files,
)
from sparring.rasa_project._model import (
    CodeForms,
    Dialogue,
    Entry,
    Example,
    Form,
    JsonTrainingFile,
    NluBlock,
    Payload,
    RasaProject,
    Response,
    Slot,
    Span,
    Step,
    TrainingFile,
    YamlFile,
    indent_of,
    is_blank,
    line_offsets,
    trim_end,
)
from sparring.rasa_project._views import (
    dialogues,
    entity_values,
    forms,
    intent_examples,
    plain_example,
    responses,
    synonyms,
)

__all__ = [
    "CodeForms",
    "Dialogue",
    "Entry",
    "Example",
    "Form",
    "JsonTrainingFile",
    "NluBlock",
    "Payload",
    "RasaProject",
    "Response",
    "Slot",
    "Span",
    "Step",
    "TrainingFile",
    "YamlFile",
    "code_forms",
    "config_file",
    "dialogues",
    "domain_files",
    "entity_values",
    "find_project",
    "forms",
    "indent_of",
    "intent_examples",
    "is_blank",
    "is_rasa_project",
    "json_training_files",
    "line_offsets",
    "load_project",
    "plain_example",
    "responses",
    "synonyms",
    "training_files",
    "trim_end",
]
