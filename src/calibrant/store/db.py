"""The local store: SQLModel tables, an engine factory (SQLite by default, PostgreSQL by URL),
and a minimal migration step keyed by the store's schema version."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, Table, event, func, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError
from sqlmodel import Session, col, create_engine, select

from ..contracts import FINAL_OUTCOMES, Judgment
from ..errors import ConfigError
from ..settings import get_settings
from .claims import ClaimsMixin, Clock, new_owner, owner_ended
from .migrate import HEAD, STORE_SCHEMA_VERSION, current_revision, is_current, migrate
from .tables import JudgmentRow, SourceRow

_judgments: Table = JudgmentRow.__table__  # type: ignore[attr-defined]
_sources: Table = SourceRow.__table__  # type: ignore[attr-defined]
_IDENTITY = ("transcript_hash", "judge_hash", "sample_index")
_FINAL = sorted(FINAL_OUTCOMES)

__all__ = [
    "STORE_SCHEMA_VERSION",
    "database_url",
    "make_engine",
    "redact_url",
    "upgrade_store",
    "new_owner",
    "owner_ended",
    "Store",
    "JudgmentRow",
]

SQLITE_BUSY_TIMEOUT_S = 60.0
_PG_LOCK_KEY = 0x63616C69  # "cali": serializes table creation and migration across processes


def database_url() -> str:
    """CALIBRANT_DATABASE_URL, or a SQLite file `calibrant.db` in the working directory."""
    return get_settings().database_url or f"sqlite:///{Path.cwd() / 'calibrant.db'}"


def redact_url(url: str) -> str:
    """`url` without its user and password, for messages."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


def make_engine(url: str | None = None, *, upgrade: bool = False, **kwargs: Any) -> Engine:
    """An engine on the store, its tables created (an empty database) or, on SQLite, migrated.
    A PostgreSQL store, usually shared by a team, is upgraded only when asked (`upgrade=True`:
    `calibrant db upgrade`); at an older revision it is refused in one line saying so, and one
    written by a newer calibrant is refused on both. Several processes may open the same store
    at once: creation and migration are serialized (an advisory lock on PostgreSQL, a retry on
    SQLite, whose CREATE TABLE races are harmless to repeat)."""
    url = url or database_url()
    try:
        engine = _engine(url, **kwargs)
        _create_and_migrate(engine, url, upgrade=upgrade)
    except (SQLAlchemyError, ImportError) as exc:
        raise ConfigError(
            f"cannot open the store at {redact_url(url)}: {str(exc).splitlines()[0]}"
        ) from None
    return engine


def upgrade_store(url: str | None = None) -> tuple[str | None, str]:
    """Bring the store to this calibrant's schema (`calibrant db upgrade`): (its revision
    before, None for an empty database; its revision now)."""
    url = url or database_url()
    try:
        probe = _engine(url)
        with probe.connect() as conn:
            before = current_revision(conn)
        probe.dispose()
    except (SQLAlchemyError, ImportError) as exc:
        raise ConfigError(
            f"cannot open the store at {redact_url(url)}: {str(exc).splitlines()[0]}"
        ) from None
    make_engine(url, upgrade=True).dispose()
    return before, HEAD


def _engine(url: str, **kwargs: Any) -> Engine:
    if url.startswith("sqlite"):
        # a writer waits for another process's transaction instead of failing at once
        connect_args = {"timeout": SQLITE_BUSY_TIMEOUT_S, **kwargs.pop("connect_args", {})}
        kwargs["connect_args"] = connect_args
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _older(url: str, revision: str) -> ConfigError:
    return ConfigError(
        f"the store at {redact_url(url)} is at schema revision {revision}, this calibrant needs "
        f"{HEAD}: run `calibrant db upgrade` once (it upgrades the store for everyone who "
        "shares it; older calibrants will then refuse it)"
    )


def _create_and_migrate(engine: Engine, url: str, *, upgrade: bool) -> None:
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
            revision = current_revision(conn)  # a newer store is refused here
            if not upgrade and revision not in (None, HEAD):
                raise _older(url, revision)
            migrate(conn)  # an empty database gets every revision; a current one, nothing
        return
    with engine.connect() as conn:
        if is_current(conn):  # the usual case: no lock, no write
            return
    for attempt in range(5):
        try:
            # pysqlite runs DDL outside any transaction unless one is begun explicitly: BEGIN
            # IMMEDIATE makes the whole migration one transaction (a failure leaves the store as
            # it was) and makes a second process wait for the first instead of racing it.
            with engine.connect() as conn:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
                try:
                    migrate(conn)
                except BaseException:
                    conn.rollback()
                    raise
                conn.commit()
            return
        except (OperationalError, IntegrityError):  # another process got there first
            if attempt == 4:
                raise
            time.sleep(0.05 * (attempt + 1))


