"""Writers of one workbench queue take turns: an audit checks that its queue is new and fills
it in one transaction, so two audits drawn into the same queue at once cannot both fill it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, text

__all__ = ["queue_transaction"]


def _key(queue: str) -> int:
    """The queue's PostgreSQL advisory lock key (a signed 64-bit integer)."""
    digest = hashlib.sha256(f"calibrant-queue:{queue}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@contextmanager
def queue_transaction(engine: Engine, queue: str) -> Iterator[Connection]:
    """One transaction, committed at the end (rolled back on an error), in which no other
    writer of `queue` runs: on PostgreSQL an advisory lock keyed by the queue's name, held
    until the transaction ends; on SQLite the database's write lock, taken at its start (what
    is read in it cannot change before it commits)."""
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _key(queue)})
            yield conn
        return
    with engine.connect() as conn:
        conn.exec_driver_sql("BEGIN IMMEDIATE")  # pysqlite would begin only at the first write
        try:
            yield conn
        except BaseException:
            conn.rollback()
            raise
        conn.commit()
