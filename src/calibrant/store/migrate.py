"""Upgrading a store in place, one schema version at a time (run under the creation lock).

1 -> 2: adds the claims table (created by `create_all` before this runs) and re-keys cached
judgments made at an explicit endpoint: the judge hash no longer includes the endpoint URL, so
an answer cached under the old hash is found again. A row whose new key is already taken by
another row keeps its old key (no row is deleted)."""

from __future__ import annotations

from sqlalchemy import Connection, select, update

from ..contracts import Judgment
from ..errors import ConfigError
from .tables import JudgmentRow, StoreMeta

__all__ = ["STORE_SCHEMA_VERSION", "migrate"]

STORE_SCHEMA_VERSION = 2

_meta = StoreMeta.__table__  # type: ignore[attr-defined]
_rows = JudgmentRow.__table__  # type: ignore[attr-defined]


def migrate(conn: Connection) -> None:
    """Bring the store on `conn` to STORE_SCHEMA_VERSION (a fresh store is simply stamped)."""
    found = conn.execute(select(_meta.c.value).where(_meta.c.key == "schema_version")).scalar()
    if found is None:
        conn.execute(_meta.insert().values(key="schema_version", value=str(STORE_SCHEMA_VERSION)))
        return
    version = int(found)
    if version > STORE_SCHEMA_VERSION:
        raise ConfigError(
            f"the store was written by a newer calibrant (schema {version}); "
            "upgrade calibrant or use another CALIBRANT_DATABASE_URL"
        )
    if version == STORE_SCHEMA_VERSION:
        return
    if version < 2:
        _rekey_without_endpoint(conn)
    conn.execute(
        update(_meta).where(_meta.c.key == "schema_version").values(value=str(STORE_SCHEMA_VERSION))
    )


def _rekey_without_endpoint(conn: Connection) -> None:
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
