"""``python -m sparring.web --host H [--port P] [--no-browser]``: the server process.

``sparring web`` replaces itself with this lean process (``os.execv``), so the idle server
holds Django and the job runner, not every command's imports (scikit-learn and the rest of
the CLI: ~100 MB). Problems exit 2 like the CLI.
"""

from __future__ import annotations

import argparse
import sys

from sparring.errors import UserInputError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sparring web")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=None)  # None: 8000 or the next free
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args(argv)
    from sparring.web._serve import serve

    try:
        serve(args.host, args.port, open_browser=not args.no_browser)
    except UserInputError as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
