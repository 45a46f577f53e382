"""Claims (leases) on the store, the upsert under a race, and the schema 1 -> 2 upgrade, on a
real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import (
    Column,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    create_engine,
    inspect,
    text,
)

from calibrant.contracts import CriterionJudgment, JudgeConfig, Judgment, content_hash
from calibrant.errors import ConfigError
from calibrant.store import STORE_SCHEMA_VERSION, Store, make_engine, upgrade_store
from calibrant.store.migrate import HEAD
from calibrant.store.runs import Runs
from tests.support.clock import FakeClock
from tests.support.pg import BACKENDS, PG

CFG = JudgeConfig(model="openai/m", prompt_template_version="v", rubric_hash="sha256:r")


def judgment(
    th: str = "sha256:t1",
    outcome: str = "verdict",
    cfg: JudgeConfig = CFG,
    judge_hash: str | None = None,
) -> Judgment:
    return Judgment(
        transcript_id="t1",
        transcript_hash=th,
        judge_hash=judge_hash or cfg.hash,
        judge=cfg,
        sample_index=0,
        outcome=outcome,  # type: ignore[arg-type]
        criteria=[CriterionJudgment(criterion="c", label=3)] if outcome == "verdict" else [],
        attempts=1,
        latency_ms=1.0,
        created_at=datetime.now(UTC),
    )


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'c.db'}"
        return
    schema = f"calibrant_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"{PG}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def test_one_owner_at_a_time_and_an_answer_ends_the_claim(url: str) -> None:
    store = Store(make_engine(url))
    me, other = f"{socket.gethostname()}:{os.getpid()}:a", "elsewhere:1:b"
    assert store.claim("sha256:t1", CFG.hash, 0, other, 60) is True
    assert store.claim("sha256:t1", CFG.hash, 0, me, 60) is False  # held by a live owner
    store.finish(judgment(), other)
    assert store.claims() == []
    got = store.claim("sha256:t1", CFG.hash, 0, me, 60)
    assert isinstance(got, Judgment) and got.outcome == "verdict"  # answered: nothing to ask
    assert store.claims() == []


def test_an_expired_claim_is_taken_over(url: str) -> None:
    clock = FakeClock()
    store = Store(make_engine(url), clock=clock)
    assert store.claim("sha256:t1", CFG.hash, 0, "elsewhere:1:b", 0.2) is True
    clock.advance(0.19)
    assert store.claim("sha256:t1", CFG.hash, 0, "elsewhere:2:c", 60) is False
    clock.advance(0.02)
    assert store.claim("sha256:t1", CFG.hash, 0, "elsewhere:2:c", 60) is True
    assert [c[3] for c in store.claims()] == ["elsewhere:2:c"]


def test_a_renewed_claim_does_not_expire(url: str) -> None:
    clock = FakeClock()
    store = Store(make_engine(url), clock=clock)
    assert store.claim("sha256:t1", CFG.hash, 0, "elsewhere:1:b", 0.5) is True
    clock.advance(0.3)
    store.renew("elsewhere:1:b", 0.5)
    clock.advance(0.3)  # 0.6 s after the claim, 0.3 s after its renewal
    assert store.claim("sha256:t1", CFG.hash, 0, "elsewhere:2:c", 60) is False
    clock.advance(0.21)  # the renewal ran out too
    assert store.claim("sha256:t1", CFG.hash, 0, "elsewhere:2:c", 60) is True


def test_a_claim_of_an_ended_process_of_this_host_is_taken_at_once(url: str) -> None:
    store = Store(make_engine(url))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    owner = f"{socket.gethostname()}:{dead.pid}:x"
    assert store.claim("sha256:t1", CFG.hash, 0, owner, 3600) is True
    assert store.claim("sha256:t1", CFG.hash, 0, f"{socket.gethostname()}:{os.getpid()}:y", 60)


def test_a_failure_never_replaces_an_answer_and_the_first_answer_stays(url: str) -> None:
    store = Store(make_engine(url))
    first = judgment()
    store.put(first)
    store.put(judgment(outcome="rate_limited"))
    store.put(judgment().model_copy(update={"latency_ms": 99.0}))
    assert store.get(first.transcript_hash, first.judge_hash, 0) == first
    assert store.count() == 1


def test_the_endpoint_url_is_not_part_of_the_judge_identity() -> None:
    a = CFG.model_copy(update={"api_base": "http://127.0.0.1:8000/v1"})
    b = CFG.model_copy(update={"api_base": "http://gpu-box:9000/v1"})
    assert a.hash == b.hash == CFG.hash
    assert CFG.model_copy(update={"temperature": 0.5}).hash != CFG.hash


def _schema_1(url: str) -> None:
    """The store exactly as calibrant with schema version 1 made it: two tables, no claims."""
    md = MetaData()
    Table(
        "calibrant_meta",
        md,
        Column("key", String, primary_key=True),
        Column("value", String, nullable=False),
    )
    Table(
        "calibrant_judgments",
        md,
        Column("id", Integer, primary_key=True),
        Column("transcript_hash", String, nullable=False, index=True),
        Column("judge_hash", String, nullable=False, index=True),
        Column("sample_index", Integer, nullable=False),
        Column("transcript_id", String, nullable=False),
        Column("outcome", String, nullable=False),
        Column("created_at", DateTime, nullable=False),
        Column("payload", String, nullable=False),
        UniqueConstraint(
            "transcript_hash", "judge_hash", "sample_index", name="uq_judgment_identity"
        ),
    )
    engine = create_engine(url)
    md.create_all(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO calibrant_meta VALUES ('schema_version', '1')"))
    engine.dispose()


def _opened_upgrading(url: str) -> Engine:
    """The store opened as a user would upgrade it: by opening it on SQLite; on PostgreSQL,
    refused (one line naming the command), then `calibrant db upgrade`'s upgrade_store."""
    if url.startswith("postgresql"):
        with pytest.raises(ConfigError, match="calibrant db upgrade"):
            make_engine(url)
        upgrade_store(url)
    return make_engine(url)


