"""Run-to-run comparison (``sparring diff BASELINE NEW``): rules newly failing, fixed or
flaky, conversations whose verdicts changed with the turns that differ, response time and
cost (``diff_runs``); a regression fails (``RunDiff.outcome``)."""

from sparring.diff._compare import RunDiff, Timing, TurnChange, VerdictChange, compare, timing
from sparring.diff._load import diff_runs, load_run, pick_verdicts
from sparring.diff._render import diff_junit, render_diff, write_diff_junit

__all__ = [
    "RunDiff",
    "Timing",
    "TurnChange",
    "VerdictChange",
    "compare",
    "diff_junit",
    "diff_runs",
    "load_run",
    "pick_verdicts",
    "render_diff",
    "timing",
    "write_diff_junit",
]
