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
from typing import Any

from sqlalchemy import Engine, desc
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from .. import __version__
from ..contracts import JudgeConfig
from ..contracts.reports.base import JsonTree
from .claims import Clock
from .liveness import HEARTBEAT, PROCESS_KEY, process_record, shown_status
from .run_info import RunDetail, RunInfo, _typed
from .run_tables import RUN_KINDS, RUN_TABLES, RunKind, RunRow, ScoreRow

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


def _who() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no user name in some containers
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


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
                    **({PROCESS_KEY: process_record(self.clock).model_dump()} if process else {}),
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

    def update_arguments(self, run_id: str, **changes: Any) -> dict[str, JsonTree]:
        """Record what a running run learned (e.g. the id a provider gave its batch) in its
        arguments, in one transaction; returns the arguments as stored (JSON, free-form: each
        command its own, as `RunDetail.arguments`)."""
        with Session(self.engine) as s:
            row = s.get(RunRow, run_id, with_for_update=self.engine.dialect.name == "postgresql")
            if row is None:
                raise KeyError(run_id)
            arguments: dict[str, JsonTree] = {**json.loads(row.arguments), **changes}
            row.arguments = json.dumps(arguments, sort_keys=True, default=str)
            s.add(row)
            s.commit()
            return arguments

    def running(self, kind: str, *, judge_hash: str | None = None) -> list[RunDetail]:
        """The runs of `kind` still marked running (oldest first), as `detail` gives them."""
        with Session(self.engine) as s:
            stmt = select(RunRow.id).where(RunRow.kind == kind, RunRow.status == "running")
            if judge_hash is not None:
                stmt = stmt.where(RunRow.judge_hash == judge_hash)
            ids = list(s.exec(stmt.order_by(col(RunRow.started_at))).all())
        return [d for d in (self.detail(i) for i in ids) if d is not None]

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