def test_a_schema_1_store_is_upgraded_in_place_without_losing_rows(url: str) -> None:
    _schema_1(url)
    at_url = CFG.model_copy(update={"api_base": "http://127.0.0.1:8000/v1"})
    old_hash = content_hash(at_url)  # schema 1 hashed the endpoint URL too
    rows = [
        judgment("sha256:a"),  # no endpoint: same key in both schemas
        judgment("sha256:b", cfg=at_url, judge_hash=old_hash),
        judgment("sha256:c", outcome="timeout", cfg=at_url, judge_hash=old_hash),
    ]
    engine = create_engine(url)
    with engine.begin() as conn:
        for j in rows:
            conn.execute(
                text(
                    "INSERT INTO calibrant_judgments (transcript_hash, judge_hash, sample_index,"
                    " transcript_id, outcome, created_at, payload) VALUES (:th, :jh, 0, 't1',"
                    " :o, :at, :p)"
                ),
                {
                    "th": j.transcript_hash,
                    "jh": j.judge_hash,
                    "o": j.outcome,
                    "at": datetime.now(UTC).replace(tzinfo=None),
                    "p": j.model_dump_json(),
                },
            )
    engine.dispose()
    store = Store(_opened_upgrading(url))
    with store.engine.connect() as conn:
        version = conn.execute(
            text("SELECT value FROM calibrant_meta WHERE key = 'schema_version'")
        ).scalar()
    assert version == str(STORE_SCHEMA_VERSION) == HEAD.lstrip("0")
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == HEAD
    assert store.count() == 3
    found = store.final_many(CFG.hash, ["sha256:a", "sha256:b", "sha256:c"])
    assert set(found) == {("sha256:a", 0), ("sha256:b", 0)}  # the answer made at a URL is found
    assert found[("sha256:b", 0)].judge_hash == CFG.hash
    assert store.get("sha256:c", CFG.hash, 0) is not None  # the failure row kept, re-keyed
    assert store.claim("sha256:c", CFG.hash, 0, "elsewhere:1:b", 60) is True  # claims work
    make_engine(url)  # opening it again changes nothing
    assert store.count() == 3
    runs = Runs(store.engine)  # schema 3: provenance rows work on the upgraded store
    run_id = runs.start("calibrate", judge=CFG)
    runs.finish(run_id, {"ok": True})
    assert runs.latest("calibrate", judge_hash=CFG.hash) is not None


def test_a_store_from_a_newer_calibrant_is_refused(url: str) -> None:
    Store(make_engine(url))
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    engine.dispose()
    with pytest.raises(ConfigError, match="newer calibrant"):
        make_engine(url)


def test_a_fresh_store_is_built_by_the_migrations_alone(url: str) -> None:
    store = Store(make_engine(url))
    with store.engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == HEAD
    assert {
        "calibrant_meta",
        "calibrant_judgments",
        "calibrant_claims",
        "calibrant_sources",
        "calibrant_runs",
        "calibrant_scores",
        "calibrant_users",
        "calibrant_items",
        "calibrant_labels",
        "calibrant_adjudications",
        "calibrant_rubrics",
        "calibrant_judges",
        "calibrant_jobs",
    } <= tables


def test_a_migration_that_fails_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    _schema_1(url)
    engine = create_engine(url)
    with engine.begin() as conn:  # something in the way of revision 0003
        conn.execute(text("CREATE TABLE calibrant_runs (x INTEGER)"))
    engine.dispose()
    with pytest.raises(ConfigError, match="cannot open the store"):
        make_engine(url)
    engine = create_engine(url)
    with engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        meta = conn.execute(text("SELECT value FROM calibrant_meta")).scalar()
    engine.dispose()
    assert "alembic_version" not in tables and "calibrant_claims" not in tables
    assert meta == "1"


def test_an_empty_alembic_version_table_falls_back_to_the_schema_version(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    _schema_1(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
    engine.dispose()
    store = Store(make_engine(url))
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == HEAD


def test_a_schema_3_store_gains_the_service_tables_and_keeps_its_runs(url: str) -> None:
    """A store written by the previous calibrant (revision 0003: runs and scores, no service
    tables) is upgraded to the head by opening it, and every run, score and judgment is still
    there."""
    from alembic import command
    from alembic.config import Config

    import calibrant.store.migrate as migrate_module

    engine = create_engine(url)
    with engine.begin() as conn:
        cfg = Config()
        cfg.set_main_option(
            "script_location", str(Path(migrate_module.__file__).parent / "migrations")
        )
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0003")
    engine.dispose()
    # the previous calibrant's rows, written through today's code on the old tables
    runs = Runs(create_engine(url))
    run_id = runs.start("calibrate", judge=CFG)
    runs.finish(run_id, {"gate": {"judge": "PASS"}})
    old = create_engine(url)
    with old.begin() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0003"
        assert "calibrant_users" not in set(inspect(conn).get_table_names())
    old.dispose()

    store = Store(_opened_upgrading(url))
    with store.engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == HEAD
        version = conn.execute(
            text("SELECT value FROM calibrant_meta WHERE key = 'schema_version'")
        ).scalar()
    assert version == str(STORE_SCHEMA_VERSION)
    assert {"calibrant_users", "calibrant_labels", "calibrant_jobs"} <= tables
    found = Runs(store.engine).latest("calibrate", judge_hash=CFG.hash)
    assert found is not None and found[0].id == run_id and found[1] == {"gate": {"judge": "PASS"}}
