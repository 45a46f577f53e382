"""Repeated trials of one agent over many cases: k clean trials per case, transcripts written
atomically, each checked by the safety checker."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..contracts import CaseContract, SafetyVerdict, Transcript
from ..files import write_atomic
from ..safety import check_transcript
from .agents import Agent, make_agent
from .runner import run_trial, transcript_filename

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
) -> list[TrialRun]:
    """Run `k` trials of `agent` on every case; write each transcript to `out`."""

    def factory(name: str) -> Agent:
        return make_agent(name, api_base=api_base)

    factory(agent)  # fail fast on a bad agent name, before any file is written
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="calibrant-trials-"))
    runs: list[TrialRun] = []
    try:
        for case in cases:
            for trial in range(1, k + 1):
                t = run_trial(
                    case, agent, trial=trial, seed=seed, workdir=scratch, agent_factory=factory
                )
                path = out / transcript_filename(t.transcript_id)
                write_atomic(path, t.model_dump_json(indent=1, exclude_none=False))
                run = TrialRun(t, path, check_transcript(t, source=str(path)))
                runs.append(run)
                if on_trial is not None:
                    on_trial(run)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return runs
