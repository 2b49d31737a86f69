"""``python -m sparring``: the ``sparring`` command. Ctrl-C while sparring is still
loading exits 130 without a traceback, as it does once the command runs."""

import signal

try:
    from sparring.cli import main
except KeyboardInterrupt:  # jobs.outcome.EXIT_INTERRUPTED, not importable yet
    raise SystemExit(128 + signal.SIGINT) from None

main()
