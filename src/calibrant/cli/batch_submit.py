"""Sending a judge's pending requests to the provider's batch API and following the batch
until it ends: what `calibrant batch submit` and `calibrant score --submit` share (a module of
its own, so no command family imports another)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

__all__ = ["PollOpt", "submit_pending"]

PollOpt = Annotated[
    float,
    typer.Option(
        "--poll-interval",
        min=0.05,
        help="Seconds between looks at a provider batch (default 30).",
    ),
]


class _Reporter:
    """Progress lines on stderr: when the batch's status or counts change, and at least every
    `quiet_s` seconds while it runs."""

    def __init__(self, err: Console, quiet_s: float = 60.0) -> None:
        self.err, self.quiet_s = err, quiet_s
        self.last: tuple[Any, ...] | None = None
        self.printed_at = 0.0

    def progress(self, p: Any) -> None:
        key = (p.batch_id, p.status, p.completed, p.failed, p.total)
        now = time.monotonic()
        if key == self.last and now - self.printed_at < self.quiet_s:
            return
        self.last, self.printed_at = key, now
        total = f"/{p.total}" if p.total else ""
        self.err.print(
            f"batch {p.batch_id} (run {p.run_id[:12]}): {p.status}, {p.completed}{total} done, "
            f"{p.failed} failed, {_elapsed(p.elapsed_s)} elapsed",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )

    def note(self, text: str) -> None:
        self.err.print(text, highlight=False, markup=False, soft_wrap=True)


def _elapsed(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def submit_pending(
    *,
    files: Any,
    paths: list[Path],
    config: Any,
    rubric: Any,
    store: Any,
    runs: Any,
    samples: int,
    poll_s: float,
    err: Console,
) -> list[Any]:
    """Resume this judge's provider batches in flight and submit what the store lacks; every
    result is stored before this returns. One line per batch that ended, on stderr."""
    from ..judge.batch_submit import BatchSubmitter
    from ..judge.llm_setup import get_litellm
    from ..scoring.inputs import iter_transcripts

    reporter = _Reporter(err)
    submitter = BatchSubmitter(
        litellm=get_litellm(),
        config=config,
        rubric=rubric,
        store=store,
        runs=runs,
        poll_s=poll_s,
        on_progress=reporter.progress,
        on_note=reporter.note,
    )
    results = asyncio.run(
        submitter.run(
            lambda: iter_transcripts(files),
            samples=samples,
            paths=[str(p.resolve()) for p in paths],
        )
    )
    for r in results:
        c = r.counts
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(c.outcomes.items()))
        err.print(
            f"provider batch {r.batch_id} (run {r.run_id[:12]}"
            + (", resumed" if r.resumed else "")
            + f"): {r.status}; {r.requests} request(s): {kinds or 'nothing new'}"
            + (f"; {c.already_stored} already stored" if c.already_stored else "")
            + (f"; {c.failed} failure(s) a rerun submits again" if c.failed else ""),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    if not results:
        err.print("nothing to submit: the store has an answer for every request", highlight=False)
    return results
