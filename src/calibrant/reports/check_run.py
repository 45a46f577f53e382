"""What `calibrant check` prints: each verdict as it comes (--jsonl), or, once every file has
parsed, the verdicts spooled to a temporary file as tables (brief, or every transcript with
--verbose) or JSON; then on stderr the files skipped and read, and last the run id and the
"Next:" lines."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from .folder import next_line
from .safety import VerdictSpool, render_safety, render_safety_brief, write_safety_json

if TYPE_CHECKING:
    from ..contracts import SafetyVerdict

__all__ = ["CheckOutput", "check_next_lines", "warn_unfinished_runs"]


def warn_unfinished_runs(paths: Sequence[Path], err: Console) -> None:
    """A folder a `trials` run has not finished holds only part of its transcripts: say so."""
    from ..harness.runfolder import MARKER

    for p in paths:
        if p.is_dir() and (p / MARKER).exists():
            err.print(
                f"warning: {p} holds an unfinished trials run ({MARKER}): only the trials that "
                "finished are checked; rerun the same `calibrant trials` command to finish it",
                style="yellow",
                highlight=False,
                markup=False,
            )


def check_next_lines(
    run_id: str, paths: Sequence[Path], totals: Any, *, verbose: bool
) -> list[str]:
    """`check`'s last lines: its run id (when the store recorded it) and what to run next."""
    lines = [f"Run: {run_id}"] if run_id else []
    if (totals.violated or totals.harness_error) and not verbose:
        given = " ".join(str(p) for p in paths)
        target = given if len(given) <= 40 else "PATHS"
        lines.append(next_line(f"calibrant check {target} --verbose", "why, and the evidence"))
    if run_id:
        lines.append(next_line(f"calibrant runs show {run_id[:12]}", "this run, later"))
    return lines


class CheckOutput:
    """How `check` shows its verdicts: `on_verdict` hears each one (written at once under
    `as_jsonl`, memory flat; else spooled, so a bad file still exits with no output), `show`
    prints them once the run is done, `close` drops the spool, `show_end` the last lines."""

    def __init__(self, *, as_json: bool, as_jsonl: bool, verbose: bool) -> None:
        self.as_json, self.as_jsonl, self.verbose = as_json, as_jsonl, verbose
        self.spool = VerdictSpool()

    def on_verdict(self, v: SafetyVerdict) -> None:
        if self.as_jsonl:
            sys.stdout.write(v.model_dump_json() + "\n")
            sys.stdout.flush()
        else:
            self.spool.add(v)

    def show(self, files: Any, totals: Any) -> None:
        skipped = [s.as_json() for s in files.skipped]
        head = {**totals.doc().json_data(), "files": {"read": len(files), "skipped": skipped}}
        if self.as_jsonl:
            sys.stdout.write(json.dumps(head, sort_keys=True, ensure_ascii=False) + "\n")
        elif self.as_json:
            write_safety_json(sys.stdout, head, self.spool.documents())
        elif self.verbose:
            render_safety(Console(), self.spool, verbose=True)
        else:
            render_safety_brief(Console(), self.spool)

    def close(self) -> None:
        self.spool.close()

    def show_end(
        self, err: Console, run_id: str, paths: Sequence[Path], files: Any, totals: Any
    ) -> None:
        """The files skipped and read (on stderr), then the run id and the "Next:" lines (not
        under --json or --jsonl: stdout stays JSON)."""
        machine = self.as_json or self.as_jsonl
        for s in files.skipped:
            err.print(f"skipped {s}", style="yellow", highlight=False, markup=False, soft_wrap=True)
        if files.skipped or not machine:
            err.print(files.summary("transcript file"), highlight=False, soft_wrap=True)
        if not machine:
            console = Console(soft_wrap=True, highlight=False, markup=False)
            for line in check_next_lines(run_id, paths, totals, verbose=self.verbose):
                console.print(line)
