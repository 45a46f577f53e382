"""Following a provider batch on the terminal (the operation is `calibrant.ops.batch`): what
`calibrant batch submit` and `calibrant score --submit` share (a module of its own, so no
command family imports another)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

if TYPE_CHECKING:
    from ..ops.batch import BatchHooks

__all__ = ["PollOpt", "batch_hooks"]

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


def batch_hooks(err: Console) -> BatchHooks:
    """How the command line follows a provider batch: progress and notes on stderr."""
    from ..ops.batch import BatchHooks

    reporter = _Reporter(err)
    return BatchHooks(on_progress=reporter.progress, on_note=reporter.note)
