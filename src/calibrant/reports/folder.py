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


def calibration_next_lines(report: dict[str, Any], folder: Path) -> list[str]:
    """What to run after `calibrate`, each line "Next: COMMAND  (what for)"."""
    run = str(report.get("run_id") or "")[:12]
    html = folder / "report.html"
    if not report.get("judge_outcomes", {}).get("verdict"):
        return [
            "Next: fix what the failures name (endpoint, model, options), then calibrate "
            "again  (no gold item got a verdict: nothing was measured)",
            f"Next: python -m webbrowser {html}  (what was recorded)",
        ]
    lines = [f"Next: python -m webbrowser {html}  (open the report in a browser)"]
    if report.get("gate", {}).get("judge") != "PASS":
        lines.append(
            "Next: read each criterion's reasons in the report, then revise the "
            "rubric or try another judge (--model, --judge)  (the gate did not pass)"
        )
    recorded = (report.get("judge") or {}).get("recorded")
    if recorded:
        return [
            *lines,
            f"Next: calibrant compare {recorded['file']} OTHER_VERDICTS  (this judge version "
            "against another, recorded or saved, on the same gold items)",
            *([f"Next: calibrant runs show {run}  (this run, later)"] if run else []),
        ]
    calibration = run or str(folder / "report.json")
    lines += [
        f"Next: calibrant score TRANSCRIPTS --calibration {calibration}  (pass rates "
        "corrected by this calibration; give the same judge options)",
        "Next: calibrant compare JUDGE_A JUDGE_B  (two saved judges on the same gold items)",
    ]
    if run:
        lines.append(f"Next: calibrant runs show {run}  (this run, later)")
    return lines


def print_next(report: dict[str, Any], folder: Path, *, as_json: bool = False) -> None:
    """The "Next:" lines after `calibrate`'s report (on stderr under --json: stdout stays
    JSON)."""
    import textwrap

    from rich.console import Console

    console = Console(stderr=as_json, soft_wrap=True, highlight=False, markup=False)
    for line in calibration_next_lines(report, folder):  # wrapped between words, paths whole
        for piece in textwrap.wrap(
            line, console.width, break_long_words=False, break_on_hyphens=False
        ):
            console.print(piece)
