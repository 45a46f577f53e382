"""Provenance: every calibration, scoring batch, comparison and stability run is a row in the same
store as the judgments — who ran it, when, with which calibrant, judge configuration, rubric,
prompt template, sampling and seed, with which options, and the report it produced. Scores of a
batch are rows too, one per transcript.

A calibration report stored here is what `score --calibration RUN_ID|latest` uses to correct
pass rates (`latest`: the latest finished calibration of the same judge version on the same
rubric) and what `judges list` shows."""

from __future__ import annotations

import getpass
import json
import socket
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal, cast, get_args

from pydantic import BaseModel, ConfigDict
from pydantic import Field as PydanticField
from sqlalchemy import Engine, desc
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Field, Session, SQLModel, col, select

from .. import __version__
from ..contracts import JudgeConfig
from ..contracts.reports import AnyReport, report_for_run
from ..contracts.reports.base import JsonScalar, JsonTree, JudgeFields
from .claims import Clock
from .liveness import HEARTBEAT, PROCESS_KEY, process_record, shown_status

__all__ = [
    "RunKind",
    "RunRow",
    "ScoreRow",
    "Runs",
    "RunInfo",
    "RunDetail",
    "RUN_TABLES",
    "RUN_KINDS",
]

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


def _status(r: RunRow, now: float) -> str:
    """The status to show (interrupted: running, but its process has ended)."""
    if r.status != "running":
        return r.status
    return shown_status(r.status, json.loads(r.arguments).get(PROCESS_KEY), now=now)


def _who() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no user name in some containers
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


class RunInfo(BaseModel):
    """A stored run, for listings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: str
    status: str
    who: str
    started_at: datetime
    finished_at: datetime | None
    judge_hash: str | None
    rubric_hash: str | None
    calibrant_version: str

    def as_json(self) -> dict[str, Any]:
        """For listings (`runs list --json`, GET /api/runs); times in UTC."""

        def iso(when: datetime | None) -> str | None:
            if when is None:
                return None
            return (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()

        return {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "who": self.who,
            "started_at": iso(self.started_at),
            "finished_at": iso(self.finished_at),
            "judge_hash": self.judge_hash,
            "rubric_hash": self.rubric_hash,
            "calibrant_version": self.calibrant_version,
        }

    @classmethod
    def of(cls, r: RunRow, now: float | None = None) -> RunInfo:
        """`now`: the time leases are read against (default: the wall clock)."""
        return cls(
            id=r.id,
            kind=r.kind,
            status=_status(r, time.time() if now is None else now),
            who=r.who,
            started_at=r.started_at,
            finished_at=r.finished_at,
            judge_hash=r.judge_hash,
            rubric_hash=r.rubric_hash,
            calibrant_version=r.calibrant_version,
        )


class RunProcess(BaseModel):
    """The process a run lives with: who (host:pid:random) and until when its lease holds."""

    model_config = ConfigDict(extra="forbid")
    owner: str
    lease_until: float = PydanticField(description="Unix seconds.")


class RunSampling(BaseModel):
    """How the judge sampled (recorded when the run started)."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, JsonScalar] = PydanticField(init=False)
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    samples: int | None = None


