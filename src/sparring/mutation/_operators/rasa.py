"""The Rasa mutation operators (``kind = "rasa"``); importing this module registers them.

After Gómez-Abajo et al.'s operators for task-oriented chatbots ("A tool for the
definition and application of mutation operators for chatbots"; SENSEI §7.1), for Rasa
3.x YAML and Rasa 1.x/2.x Markdown training data:

==================================  ====================================================
``rasa.change_regex``               a regex quantifier changed or character class narrowed
``rasa.delete_story_action``        an action deleted from a story or rule
``rasa.delete_step``                a step (intent or action) deleted from a story or rule
``rasa.delete_fallback``            a fallback rule/story, or the fallback component
``rasa.delete_intent``              an intent with its training phrases
``rasa.delete_response_parameter``  a ``{slot}`` of a text or an entity of a payload
``rasa.delete_synonyms``            a synonym block
``rasa.keep_two_examples``          an intent's training phrases cut to two
``rasa.swap_responses``             two (consecutive) responses exchanged
==================================  ====================================================

Operators edit the files' text, never a re-dumped YAML: comments, order and formatting
are kept and each diff shows one change.
"""

from __future__ import annotations

from sparring.mutation._operators.rasa_dialogue import (
    DeleteFallback,
    DeleteStep,
    DeleteStoryAction,
)
from sparring.mutation._operators.rasa_domain import DeleteResponseParameter, SwapResponses
from sparring.mutation._operators.rasa_nlu import (
    ChangeRegex,
    DeleteIntent,
    DeleteSynonyms,
    KeepTwoExamples,
)

RASA_OPERATORS = (
    ChangeRegex,
    DeleteStoryAction,
    DeleteStep,
    DeleteFallback,
    DeleteIntent,
    DeleteResponseParameter,
    DeleteSynonyms,
    KeepTwoExamples,
    SwapResponses,
)
"""The Rasa operator classes, in the issue's order."""

__all__ = ["RASA_OPERATORS"]
