"""The rule functions of the rules language: SENSEI-check's library, plus user plug-ins.

Importing this package registers the built-ins (``extract_float``, ``currency``,
``language``, ``length``, ``tone``, ``only_talks_about``, ``utterance_index``,
``chatbot_returns``, ``empty_responses``, ``repeated_answers``, ``conversation_length``,
``data_collected``, ``missing_slots``/``missing_outputs``, ``responds_in_same_language``,
``semantic_content``, ``is_unique``, ``exists``, ``num_exist``,
``confirmation_mismatches``, ``task_steps_missing``, ``answer_type_missing``) in the
registry of ``sparring.check._context``. Each takes the ``FunctionContext`` first; the
evaluator binds it. Model-backed functions use ``context.model`` when set, else their
offline strategy, else raise ``ModelRequired``. See docs/rule-functions.md.
"""

from sparring.check.functions._answer_type import answer_type_missing
from sparring.check.functions._confirmation import confirmation_mismatches
from sparring.check.functions._extract import currency, extract_float, length
from sparring.check.functions._global import exists, is_unique, num_exist
from sparring.check.functions._interaction import (
    chatbot_returns,
    conversation_length,
    data_collected,
    empty_responses,
    missing_slots,
)
from sparring.check.functions._language import language, responds_in_same_language
from sparring.check.functions._meaning import Meaning, compare_meaning, numbers_agree
from sparring.check.functions._plugins import GROUP, load_functions_file, load_plugin_functions
from sparring.check.functions._repetition import repeated_answers
from sparring.check.functions._semantic import only_talks_about, semantic_content, utterance_index
from sparring.check.functions._task import task_steps_missing
from sparring.check.functions._tone import tone
from sparring.check.functions._turns import numbers, reply_to, turn_after
from sparring.similarity import similarities, similarity_method

BUILT_INS = (
    "extract_float",
    "currency",
    "language",
    "length",
    "tone",
    "only_talks_about",
    "utterance_index",
    "chatbot_returns",
    "empty_responses",
    "repeated_answers",
    "conversation_length",
    "data_collected",
    "missing_slots",
    "missing_outputs",
    "responds_in_same_language",
    "semantic_content",
    "is_unique",
    "exists",
    "num_exist",
    "reply_to",
    "turn_after",
    "numbers",
    "confirmation_mismatches",
    "task_steps_missing",
    "answer_type_missing",
)
"""Every built-in function name (SENSEI-check's, plus the paper's ``missing_outputs``)."""

__all__ = [
    "BUILT_INS",
    "GROUP",
    "Meaning",
    "answer_type_missing",
    "chatbot_returns",
    "compare_meaning",
    "confirmation_mismatches",
    "conversation_length",
    "currency",
    "data_collected",
    "empty_responses",
    "exists",
    "extract_float",
    "is_unique",
    "language",
    "length",
    "load_functions_file",
    "load_plugin_functions",
    "missing_slots",
    "num_exist",
    "numbers",
    "numbers_agree",
    "only_talks_about",
    "repeated_answers",
    "reply_to",
    "responds_in_same_language",
    "semantic_content",
    "similarities",
    "similarity_method",
    "task_steps_missing",
    "tone",
    "turn_after",
    "utterance_index",
]
