"""The tables of runs and their scores: every kind of run calibrant records, one row a run (its
provenance, options and report, as JSON), one row a scored transcript of a batch."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from sqlmodel import Field, SQLModel

# Every kind of run calibrant records (`runs list --kind`, `GET /api/runs?kind=`): "judge" is a
# service job; "batch" a provider batch (`batch submit`, `score --submit`); "check" and "trials"
# the safety checker's and the harness's runs; "audit" an audit sample drawn from a score run;
# "anchors" the drift monitor's anchor items re-scored by the judge for one window.
RunKind = Literal[
    "calibrate",
    "judge",
    "score",
    "batch",
    "compare",
    "compare-trials",
    "stability",
    "probe",
    "check",
    "trials",
    "audit",
    "anchors",
]
RUN_KINDS: tuple[str, ...] = get_args(RunKind)


class RunRow(SQLModel, table=True):
    __tablename__ = "calibrant_runs"

    id: str = Field(primary_key=True)
    kind: str = Field(index=True)  # one of RUN_KINDS
    status: str  # running, finished, failed (shown as interrupted: see liveness)
    who: str
    started_at: datetime
    finished_at: datetime | None = None
    calibrant_version: str
    judge_hash: str | None = Field(default=None, index=True)
    judge: str | None = None  # the JudgeConfig, as JSON (no credentials: they are never stored)
    rubric_hash: str | None = None
    prompt_template_version: str | None = None
    sampling: str | None = None  # JSON: temperature, top_p, seed, max_tokens, samples
    seed: int | None = None
    arguments: str = "{}"  # the command's options, as JSON
    summary: str | None = None  # the report the run produced, as JSON


class ScoreRow(SQLModel, table=True):
    __tablename__ = "calibrant_scores"

    run_id: str = Field(primary_key=True)
    position: int = Field(primary_key=True)  # order in the batch
    source: str
    transcript_id: str
    transcript_hash: str = Field(index=True)
    safety: str  # pass, violated, harness_error
    violated: str  # JSON list of invariants
    judge_outcome: str
    labels: str  # JSON: criterion -> label


RUN_TABLES = [RunRow.__table__, ScoreRow.__table__]  # type: ignore[attr-defined]
