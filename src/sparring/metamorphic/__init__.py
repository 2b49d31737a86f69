"""The ``metamorphic`` job: multi-turn metamorphic testing (MORTAR, Guo et al., arXiv
2412.15557) of any chatbot behind the connectors (docs/metamorphic.md)."""

from __future__ import annotations
