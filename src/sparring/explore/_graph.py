"""The workflow graph of a functionality model, drawn with Graphviz (TRACER's
``--graph-format``, ``--compact`` and ``--top-down`` options).

Nodes are functionalities (with their parameters and outputs unless ``compact``), edges
go parent → child, from a start node; ``covered`` node ids are filled green and the others
grey, which is how the report shows what a run exercised. Rendering needs Graphviz's
``dot`` program; without it ``render_graph`` raises ``GraphvizMissing`` and the DOT source
is still written.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from sparring.errors import SparringError
from sparring.explore._model import ExplorationModel, Functionality

if TYPE_CHECKING:
    import graphviz  # type: ignore[import-untyped]

GraphFormat = Literal["svg", "png", "pdf"]
START = "__start__"


class GraphvizMissing(SparringError):
    """Graphviz's ``dot`` program is not installed (Debian: ``apt install graphviz``)."""


def workflow_dot(
    model: ExplorationModel,
    *,
    compact: bool = False,
    top_down: bool = False,
    covered: Collection[str] | None = None,
) -> graphviz.Digraph:
    """The workflow as a ``graphviz.Digraph`` (not rendered). ``covered``, when given,
    marks those node ids covered and the others not."""
    import graphviz

    dot = graphviz.Digraph("workflow", graph_attr={"rankdir": "TB" if top_down else "LR"})
    dot.attr("graph", fontname="Helvetica", nodesep="0.3", ranksep="0.5")
    dot.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="10")
    dot.attr("edge", color="#666666", arrowsize="0.7")
    dot.node(START, "start", shape="circle", fillcolor="#333333", fontcolor="white")
    for node in model.functionalities:
        fill = "#eef2ff"
        if covered is not None:
            fill = "#c8ecc8" if node.id in covered else "#e6e6e6"
        dot.node(node.id, _label(node, compact), fillcolor=fill, tooltip=node.description)
        for parent in node.parents:
            dot.edge(parent, node.id)
        if not node.parents:
            dot.edge(START, node.id)
    return dot


def render_graph(
    model: ExplorationModel,
    out: Path,
    formats: Collection[GraphFormat] = ("svg", "png"),
    *,
    compact: bool = False,
    top_down: bool = False,
    covered: Collection[str] | None = None,
) -> list[Path]:
    """Write ``<out>.dot`` and ``<out>.<format>`` for each format; return the paths.
    Raises ``GraphvizMissing`` (after writing the DOT file) when ``dot`` is missing."""
    dot = workflow_dot(model, compact=compact, top_down=top_down, covered=covered)
    out.parent.mkdir(parents=True, exist_ok=True)
    source = out.with_suffix(".dot")
    source.write_text(dot.source, encoding="utf-8")
    written = [source]
    if shutil.which("dot") is None:
        raise GraphvizMissing(
            f"Graphviz's dot is not installed: wrote {source} only (apt install graphviz)"
        )
    for fmt in formats:
        target = out.with_suffix(f".{fmt}")
        target.write_bytes(dot.pipe(format=fmt))
        written.append(target)
    return written


def workflow_svg(model: ExplorationModel, covered: Collection[str] | None = None) -> str | None:
    """The workflow drawn as an SVG document (for the report); ``None`` without ``dot``."""
    if shutil.which("dot") is None:
        return None
    svg: bytes = workflow_dot(model, covered=covered, compact=True).pipe(format="svg")
    return svg.decode()


def _label(node: Functionality, compact: bool) -> str:
    lines = [node.name]
    if not compact:
        for parameter in node.parameters:
            options = ", ".join(parameter.options[:6])
            more = "…" if len(parameter.options) > 6 else ""
            lines.append(f"• {parameter.name}" + (f": {options}{more}" if options else ""))
        for output in node.outputs:
            lines.append(f"→ {output.name}")
    return "\n".join(lines)
