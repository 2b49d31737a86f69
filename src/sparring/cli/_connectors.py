"""CLI commands: ``sparring connectors list|show NAME``, ``sparring chat`` and
``sparring import-connector``."""

from __future__ import annotations

import asyncio
import sys
import typing
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from rich.table import Table
from rich.text import Text

from sparring._terminal import strip_control
from sparring.cli._app import app, console, err_console, exit_on_outcome
from sparring.cli._health import unreachable
from sparring.connectors import (
    CONNECTORS,
    Reply,
    available_connectors,
    chatbot_yaml,
    create_connector,
    get_connector,
    greeting_of,
    import_connector,
    load_chatbot_config,
    probe,
)
from sparring.errors import ChatbotFailure
from sparring.jobs import outcome as outcomes

connectors_app = typer.Typer(
    name="connectors", help="List the connectors to chatbots and their parameters."
)
app.add_typer(connectors_app)

QUIT = "/quit"


@connectors_app.command("list")
def list_connectors() -> None:
    """List every connector (built in and from plugins) with a one-line description; plug-ins
    that failed to load are listed after it, with the reason."""
    table = Table("connector", "description", title="Connectors")
    for name, spec in available_connectors().items():
        table.add_row(Text(name), Text(spec.description))
    console.print(table)
    for failure in CONNECTORS.failures():
        err_console.print(Text.assemble(("warning", "yellow"), f": connector {failure}"))


@connectors_app.command("show")
def show_connector(
    name: Annotated[str, typer.Argument(help="Connector name, e.g. rasa.")],
) -> None:
    """Show a connector's parameters (the ``params:`` of chatbot.yaml)."""
    spec = get_connector(name)  # UnknownConnector is a UserInputError
    table = Table(title=f"{name}: params")
    for column in ("parameter", "type", "default", "description"):
        table.add_column(column, overflow="fold")
    for row in parameter_rows(spec.params_model):
        table.add_row(*(Text(cell) for cell in row))
    console.print(Text.assemble((name, "bold"), f" — {spec.description}"), highlight=False)
    console.print(table)


def parameter_rows(model: type[BaseModel], prefix: str = "") -> list[tuple[str, str, str, str]]:
    """(dotted name, type, default, description) of every field, nested models expanded."""
    rows: list[tuple[str, str, str, str]] = []
    for name, info in model.model_fields.items():
        description = (info.description or "").replace("``", "")
        rows.append((prefix + name, _type_name(info), _default(info), description))
        nested = _nested_model(info.annotation)
        if nested is not None:
            rows.extend(parameter_rows(nested, f"{prefix}{name}."))
    return rows


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    candidates = [annotation, *getattr(annotation, "__args__", ())]
    for candidate in candidates:
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _type_name(info: FieldInfo) -> str:
    annotation = info.annotation
    text = repr(annotation) if annotation is not None else "any"
    if isinstance(annotation, type) and typing.get_origin(annotation) is None:
        text = annotation.__name__
    for noise in ("typing.", "pydantic.types.", "sparring.connectors._rest."):
        text = text.replace(noise, "")
    return text


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "(required)"
    if info.default_factory is not None:
        value: Any = info.default_factory()  # type: ignore[call-arg]
    else:
        value = None if info.default is PydanticUndefined else info.default
    if isinstance(value, BaseModel):
        return ""
    return repr(value)


def _print_reply(reply: Reply) -> None:
    body = Text(strip_control(reply.text)) if reply.text else Text("(empty reply)", style="dim")
    console.print(Text.assemble(("bot> ", "bold cyan"), body), highlight=False)
    for image in reply.images:
        console.print(Text(f"image: {strip_control(image)}", style="dim"), highlight=False)


def _is_empty(reply: Reply) -> bool:
    return not reply.text.strip() and not reply.images


async def _chat_loop(chatbot: Path) -> int:
    """Chat until /quit or EOF; the number of messages that got a chatbot failure (an
    unparseable payload included) or an empty reply. The chatbot.yaml is read and the
    chatbot probed before anything is said (``unreachable``: exit 1)."""
    config = load_chatbot_config(chatbot)
    connector = create_connector(config)
    reached = await probe(connector)
    if not reached.reachable:
        await connector.aclose()
        unreachable(reached.cause, chatbot, chatting=True)
    err_console.print(f"Chatting with {chatbot} — type {QUIT} (or Ctrl-D) to end.")
    unanswered = 0
    try:
        conversation = await connector.open()
        try:
            greeting = greeting_of(conversation)
            if greeting is not None:
                _print_reply(greeting)
            while True:
                if sys.stdin.isatty():
                    console.print(Text("you> ", style="bold green"), end="")
                line = await asyncio.to_thread(sys.stdin.readline)
                if not line or line.strip() == QUIT:
                    break
                if not line.strip():
                    continue
                try:
                    reply = await conversation.send(line.rstrip("\n"))
                except ChatbotFailure as exc:
                    unanswered += 1
                    err_console.print(f"[bold red]{exc.name}[/] ({exc.code}): {exc}")
                    continue
                _print_reply(reply)
                unanswered += _is_empty(reply)
        finally:
            await conversation.close()
    finally:
        await connector.aclose()
    return unanswered


@app.command("chat")
def chat(
    chatbot: Annotated[
        Path, typer.Option("--chatbot", "-c", help="The chatbot.yaml to talk to.")
    ] = Path("chatbot.yaml"),
) -> None:
    """Talk to the chatbot under test yourself: one line per message, /quit or EOF ends.

    Exits 1 when the chatbot cannot be reached, or when any message got no usable answer: a
    failure, an unparseable payload, or an empty reply (often a wrong ``response_path``).
    """
    try:
        unanswered = asyncio.run(_chat_loop(chatbot))
    except ChatbotFailure as exc:
        exit_on_outcome(outcomes.error(f"{exc.name} ({exc.code}): {exc}"))
    if unanswered:
        exit_on_outcome(
            outcomes.failed(
                f"{unanswered} message(s) got no usable answer (empty or unparseable reply, "
                "or a failure): check the connector's params, e.g. response_path."
            )
        )


@app.command("import-connector")
def import_connector_command(
    source: Annotated[
        str | None,
        typer.Argument(
            help="SENSEI connector file, run.yml (or its project folder), TRACER "
            "custom-connector YAML, or TECHNOLOGY:PARAMS (e.g. taskyto:base_url=http://host)."
        ),
    ] = None,
    technology: Annotated[
        str | None,
        typer.Option("--technology", "-t", help="TRACER/SENSEI technology: rasa, taskyto, custom."),
    ] = None,
    connector_params: Annotated[
        str | None,
        typer.Option(
            "--connector-params", help="TRACER's connector params: JSON or key=value,key=value."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="chatbot.yaml to write (default: print it).")
    ] = None,
) -> None:
    """Convert a SENSEI or TRACER connector description into a chatbot.yaml.

    Every such file is also accepted as it is by ``--chatbot``; the differences from how
    its own tool reads it are printed as warnings. Exits 2 for a file it cannot read.
    """
    config = import_connector(source, technology, connector_params)
    for warning in config.warnings:
        err_console.print(Text.assemble(("warning", "yellow"), f": {warning}"), soft_wrap=True)
    text = chatbot_yaml(config)
    if out is None:
        console.print(Text(text.rstrip("\n")), soft_wrap=True, highlight=False)
        return
    out.write_text(text, encoding="utf-8")
    err_console.print(f"wrote {out}")
