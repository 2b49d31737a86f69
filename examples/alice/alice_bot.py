"""ALICE, a real open-domain chatbot nobody on this team wrote, for the ``python`` connector.

The ``aiml`` package (PyAIML) ships two AIML sets: ALICE (about 98,000 categories, the
A.L.I.C.E. bot by Richard Wallace; ~3 s to load) and the smaller "Standard" set (~23,000
categories). Each set is loaded once per process into a shared ``aiml.Kernel``; each
conversation gets its own session id, so the user predicates one conversation sets
(``name``, ``topic``, …) never leak into another.

``chatbot.yaml``::

    connector: python
    params:
      target: "alice_bot:AliceBot"
      path: .
      kwargs: {aiml_set: standard}    # optional; default alice
      # or kwargs: {aiml_dir: aiml}    # learn every *.aiml under this folder instead

A set can be written out as a project of its own, to edit or to mutate
(``sparring mutate --kind aiml``; docs/mutate.md)::

    python examples/alice/alice_bot.py project /tmp/alice-project [--set standard]

Known behaviour worth testing for: with ALICE, "My name is Maria" is answered with the
name, but "What is my name?" gets "I don't know. What is your name?" — the set's ``MY
NAME`` category uses AIML 2.0's ``<li value="*">`` (any value), which this AIML 1.0
interpreter reads literally. The Standard set remembers the name.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import threading
import time
import types
import uuid
from pathlib import Path
from typing import Any

AIML_SETS: dict[str, str] = {"alice": "*.aiml", "standard": "std-*.aiml"}
"""The bundled sets and the files of ``aiml/botdata/<set>/`` that make them up."""

BOT_PREDICATES: dict[str, dict[str, str]] = {
    "alice": {"name": "ALICE", "master": "Dr. Richard S. Wallace", "botmaster": "botmaster"},
    "standard": {"name": "Standard", "master": "the PyAIML authors", "botmaster": "botmaster"},
}
"""Bot predicates the sets read (``<bot name="name"/>``); unset ones answer empty."""

_kernels: dict[str, Any] = {}
_lock = threading.Lock()


def _import_aiml() -> Any:
    try:
        import aiml
    except ImportError as exc:
        raise RuntimeError("the ALICE example needs `pip install aiml`") from exc
    # aiml 0.9.2 (the latest on PyPI) still calls time.clock(), removed in Python 3.8;
    # give its Kernel module, and only it, a stand-in.
    kernel_module = sys.modules["aiml.Kernel"]
    if not hasattr(kernel_module.time, "clock"):
        kernel_module.time = types.SimpleNamespace(clock=time.perf_counter)
    return aiml


def load_kernel(aiml_set: str = "alice") -> Any:
    """The shared ``aiml.Kernel`` with ``aiml_set`` (``alice`` or ``standard``) learned.

    Loaded on first use (about 3 s for ALICE), then reused. Files are learned by absolute
    path: the kernel's own ``bootstrap`` changes the working directory of the whole
    process, which other threads would notice. Raises ``ValueError`` for an unknown set,
    ``RuntimeError`` when ``aiml`` is not installed.
    """
    if aiml_set not in AIML_SETS:
        raise ValueError(f"unknown AIML set {aiml_set!r}; expected one of {sorted(AIML_SETS)}")
    with _lock:
        if aiml_set not in _kernels:
            aiml = _import_aiml()
            kernel = aiml.Kernel()
            kernel.verbose(False)
            folder = Path(aiml.__file__).parent / "botdata" / aiml_set
            for path in sorted(folder.glob(AIML_SETS[aiml_set])):
                kernel.learn(str(path))
            for name, value in BOT_PREDICATES[aiml_set].items():
                kernel.setBotPredicate(name, value)
            _kernels[aiml_set] = kernel
        return _kernels[aiml_set]


def load_folder_kernel(aiml_dir: str | Path) -> Any:
    """A shared ``aiml.Kernel`` with every ``*.aiml`` file under ``aiml_dir`` learned
    (recursively, in path order), with ALICE's bot predicates. A relative ``aiml_dir`` is
    read from this file's folder, so a copied project reads its own files. Raises
    ``FileNotFoundError`` when the folder holds no ``*.aiml`` file."""
    folder = Path(aiml_dir)
    if not folder.is_absolute():
        folder = Path(__file__).resolve().parent / folder
    key = f"dir:{folder.resolve()}"
    with _lock:
        if key not in _kernels:
            files = sorted(folder.rglob("*.aiml"))
            if not files:
                raise FileNotFoundError(f"no *.aiml file under {folder}")
            kernel = _import_aiml().Kernel()
            kernel.verbose(False)
            for path in files:
                kernel.learn(str(path))
            for name, value in BOT_PREDICATES["alice"].items():
                kernel.setBotPredicate(name, value)
            _kernels[key] = kernel
        return _kernels[key]


def write_project(target: Path, aiml_set: str = "alice") -> Path:
    """Write ``aiml_set`` as a project folder: ``aiml/*.aiml`` (copied from the installed
    package), this file, and a ``chatbot.yaml`` that serves the folder's own AIML files.
    Returns ``target``; raises ``ValueError`` for an unknown set."""
    if aiml_set not in AIML_SETS:
        raise ValueError(f"unknown AIML set {aiml_set!r}; expected one of {sorted(AIML_SETS)}")
    source = Path(_import_aiml().__file__).parent / "botdata" / aiml_set
    (target / "aiml").mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob(AIML_SETS[aiml_set])):
        shutil.copyfile(path, target / "aiml" / path.name)
    shutil.copyfile(__file__, target / "alice_bot.py")
    module_target = 'target: "alice_bot:AliceBot"'
    chatbot = (Path(__file__).parent / "chatbot.yaml").read_text(encoding="utf-8")
    if module_target not in chatbot:
        raise RuntimeError(f"examples/alice/chatbot.yaml no longer says {module_target}")
    chatbot = chatbot.replace(
        module_target, 'target: "alice_bot.py:AliceBot"\n  kwargs: {aiml_dir: aiml}'
    )
    (target / "chatbot.yaml").write_text(chatbot, encoding="utf-8")
    return target


class AliceBot:
    """One conversation with ALICE (or the Standard set, or the AIML files of a folder):
    its own AIML session."""

    def __init__(self, aiml_set: str = "alice", aiml_dir: str | None = None) -> None:
        self.kernel = load_folder_kernel(aiml_dir) if aiml_dir else load_kernel(aiml_set)
        self.session_id = f"sparring-{uuid.uuid4().hex}"

    def respond(self, text: str) -> str:
        """The bot's answer to one user utterance (may be empty when no category matches)."""
        return str(self.kernel.respond(text, self.session_id))

    def close(self) -> None:
        """Forget this conversation's predicates and history."""
        delete = getattr(self.kernel, "_deleteSession", None)  # PyAIML has no public one
        if delete is not None:
            delete(self.session_id)


def main(argv: list[str] | None = None) -> None:
    """``python alice_bot.py project DIR [--set alice|standard]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    project = commands.add_parser("project", help="write an AIML set as a project folder")
    project.add_argument("target", type=Path)
    project.add_argument("--set", dest="aiml_set", default="alice", choices=sorted(AIML_SETS))
    args = parser.parse_args(argv)
    target = write_project(args.target, args.aiml_set)
    print(f"wrote {target} ({len(list((target / 'aiml').glob('*.aiml')))} AIML files)")


if __name__ == "__main__":
    main()
