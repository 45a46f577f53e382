"""The folder a run leaves behind, and what to do next with it.

`calibrate` writes its report as reports/<run-id>/ (relative to the current folder; `--out DIR`
chooses another folder) holding report.html (open it in a browser), report.json (the data,
what `score --calibration` reads) and report.md, all or none; it then ends with lines starting
"Next:" that name the commands a reader runs after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = [
    "REPORTS_ROOT",
    "REPORT_FILES",
    "check_report_folder",
    "report_folder",
    "write_report_folder",
    "write_calibration_folder",
    "calibration_next_lines",
    "print_next",
    "next_line",
    "print_run",
]

REPORTS_ROOT = Path("reports")
REPORT_FILES = ("report.html", "report.json", "report.md")


def report_folder(run_id: str, out: Path | None = None) -> Path:
    """Where a run's report goes: `out` when given, else reports/<run-id>/."""
    return out if out is not None else REPORTS_ROOT / run_id


def check_report_folder(out: Path | None, *, option: str = "--out") -> None:
    """Before any work: the report folder (`out`, or reports/ when None) must be a folder or
    not exist yet, and no report file's place may be taken by a folder."""
    if out is None:
        if REPORTS_ROOT.exists() and not REPORTS_ROOT.is_dir():
            raise ConfigError(
                f"{REPORTS_ROOT} is a file: calibrant writes reports under a folder of that "
                "name; move the file or choose a folder with --out"
            )
        return
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{option} {out}: is a file; give a folder for the report files")
    for parent in out.parents:
        if parent.exists() and not parent.is_dir():
            raise ConfigError(f"{option} {out}: {parent} is a file, not a folder")
    for name in REPORT_FILES:
        if (out / name).is_dir():
            raise ConfigError(
                f"{option} {out}: {out / name} is a folder; remove it or choose another"
            )


def write_report_folder(folder: Path, *, html: str, json_text: str, markdown: str) -> Path:
    """Write report.html, report.json and report.md into `folder` (made if missing), all or
    none; returns the folder."""
    from ..paths import write_all_atomic

    check_report_folder(folder, option="report folder")
    write_all_atomic(
        {
            folder / "report.html": html,
            folder / "report.json": json_text if json_text.endswith("\n") else json_text + "\n",
            folder / "report.md": markdown,
        }
    )
    return folder


def write_calibration_folder(report: dict[str, Any], out: Path | None = None) -> Path:
    """A calibration report as reports/<run-id>/ (or `out`): HTML, JSON and Markdown."""
    from .calibration import calibration_json
    from .calibration_md import calibration_markdown
    from .html import calibration_html

    folder = report_folder(str(report.get("run_id") or "unrecorded"), out)
    return write_report_folder(
        folder,
        html=calibration_html(report),
        json_text=calibration_json(report),
        markdown=calibration_markdown(report),
    )


NEXT_WIDTH = 80  # a "Next:" line fits a terminal this wide: its note goes when it would not


def next_line(command: str, why: str = "") -> str:
    """ "Next: COMMAND  # why", or without the note when that would pass NEXT_WIDTH columns (a
    command is never cut: a long path stays whole, to copy)."""
    line = f"Next: {command}"
    with_note = f"{line}  # {why}" if why else line
    return with_note if len(with_note) <= NEXT_WIDTH else line


def calibration_next_lines(report: dict[str, Any], folder: Path) -> list[str]:
    """What to run after `calibrate`, each line "Next: COMMAND  # what for" (a line a shell can
    run, the note a shell comment), at most NEXT_WIDTH columns when the paths allow it."""
    run = str(report.get("run_id") or "")[:12]
    html = folder / "report.html"
    lines = [next_line(f"python -m webbrowser {html}", "the report, in a browser")]
    if not report.get("judge_outcomes", {}).get("verdict"):  # nothing measured
        return lines
    recorded = (report.get("judge") or {}).get("recorded")
    if recorded:
        lines.append(
            next_line(f"calibrant compare {recorded['file']} OTHER_VERDICTS", "vs another")
        )
    else:
        calibration = run or str(folder / "report.json")
        lines += [
            next_line(f"calibrant score TRANSCRIPTS --calibration {calibration}", "same judge"),
            next_line("calibrant compare JUDGE_A JUDGE_B", "two saved judges, same gold items"),
        ]
    if run:
        lines.append(next_line(f"calibrant runs show {run}", "this run, later"))
    return lines


def print_next(report: dict[str, Any], folder: Path, *, as_json: bool = False) -> None:
    """The "Next:" lines after `calibrate`'s report (on stderr under --json: stdout stays
    JSON), each on one line."""
    from rich.console import Console

    console = Console(stderr=as_json, soft_wrap=True, highlight=False, markup=False)
    for line in calibration_next_lines(report, folder):
        console.print(line)


def print_run(run_id: str, nexts: list[str] | None = None, *, as_json: bool = False) -> None:
    """A recorded run's last lines: "Run: ID", then its "Next:" lines (`runs show` when none is
    given), on stdout (on stderr under --json: stdout stays JSON). Nothing for no run (a store
    that could not be opened)."""
    from rich.console import Console

    if not run_id:
        return
    console = Console(stderr=as_json, soft_wrap=True, highlight=False, markup=False)
    console.print(f"Run: {run_id}")
    for line in nexts or [next_line(f"calibrant runs show {run_id[:12]}", "this run, later")]:
        console.print(line)
