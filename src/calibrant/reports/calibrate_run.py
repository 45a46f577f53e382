"""What `calibrate` prints around its report on the terminal: the report (brief, or whole with
--verbose), the files written, one line per kind of judge failure, the run id and the "Next:"
lines; and the one line it prints instead when nothing was measured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from .calibration import render_calibration, render_calibration_brief
from .folder import print_next

__all__ = ["failure_lines", "nothing_measured", "render_calibrate_run"]

WIDTH = 80  # a failure line's sample is cut to fit this, but under --verbose


def nothing_measured(report: dict[str, Any]) -> str:
    """The one line `calibrate` prints when no gold item got a verdict: how many items, how
    they failed, and the first failure's message (the cause)."""
    failures = (report.get("run") or {}).get("failures") or {}
    counts = ", ".join(f"{kind} {f['count']}" for kind, f in failures.items())
    cause = next((f["sample"] for f in failures.values() if f.get("sample")), None)
    return (
        f"calibrant: no gold item got a verdict from the judge ({report['n_items']} items"
        + (f": {counts}" if counts else "")
        + "); nothing was measured, so no gate and no report"
        + (f"; first error: {cause}" if cause else "")
    )


def failure_lines(report: dict[str, Any], *, verbose: bool = False) -> list[str]:
    """One line per kind of judge failure, with a sample cut to WIDTH columns (whole under
    `verbose`; the report has them whole)."""
    lines = []
    for kind, f in report["run"].get("failures", {}).items():
        line = f"judge {kind}: {f['count']} item(s)"
        if f.get("sample"):
            sample = str(f["sample"])
            room = WIDTH - len(line) - len(" — e.g. ")
            if not verbose and len(sample) > room:
                sample = sample[: max(room - 3, 20)] + "..."
            line += f" — e.g. {sample}"
        lines.append(line)
    return lines


def render_calibrate_run(
    console: Console,
    report: dict[str, Any],
    folder: Path,
    written: list[Path],
    *,
    as_json: bool = False,
    verbose: bool = False,
) -> None:
    """After a calibrate run that measured: the report on `console` (not under `as_json`: the
    caller printed the JSON), then on stderr the files written and the judge's failures, and
    the run id and the "Next:" lines, last (on stderr under `as_json`: stdout stays JSON)."""
    if verbose and not as_json:
        render_calibration(console, report, folder=str(folder))
    elif not as_json:
        render_calibration_brief(console, report, folder=str(folder))
    err = Console(stderr=True)
    for path in written:
        err.print(f"wrote {path}", highlight=False, soft_wrap=True)
    if as_json:
        err.print(f"wrote {folder}", highlight=False, soft_wrap=True)
    for line in failure_lines(report, verbose=verbose):
        err.print(line, highlight=False, markup=False, soft_wrap=True)
    Console(stderr=as_json).print(f"Run: {report['run_id']}", highlight=False, markup=False)
    print_next(report, folder, as_json=as_json)  # the "Next:" lines, last
