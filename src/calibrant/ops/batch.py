"""Provider batch submission, written once: a judge's requests the store has no answer for go
to the provider's batch API, the batch is followed until it ends and its results are stored.
`calibrant batch submit`, `calibrant score --submit` (through `ops.score`) and so the
service's score job call `submit_batches`; how progress and notes are shown comes in as hooks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..contracts import JudgeConfig, Rubric
    from ..paths import FileList
    from ..store import Store

__all__ = ["BatchHooks", "BatchOptions", "batch_line", "submit_batches"]


@dataclass(frozen=True)
class BatchOptions:
    """The transcripts at `paths` (as given), `samples` judgments each, by the judge `config`
    on `rubric`; the provider batch is looked at every `poll_s` seconds."""

    paths: tuple[str, ...]
    config: JudgeConfig
    rubric: Rubric
    samples: int = 1
    poll_s: float = 30.0


@dataclass(frozen=True)
class BatchHooks:
    """`on_progress(p)`: a batch's status while it runs (batch id, run id, status, counts,
    elapsed); `on_note(text)`: one line to show (a batch resumed or ended, nothing to send)."""

    on_progress: Callable[[Any], None] | None = None
    on_note: Callable[[str], None] | None = None

    def note(self, text: str) -> None:
        if self.on_note is not None:
            self.on_note(text)


def batch_line(r: Any) -> str:
    """One provider batch that ended, in one line."""
    c = r.counts
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(c.outcomes.items()))
    return (
        f"provider batch {r.batch_id} (run {r.run_id[:12]}"
        + (", resumed" if r.resumed else "")
        + f"): {r.status}; {r.requests} request(s): {kinds or 'nothing new'}"
        + (f"; {c.already_stored} already stored" if c.already_stored else "")
        + (f"; {c.failed} failure(s) a rerun submits again" if c.failed else "")
    )


def submit_batches(
    store: Store, options: BatchOptions, files: FileList, hooks: BatchHooks | None = None
) -> list[Any]:
    """Resume this judge's provider batches in flight and submit what the store lacks; every
    result is stored before this returns. One note per batch that ended."""
    import asyncio

    from ..judge.batch_submit import BatchSubmitter
    from ..judge.llm_setup import get_litellm
    from ..scoring.inputs import iter_transcripts
    from ..store.runs import Runs

    hooks = hooks or BatchHooks()
    submitter = BatchSubmitter(
        litellm=get_litellm(),
        config=options.config,
        rubric=options.rubric,
        store=store,
        runs=Runs(store.engine),
        poll_s=options.poll_s,
        on_progress=hooks.on_progress or (lambda p: None),
        on_note=hooks.note,
    )
    results = asyncio.run(
        submitter.run(
            lambda: iter_transcripts(files),
            samples=options.samples,
            paths=[str(Path(p).resolve()) for p in options.paths],
        )
    )
    for r in results:
        hooks.note(batch_line(r))
    if not results:
        hooks.note("nothing to submit: the store has an answer for every request")
    return results
