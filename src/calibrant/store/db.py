"""The local store: SQLModel tables, an engine factory (SQLite by default, PostgreSQL by URL),
and a minimal migration step keyed by the store's schema version."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, UniqueConstraint, event
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, Session, SQLModel, col, create_engine, select

from ..contracts import FINAL_OUTCOMES, Judgment
from ..errors import ConfigError

__all__ = ["STORE_SCHEMA_VERSION", "database_url", "make_engine", "Store", "JudgmentRow"]

STORE_SCHEMA_VERSION = 1
ENV = "CALIBRANT_DATABASE_URL"


class StoreMeta(SQLModel, table=True):
    __tablename__ = "calibrant_meta"

    key: str = Field(primary_key=True)
    value: str


class JudgmentRow(SQLModel, table=True):
    __tablename__ = "calibrant_judgments"
    __table_args__ = (
        UniqueConstraint(
            "transcript_hash", "judge_hash", "sample_index", name="uq_judgment_identity"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    transcript_hash: str = Field(index=True)
    judge_hash: str = Field(index=True)
    sample_index: int
    transcript_id: str
    outcome: str
    created_at: datetime
    payload: str  # the Judgment, as JSON


TABLES = [StoreMeta.__table__, JudgmentRow.__table__]  # type: ignore[attr-defined]


def database_url() -> str:
    """CALIBRANT_DATABASE_URL, or a SQLite file `calibrant.db` in the working directory."""
    return os.environ.get(ENV) or f"sqlite:///{Path.cwd() / 'calibrant.db'}"


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


def make_engine(url: str | None = None, **kwargs: Any) -> Engine:
    """An engine with the store's tables created and migrated."""
    url = url or database_url()
    try:
        engine = create_engine(url, **kwargs)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
        from .runs import RUN_TABLES

        SQLModel.metadata.create_all(engine, tables=[*TABLES, *RUN_TABLES])
        _migrate(engine)
    except (SQLAlchemyError, ImportError) as exc:
        raise ConfigError(
            f"cannot open the store at {_redact(url)}: {str(exc).splitlines()[0]}"
        ) from None
    return engine


def _sqlite_pragmas(dbapi_conn: Any, _: Any) -> None:
    """WAL: readers never block the writer and a commit does not wait for a full fsync."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def _migrate(engine: Engine) -> None:
    with Session(engine) as s:
        row = s.get(StoreMeta, "schema_version")
        if row is None:
            s.add(StoreMeta(key="schema_version", value=str(STORE_SCHEMA_VERSION)))
            s.commit()
            return
        found = int(row.value)
        if found > STORE_SCHEMA_VERSION:
            raise ConfigError(
                f"the store was written by a newer calibrant (schema {found}); "
                "upgrade calibrant or use another CALIBRANT_DATABASE_URL"
            )
        # future migrations: apply steps found+1 .. STORE_SCHEMA_VERSION here


class Store:
    """Judgments keyed by (transcript hash, judge hash, sample index)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, transcript_hash: str, judge_hash: str, sample_index: int) -> Judgment | None:
        with Session(self.engine) as s:
            row = s.exec(
                select(JudgmentRow).where(
                    JudgmentRow.transcript_hash == transcript_hash,
                    JudgmentRow.judge_hash == judge_hash,
                    JudgmentRow.sample_index == sample_index,
                )
            ).first()
            return None if row is None else Judgment.model_validate_json(row.payload)

    def get_final(
        self, transcript_hash: str, judge_hash: str, sample_index: int
    ) -> Judgment | None:
        """A cached judgment where the model answered (verdict, unparseable, refusal)."""
        j = self.get(transcript_hash, judge_hash, sample_index)
        return j if j is not None and j.outcome in FINAL_OUTCOMES else None

    def put(self, j: Judgment) -> None:
        """Insert, or replace an earlier row for the same identity."""
        self.put_many([j])

    def put_many(self, judgments: Sequence[Judgment]) -> None:
        """Insert or replace many judgments in one transaction."""
        if not judgments:
            return
        with Session(self.engine) as s:
            for judge_hash in {j.judge_hash for j in judgments}:
                mine = [j for j in judgments if j.judge_hash == judge_hash]
                rows = s.exec(
                    select(JudgmentRow).where(
                        JudgmentRow.judge_hash == judge_hash,
                        col(JudgmentRow.transcript_hash).in_({j.transcript_hash for j in mine}),
                    )
                )
                existing = {(r.transcript_hash, r.sample_index): r for r in rows}
                for j in mine:
                    row = existing.get((j.transcript_hash, j.sample_index))
                    if row is None:
                        row = JudgmentRow(
                            transcript_hash=j.transcript_hash,
                            judge_hash=j.judge_hash,
                            sample_index=j.sample_index,
                            transcript_id=j.transcript_id,
                            outcome=j.outcome,
                            created_at=datetime.now(UTC),
                            payload=j.model_dump_json(),
                        )
                        existing[(j.transcript_hash, j.sample_index)] = row
                    else:
                        row.outcome, row.payload = j.outcome, j.model_dump_json()
                        row.created_at = datetime.now(UTC)
                    s.add(row)
            s.commit()

    def final_many(
        self, judge_hash: str, transcript_hashes: Iterable[str]
    ) -> dict[tuple[str, int], Judgment]:
        """Cached answers (verdict, unparseable, refusal) for many transcripts at once."""
        wanted = list(dict.fromkeys(transcript_hashes))
        out: dict[tuple[str, int], Judgment] = {}
        with Session(self.engine) as s:
            for start in range(0, len(wanted), 500):
                rows = s.exec(
                    select(JudgmentRow).where(
                        JudgmentRow.judge_hash == judge_hash,
                        col(JudgmentRow.transcript_hash).in_(wanted[start : start + 500]),
                        col(JudgmentRow.outcome).in_(sorted(FINAL_OUTCOMES)),
                    )
                )
                for r in rows:
                    key = (r.transcript_hash, r.sample_index)
                    out[key] = Judgment.model_validate_json(r.payload)
        return out

    def count(self, judge_hash: str | None = None) -> int:
        with Session(self.engine) as s:
            stmt = select(JudgmentRow)
            if judge_hash is not None:
                stmt = stmt.where(JudgmentRow.judge_hash == judge_hash)
            return len(s.exec(stmt).all())
