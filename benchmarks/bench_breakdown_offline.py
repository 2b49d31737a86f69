"""Offline breakdown detection time on the DBDC3 English development set.

Claim (issue "evaluate: offline strategy"): the offline detector scores (ranks) every system turn
of ``../shared/data/dbdc3/en-dev`` (415 dialogues, 4,150 annotated system turns; 4,335
chatbot turns in all) in under 10 seconds, model loading included.

Timed, in one fresh process: reading the shipped model (the cache of
``shipped_classifier`` is cleared first) and ``OfflineBreakdownDetector.detect`` on every
dialogue, one after the other. Reading and parsing the DBDC files is timed apart.

    PYTHONPATH=src python benchmarks/bench_breakdown_offline.py [--data DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from sparring.connectors import ChatbotInfo
from sparring.evaluate import OfflineBreakdownDetector, load_dbdc, shipped_classifier

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "dbdc3" / "en-dev"
LIMIT = 10.0
"""Seconds allowed (the claim)."""


async def label_all(data: Path) -> dict[str, float]:
    started = time.perf_counter()
    records = [d.record() for d in load_dbdc(data)]
    read = time.perf_counter() - started
    shipped_classifier.cache_clear()
    detector = OfflineBreakdownDetector()
    info = ChatbotInfo()
    started = time.perf_counter()
    judged = [await detector.detect(r, info, []) for r in records]
    elapsed = time.perf_counter() - started
    turns = sum(len(j.turns) for j in judged)
    return {"dialogues": len(records), "turns": turns, "read_s": read, "detect_s": elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if not args.data.is_dir():
        raise SystemExit(f"{args.data} is absent: nothing to time")
    result = asyncio.run(label_all(args.data))
    print(
        f"{result['dialogues']:.0f} dialogues, {result['turns']:.0f} chatbot turns scored in "
        f"{result['detect_s']:.2f} s (model loading included; limit {LIMIT:.0f} s), "
        f"{result['turns'] / result['detect_s']:.0f} turns/s; reading the files "
        f"{result['read_s']:.2f} s"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if result["detect_s"] > LIMIT:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
