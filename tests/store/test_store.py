"""The judgment store on a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from calibrant.contracts import CriterionJudgment, JudgeConfig, Judgment
from calibrant.errors import ConfigError
from calibrant.store import Store, make_engine
from tests.support.pg import BACKENDS, PG


def judgment(outcome: str = "verdict", sample: int = 0, th: str = "sha256:t1") -> Judgment:
    cfg = JudgeConfig(model="openai/m", prompt_template_version="v", rubric_hash="sha256:r")
    return Judgment(
        transcript_id="t1",
        transcript_hash=th,
        judge_hash=cfg.hash,
        judge=cfg,
        sample_index=sample,
        outcome=outcome,  # type: ignore[arg-type]
        criteria=[CriterionJudgment(criterion="c", label=3)] if outcome == "verdict" else [],
        attempts=1,
        latency_ms=1.0,
        created_at=datetime.now(UTC),
    )


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        yield Store(make_engine(f"sqlite:///{tmp_path / 'c.db'}"))
        return
    schema = f"calibrant_test_{uuid.uuid4().hex[:10]}"
    # The admin connection only creates and drops the schema: it must not write store metadata
    # into the shared database (a store made there by another version would break every run).
    admin = create_engine(PG)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    engine = make_engine(PG, connect_args={"options": f"-csearch_path={schema}"})
    try:
        yield Store(engine)
    finally:
        engine.dispose()
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def test_roundtrip_and_identity(store: Store) -> None:
    j = judgment()
    store.put(j)
    got = store.get(j.transcript_hash, j.judge_hash, 0)
    assert got == j
    assert store.get(j.transcript_hash, j.judge_hash, 1) is None
    assert store.get("sha256:other", j.judge_hash, 0) is None


def test_only_answers_count_as_cached_and_a_retry_replaces_a_failure(store: Store) -> None:
    failed = judgment("rate_limited")
    store.put(failed)
    assert store.get_final(failed.transcript_hash, failed.judge_hash, 0) is None
    ok = judgment("verdict")
    store.put(ok)
    assert store.get_final(ok.transcript_hash, ok.judge_hash, 0) == ok
    assert store.count(ok.judge_hash) == 1


def test_a_newer_store_schema_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE calibrant_meta SET value = '99' WHERE key = 'schema_version'"))
    with pytest.raises(ConfigError, match="newer calibrant"):
        make_engine(url)


def test_bad_url_is_one_clear_error() -> None:
    with pytest.raises(ConfigError, match="cannot open the store"):
        make_engine("postgresql+psycopg2://nobody:secret@127.0.0.1:1/none")
    try:
        make_engine("postgresql+psycopg2://nobody:secret@127.0.0.1:1/none")
    except ConfigError as exc:
        assert "secret" not in str(exc)


def test_batches_write_and_read_in_one_go(store: Store) -> None:
    batch = [judgment(th=f"sha256:t{i}", sample=s) for i in range(40) for s in (0, 1)]
    batch.append(judgment("timeout", th="sha256:failed"))
    store.put_many(batch)
    store.put_many(batch[:3])  # replacing is idempotent
    judge_hash = batch[0].judge_hash
    got = store.final_many(judge_hash, [f"sha256:t{i}" for i in range(40)] + ["sha256:failed"])
    assert len(got) == 80 and got[("sha256:t7", 1)] == batch[15]
    assert ("sha256:failed", 0) not in got  # failures are not answers
    assert store.count(judge_hash) == 81
