"""The LLM exploration strategy (TRACER: Sotillo del Horno, "Automated Exploration and
Profiling of Conversational Agents", 2025, ch. 3–5), private to ``sparring.explore``.

Modules: ``_run`` (the entry point and the session queue), ``_probe`` (languages and
fallback), ``_explorer`` (the explorer agent), ``_extract`` (extraction and the
session-local merge), ``_merge`` (the global merge), ``_refine`` (consolidation,
classification, workflow, categories), ``_nodes`` (nodes and how two merge),
``_schemas`` (the model's structured replies), ``_prompts``/``_prompts_analysis``,
``_calls`` (model calls and usage per step). See docs/explore-llm.md.
"""

from sparring.explore._tracer._run import explore_with_model

__all__ = ["explore_with_model"]
