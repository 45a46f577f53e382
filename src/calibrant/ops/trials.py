"""`trials`, written once: k trials of an agent on each case from clean fixtures, the
transcripts written to a run folder (an interrupted run resumes), and the trial report; the run
is recorded (`runs list`) when a store is given. The command line keeps its options, progress
and rendering."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .common import Hooks, OpResult, record_finished

if TYPE_CHECKING:
    from ..contracts import CaseContract
    from ..contracts.reports import TrialRunReport  # noqa: F401 (the result's model)
    from ..harness import TrialRun
    from ..store import Store

__all__ = ["TrialsHooks", "TrialsOptions", "TrialsResult", "trials"]


@dataclass(frozen=True)
class TrialsOptions:
    """`k` trials of `agent` (scripted:..., llm:MODEL at `api_base`) on each of `cases` (read
    from `paths`, checked), seeded by `seed`, transcripts written to `out`; `restart`: what
    `out` holds from an earlier run is discarded first (else finished trials are kept)."""

    cases: tuple[CaseContract, ...]
    agent: str
    out: Path
    paths: tuple[Path, ...] = ()
    k: int = 5
    seed: int = 0
    api_base: str | None = None
    restart: bool = False


@dataclass(frozen=True)
class TrialsHooks(Hooks):
    """`on_trial(run)`: each trial run now; `on_resume(finished, total)`: how many trials an
    interrupted run had finished (kept, not rerun)."""

    on_trial: Callable[[TrialRun], None] | None = None
    on_resume: Callable[[int, int], None] | None = None


@dataclass(frozen=True)
class TrialsResult(OpResult["TrialRunReport"]):
    """The run ("" when not recorded), its report, and every trial in order."""

    KIND = "trial-run"

    runs: tuple[TrialRun, ...] = field(default_factory=tuple)


def trials(store: Store | None, options: TrialsOptions, hooks: Hooks | None = None) -> TrialsResult:
    """Run the trials and report; Ctrl-C leaves the finished trials in `out` (resumable)."""
    from ..harness import run_trials
    from ..reports.trials import trial_report

    hooks = hooks or Hooks()
    on = hooks if isinstance(hooks, TrialsHooks) else TrialsHooks()
    runs = run_trials(
        options.cases,
        options.agent,
        k=options.k,
        seed=options.seed,
        out=options.out,
        on_trial=on.on_trial,
        api_base=options.api_base,
        restart=options.restart,
        on_resume=on.on_resume,
    )
    report = trial_report([(r.transcript, r.verdict) for r in runs], seed=options.seed)
    run_id = ""
    if store is not None:
        arguments = {
            "paths": list(options.paths),
            "agent": options.agent,
            "k": options.k,
            "seed": options.seed,
            "out": options.out,
        }
        run_id = record_finished(store, "trials", report.json_data(), arguments=arguments)
        hooks.run(run_id)
    return TrialsResult(run_id=run_id, report=report, runs=tuple(runs))
