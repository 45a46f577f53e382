"""Upgrading a store in place with Alembic (run by `make_engine` under its creation lock).

Revisions live in `migrations/versions`: 0001 is the store as the first calibrant wrote it,
0002 adds claims and sources and re-keys judgments made at an explicit endpoint (the judge hash
no longer includes the endpoint URL), 0003 adds runs and scores (provenance), 0004 the
service's tables (users, items, labels, adjudications, rubrics, judges, jobs), 0005 the
workbench's sessions and the items' opaque aliases, 0006 who has read the judge's verdict on
an item. A store written
before Alembic was used (it has `calibrant_meta.schema_version` but no `alembic_version`) is
stamped at its schema's revision, then upgraded. `calibrant_meta.schema_version` is kept up to
date, so an older calibrant refuses a newer store instead of misreading it."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, inspect, select, text, update

from ..contracts import Judgment
from ..errors import ConfigError
from .tables import JudgmentRow, StoreMeta

__all__ = ["STORE_SCHEMA_VERSION", "HEAD", "is_current", "migrate", "rekey_without_endpoint"]

STORE_SCHEMA_VERSION = 6
HEAD = "0006"
_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006")  # revision n is schema version n

_meta = StoreMeta.__table__  # type: ignore[attr-defined]
_rows = JudgmentRow.__table__  # type: ignore[attr-defined]


def _newer(what: str) -> ConfigError:
    return ConfigError(
        f"the store was written by a newer calibrant ({what}); "
        "upgrade calibrant or use another CALIBRANT_DATABASE_URL"
    )


def current_revision(conn: Connection) -> str | None:
    """The store's revision: Alembic's, or the one a pre-Alembic store's schema version means
    (None for an empty database)."""
    tables = set(inspect(conn).get_table_names())
    version = None
    if "calibrant_meta" in tables:
        found = conn.execute(select(_meta.c.value).where(_meta.c.key == "schema_version")).scalar()
        version = int(found) if found is not None else 1
        if version > STORE_SCHEMA_VERSION:
            raise _newer(f"schema {version}")
    if "alembic_version" in tables:
        rev = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        if rev is not None and rev not in _REVISIONS:
            raise _newer(f"revision {rev}")
        if rev is not None:
            return str(rev)
    return None if version is None else _REVISIONS[version - 1]


def is_current(conn: Connection) -> bool:
    """True when the store needs no migration (read-only check, no lock)."""
    tables = set(inspect(conn).get_table_names())
    return "alembic_version" in tables and current_revision(conn) == HEAD


def migrate(conn: Connection) -> None:
    """Bring the store on `conn` to HEAD (a fresh database gets every revision)."""
    if is_current(conn):
        return  # the usual case: Alembic (tens of MB once imported) is not even loaded
    tables = set(inspect(conn).get_table_names())
    rev = current_revision(conn)
    stamped = (
        "alembic_version" in tables
        and conn.execute(text("SELECT version_num FROM alembic_version")).scalar() is not None
    )
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    cfg.attributes["connection"] = conn
    if rev is not None and not stamped:
        command.stamp(cfg, rev)  # a store made before Alembic: its schema is that revision
    command.upgrade(cfg, "head")


def rekey_without_endpoint(conn: Connection) -> None:
    """Schema 1 -> 2 data step: cached judgments made at an explicit endpoint move to the judge
    hash without the endpoint URL; a row whose new key is taken keeps its old one (none is
    deleted)."""
    rows = conn.execute(
        select(_rows.c.id, _rows.c.transcript_hash, _rows.c.sample_index, _rows.c.payload).where(
            _rows.c.payload.not_like('%"api_base":null%')
        )
    ).all()
    for row_id, transcript_hash, sample_index, payload in rows:
        j = Judgment.model_validate_json(payload)
        new = j.judge.hash
        if new == j.judge_hash:
            continue
        taken = conn.execute(
            select(_rows.c.id).where(
                _rows.c.transcript_hash == transcript_hash,
                _rows.c.judge_hash == new,
                _rows.c.sample_index == sample_index,
            )
        ).first()
        if taken is not None:
            continue
        conn.execute(
            update(_rows)
            .where(_rows.c.id == row_id)
            .values(
                judge_hash=new, payload=j.model_copy(update={"judge_hash": new}).model_dump_json()
            )
        )
