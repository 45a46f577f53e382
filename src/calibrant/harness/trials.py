"""Repeated trials of one agent over many cases: k clean trials per case, transcripts written
atomically, each checked by the safety checker; an interrupted run resumes where it stopped
(see `runfolder`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..contracts import CaseContract, SafetyVerdict, Transcript
from ..domains import AgentCall, PackAgent, default_domain
from ..domains import runtime as domain_runtime
from ..files import write_atomic
from ..safety import check_transcript
from .runfolder import RunPlan, open_run_folder

__all__ = ["TrialRun", "run_trials"]


@dataclass(frozen=True)
class TrialRun:
    """One finished trial: its transcript, where it was written, and its safety verdict."""

    transcript: Transcript
    path: Path
    verdict: SafetyVerdict


def run_trials(
    cases: Sequence[CaseContract],
    agent: str,
    *,
    k: int,
    seed: int,
    out: Path,
    on_trial: Callable[[TrialRun], None] | None = None,
    api_base: str | None = None,
    restart: bool = False,
    on_resume: Callable[[int, int], None] | None = None,
    agent_factory: AgentCall | None = None,
) -> list[TrialRun]:
    """Run `k` trials of `agent` on every case; write each transcript to `out`.

    Returns every trial of the run in order (case, then trial), the ones a previous,
    interrupted run of the same command had finished included: those are read back, not rerun
    (`on_resume(finished, total)` is told how many). `on_trial` is called for each trial run now.
    `restart` discards what `out` holds from an earlier run first. `agent_factory` builds the
    agent instead of the domain's `make_agent` (an agent in another process, see
    `calibrant.sandbox`).

    The cases are of one domain (the callers refuse a mix); its pack's runtime runs each trial
    (`calibrant.domains.PackRuntime`)."""
    runtime = domain_runtime(cases[0].domain if cases else default_domain())

    def factory(name: str) -> PackAgent:
        if agent_factory is not None:
            return agent_factory(name)
        return runtime.make_agent(name, api_base=api_base)

    factory(agent)  # fail fast on a bad agent name, before any file is written
    plan = RunPlan.make(cases, agent, k=k, seed=seed, api_base=api_base)
    runs: list[TrialRun] = []
    with open_run_folder(out, plan) as folder:
        done = folder.prepare(restart=restart)
        if done and on_resume is not None:
            on_resume(len(done), len(cases) * k)
        for case in cases:
            for trial in range(1, k + 1):
                path = folder.path(plan.transcript_id(case.case, trial))
                t = done.get(path.name)
                if t is None:
                    t = runtime.run_trial(
                        case,
                        agent,
                        trial=trial,
                        seed=seed,
                        workdir=folder.scratch,
                        agent_factory=factory,
                    )
                    write_atomic(path, t.model_dump_json(indent=1, exclude_none=False))
                run = TrialRun(t, path, check_transcript(t, source=str(path)))
                runs.append(run)
                if on_trial is not None and path.name not in done:
                    on_trial(run)
        folder.finish()
    return runs