def _sqlite_pragmas(dbapi_conn: Any, _: Any) -> None:
    """WAL: readers never block the writer and a commit does not wait for a full fsync (a commit
    survives the process being killed; only an OS crash may lose the last ones)."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


class Store(ClaimsMixin):
    """Judgments keyed by (transcript hash, judge hash, sample index), on one engine.

    A process opens its store once (`Store.open()`: the URL given, else the environment's) and
    closes it at the end; as a context manager it closes itself. Library code takes the store it
    is given and never opens one from the environment."""

    def __init__(self, engine: Engine, *, clock: Clock = time.time) -> None:
        self.engine = engine
        self.clock = clock  # leases' time (tests move their own)

    @classmethod
    def open(cls, url: str | None = None, **kwargs: Any) -> Store:
        """The store at `url` (default: the environment's), its tables ready."""
        return cls(make_engine(url, **kwargs))

    @property
    def url(self) -> str:
        """The store's URL, password included (for the queue's own connection)."""
        return self.engine.url.render_as_string(hide_password=False)

    def close(self) -> None:
        """Close every pooled connection of the engine."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

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
        """Insert, or replace an earlier row for the same identity (see put_many)."""
        self.put_many([j])

    def put_many(self, judgments: Sequence[Judgment]) -> None:
        """Insert or replace many judgments in one transaction, atomically per row (an upsert:
        several processes may write the same identity at once). A cached answer is never
        replaced by a failure, nor by a later answer: the first answer stays."""
        if not judgments:
            return
        with self.engine.begin() as conn:
            self._upsert(conn, judgments)

    def _upsert(self, conn: Connection, judgments: Sequence[Judgment]) -> None:
        now = datetime.now(UTC)
        unique = {(j.transcript_hash, j.judge_hash, j.sample_index): j for j in judgments}
        values = [
            {
                "transcript_hash": j.transcript_hash,
                "judge_hash": j.judge_hash,
                "sample_index": j.sample_index,
                "transcript_id": j.transcript_id,
                "outcome": j.outcome,
                "created_at": now,
                "payload": j.model_dump_json(),
            }
            for j in unique.values()
        ]
        stmt = self._insert(_judgments).values(values)
        stmt = stmt.on_conflict_do_update(
            index_elements=list(_IDENTITY),
            set_={
                "transcript_id": stmt.excluded.transcript_id,
                "outcome": stmt.excluded.outcome,
                "created_at": stmt.excluded.created_at,
                "payload": stmt.excluded.payload,
            },
            where=_judgments.c.outcome.not_in(_FINAL),
        )
        conn.execute(stmt)

    def _insert(self, table: Table) -> Any:
        if self.engine.dialect.name == "postgresql":
            return pg_insert(table)
        return sqlite_insert(table)

    # ------------------------------------------------------------------ sources (cheap keys)

    def sources(self, reader: str, file_digests: Iterable[str]) -> dict[str, tuple[str, str, str]]:
        """Files read before by the same reader: digest -> (transcript hash, id, safety JSON)."""
        wanted = list(dict.fromkeys(file_digests))
        out: dict[str, tuple[str, str, str]] = {}
        with self.engine.connect() as conn:
            for start in range(0, len(wanted), 500):
                rows = conn.execute(
                    select(
                        _sources.c.file_sha256,
                        _sources.c.transcript_hash,
                        _sources.c.transcript_id,
                        _sources.c.safety,
                    ).where(
                        _sources.c.reader == reader,
                        _sources.c.file_sha256.in_(wanted[start : start + 500]),
                    )
                )
                for digest, th, tid, safety in rows:
                    out[digest] = (th, tid, safety)
        return out

    def put_sources(self, reader: str, rows: Sequence[tuple[str, str, str, str]]) -> None:
        """Remember files read: (digest, transcript hash, transcript id, safety JSON)."""
        unique = {r[0]: r for r in rows}
        if not unique:
            return
        values = [
            {
                "file_sha256": d,
                "reader": reader,
                "transcript_hash": th,
                "transcript_id": tid,
                "safety": safety,
            }
            for d, th, tid, safety in unique.values()
        ]
        with self.engine.begin() as conn:
            for start in range(0, len(values), 500):
                stmt = self._insert(_sources).values(values[start : start + 500])
                conn.execute(stmt.on_conflict_do_nothing(index_elements=["file_sha256", "reader"]))

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
        with self.engine.connect() as conn:
            stmt = select(func.count()).select_from(_judgments)
            if judge_hash is not None:
                stmt = stmt.where(_judgments.c.judge_hash == judge_hash)
            return int(conn.execute(stmt).scalar() or 0)