class RunDetail(BaseModel):
    """A stored run: its provenance and the report it produced (`runs show`, GET /api/runs/ID).
    The report is its kind's model (calibrant.contracts.reports), or the JSON as stored when
    the run has no report model (a provider batch, a failed run's error) or the stored report
    is one this calibrant cannot read as one."""

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: str
    status: str
    process: RunProcess | None  # who ran it (host:pid:random) and its lease, or None
    who: str
    started_at: str
    finished_at: str | None
    calibrant_version: str
    judge_hash: str | None
    judge: JudgeFields | None
    rubric_hash: str | None
    prompt_template_version: str | None
    sampling: RunSampling | None
    seed: int | None
    arguments: dict[str, JsonTree] = PydanticField(
        description="The command's options as it recorded them (free-form: each command its own)."
    )
    report: AnyReport | dict[str, JsonTree] | None
    error: str | None  # why it failed, if known

    def as_json(self) -> dict[str, Any]:
        """As stored: the report's fields as it recorded them (none added by its model)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class Runs:
    """Reading and writing runs and scores."""

    def __init__(self, engine: Engine, *, clock: Clock = time.time) -> None:
        self.engine = engine
        self.clock = clock  # process leases' time (tests move their own)

    def start(
        self,
        kind: str,
        *,
        judge: JudgeConfig | None = None,
        seed: int | None = None,
        samples: int | None = None,
        arguments: dict[str, Any] | None = None,
        process: bool = True,
    ) -> str:
        """Record a run as started; returns its id. `process`: the run lives and dies with this
        process (recorded with it, its lease renewed while it lives, so a run whose process
        died is shown as interrupted); False for a run other processes carry on (a provider
        batch, a queued scoring run)."""
        if kind not in RUN_KINDS:
            raise ValueError(f"unknown run kind {kind!r} (one of {', '.join(RUN_KINDS)})")
        run_id = uuid.uuid4().hex
        sampling = None
        if judge is not None:
            sampling = json.dumps(
                {
                    "temperature": judge.temperature,
                    "top_p": judge.top_p,
                    "seed": judge.seed,
                    "max_tokens": judge.max_tokens,
                    "samples": samples or 1,
                },
                sort_keys=True,
            )
        row = RunRow(
            id=run_id,
            kind=kind,
            status="running",
            who=_who(),
            started_at=datetime.now(UTC),
            calibrant_version=__version__,
            judge_hash=None if judge is None else judge.hash,
            judge=None if judge is None else judge.model_dump_json(),
            rubric_hash=None if judge is None else judge.rubric_hash,
            prompt_template_version=None if judge is None else judge.prompt_template_version,
            sampling=sampling,
            seed=seed,
            arguments=json.dumps(
                {
                    **(arguments or {}),
                    **({PROCESS_KEY: process_record(self.clock)} if process else {}),
                },
                sort_keys=True,
                default=str,
            ),
        )
        with Session(self.engine) as s:
            s.add(row)
            s.commit()
        if process:
            HEARTBEAT.add(run_id, self.engine, self.clock)
        return run_id

    def finish(
        self, run_id: str, summary: dict[str, Any] | None, *, status: str = "finished"
    ) -> None:
        HEARTBEAT.remove(run_id)
        with Session(self.engine) as s:
            row = s.get(RunRow, run_id)
            if row is None:
                raise KeyError(run_id)
            row.status = status
            row.finished_at = datetime.now(UTC)
            row.summary = None if summary is None else json.dumps(summary, sort_keys=True)
            s.add(row)
            s.commit()

    @staticmethod
    def record(
        session: Session,
        kind: str,
        summary: dict[str, Any],
        *,
        seed: int | None = None,
        arguments: dict[str, Any] | None = None,
    ) -> str:
        """A finished run of `kind` with its report, added to `session` (the caller's
        transaction: it is stored with the writes it records, or not at all); its id. For a
        run made in one step, with no process to outlive (an audit draw)."""
        if kind not in RUN_KINDS:
            raise ValueError(f"unknown run kind {kind!r} (one of {', '.join(RUN_KINDS)})")
        run_id = uuid.uuid4().hex
        now = datetime.now(UTC)
        session.add(
            RunRow(
                id=run_id,
                kind=kind,
                status="finished",
                who=_who(),
                started_at=now,
                finished_at=now,
                calibrant_version=__version__,
                seed=seed,
                arguments=json.dumps(arguments or {}, sort_keys=True, default=str),
                summary=json.dumps(summary, sort_keys=True),
            )
        )
        return run_id

    def update_arguments(self, run_id: str, **changes: Any) -> dict[str, Any]:
        """Record what a running run learned (e.g. the id a provider gave its batch) in its
        arguments, in one transaction; returns the arguments as stored."""
        with Session(self.engine) as s:
            row = s.get(RunRow, run_id, with_for_update=self.engine.dialect.name == "postgresql")
            if row is None:
                raise KeyError(run_id)
            arguments = {**json.loads(row.arguments), **changes}
            row.arguments = json.dumps(arguments, sort_keys=True, default=str)
            s.add(row)
            s.commit()
            return arguments

    def running(self, kind: str, *, judge_hash: str | None = None) -> list[dict[str, Any]]:
        """The runs of `kind` still marked running (oldest first), as `get` gives them."""
        with Session(self.engine) as s:
            stmt = select(RunRow.id).where(RunRow.kind == kind, RunRow.status == "running")
            if judge_hash is not None:
                stmt = stmt.where(RunRow.judge_hash == judge_hash)
            ids = list(s.exec(stmt.order_by(col(RunRow.started_at))).all())
        return [d for d in (self.get(i) for i in ids) if d is not None]

    def add_scores(self, run_id: str, rows: Sequence[dict[str, Any]], start: int) -> None:
        """Store one round of score rows (the `score` command's output rows), in one statement
        (an upsert by run and position: storing a round again replaces it)."""
        if not rows:
            return
        values = [
            {
                "run_id": run_id,
                "position": n,
                "source": row["source"],
                "transcript_id": row["transcript_id"],
                "transcript_hash": row["transcript_hash"],
                "safety": row["safety"]["status"],
                "violated": json.dumps(row["safety"]["violated"]),
                "judge_outcome": row["communication"]["outcome"],
                "labels": json.dumps(
                    {c: v["label"] for c, v in row["communication"]["criteria"].items()},
                    sort_keys=True,
                ),
            }
            for n, row in enumerate(rows, start=start)
        ]
        table = ScoreRow.__table__  # type: ignore[attr-defined]
        insert = pg_insert if self.engine.dialect.name == "postgresql" else sqlite_insert
        stmt = insert(table)
        stmt = stmt.on_conflict_do_update(
            index_elements=["run_id", "position"],
            set_={k: stmt.excluded[k] for k in values[0] if k not in ("run_id", "position")},
        )
        with self.engine.begin() as conn:
            conn.execute(stmt, values)

    def latest(
        self, kind: str, *, judge_hash: str | None = None, rubric_hash: str | None = None
    ) -> tuple[RunInfo, dict[str, Any]] | None:
        """The latest finished run of `kind` (for a judge version and rubric), with its report."""
        with Session(self.engine) as s:
            stmt = select(RunRow).where(RunRow.kind == kind, RunRow.status == "finished")
            if judge_hash is not None:
                stmt = stmt.where(RunRow.judge_hash == judge_hash)
            if rubric_hash is not None:
                stmt = stmt.where(RunRow.rubric_hash == rubric_hash)
            row = s.exec(stmt.order_by(desc(col(RunRow.finished_at))).limit(1)).first()
            if row is None or row.summary is None:
                return None
            return RunInfo.of(row, self.clock()), json.loads(row.summary)

    def recent(self, *, kind: str | None = None, limit: int = 50) -> list[RunInfo]:
        with Session(self.engine) as s:
            stmt = select(RunRow)
            if kind is not None:
                stmt = stmt.where(RunRow.kind == kind)
            rows = s.exec(stmt.order_by(desc(col(RunRow.started_at))).limit(limit)).all()
            return [RunInfo.of(r, self.clock()) for r in rows]

    def scores(self, run_id: str) -> list[ScoreRow]:
        with Session(self.engine) as s:
            stmt = select(ScoreRow).where(ScoreRow.run_id == run_id)
            return list(s.exec(stmt.order_by(col(ScoreRow.position))).all())

    def get(self, prefix: str) -> dict[str, Any] | None:
        """A run (by id or an unambiguous prefix of it), provenance and report, as JSON data."""
        found = self.detail(prefix)
        return None if found is None else found.as_json()

    def detail(self, prefix: str) -> RunDetail | None:
        """A run (by id or an unambiguous prefix of it), provenance and report."""
        if not prefix:
            return None
        with Session(self.engine) as s:
            # a prefix is text: `%` and `_` are not SQL wildcards here
            match = col(RunRow.id).startswith(prefix, autoescape=True)
            rows = s.exec(select(RunRow).where(match).limit(2)).all()
            if len(rows) != 1:
                return None
            r = rows[0]
            report = json.loads(r.summary) if r.summary else None
            error = report.get("error") if isinstance(report, dict) else None
            arguments = json.loads(r.arguments)
            process = arguments.pop(PROCESS_KEY, None)
            return RunDetail(
                **{
                    "id": r.id,
                    "kind": r.kind,
                    "status": shown_status(r.status, process, now=self.clock()),
                    "process": process,  # who ran it (host:pid:random) and its lease, or None
                    "who": r.who,
                    "started_at": r.started_at.isoformat(),
                    "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                    "calibrant_version": r.calibrant_version,
                    "judge_hash": r.judge_hash,
                    "judge": json.loads(r.judge) if r.judge else None,
                    "rubric_hash": r.rubric_hash,
                    "prompt_template_version": r.prompt_template_version,
                    "sampling": json.loads(r.sampling) if r.sampling else None,
                    "seed": r.seed,
                    "arguments": arguments,
                    "report": _typed(r.kind, report),
                    "error": error if r.status == "failed" else None,
                }
            )


def _typed(kind: str, report: Any) -> AnyReport | dict[str, JsonTree] | None:
    """A stored report as its model; as stored when it has none or cannot be read as one."""
    if not isinstance(report, dict):
        return None
    try:
        typed = report_for_run(kind, report)
    except ValueError:  # pydantic's ValidationError, a report from a newer calibrant
        return report
    return report if typed is None else cast(AnyReport, typed)
