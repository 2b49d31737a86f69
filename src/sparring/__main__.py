"""``python -m sparring``: the ``sparring`` command (``sparring._console.main``, where Ctrl-C
while loading exits 130 with one line, no traceback)."""

from sparring._console import main

main()
