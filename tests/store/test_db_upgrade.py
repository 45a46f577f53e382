"""Schema upgrades are explicit on PostgreSQL (issue 19, item 8): a shared store is upgraded by
`calibrant db upgrade`, never as a side effect of a newer CLI opening it; a CLI that meets an
older or a newer schema says so in one line and exits 2. An empty database is still created at
once, and the local SQLite default still upgrades itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from calibrant.errors import ConfigError
from calibrant.store import make_engine, upgrade_store
from calibrant.store.migrate import HEAD
from calibrant.store.runs import Runs
from tests.conftest import Result
from tests.support.pg import fresh_schema


def _at(url: str, revision: str) -> None:
    """A store at `revision`, as an older calibrant left it (with one finished run)."""
    from alembic import command
    from alembic.config import Config

    import calibrant.store.migrate as migrate_module

    engine = create_engine(url)
    with engine.begin() as conn:
        cfg = Config()
        folder = Path(migrate_module.__file__).parent / "migrations"
        cfg.set_main_option("script_location", str(folder))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
    runs = Runs(engine)
    runs.finish(runs.start("calibrate", process=False), {"ok": True})
    engine.dispose()


def _revision(url: str) -> str:
    engine = create_engine(url)
    with engine.connect() as conn:
        found = conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
    engine.dispose()
    return str(found)


@pytest.fixture
def pg() -> Iterator[str]:
    with fresh_schema() as url:
        yield url


@pytest.mark.postgres
def test_an_older_postgresql_store_is_refused_until_db_upgrade(
    pg: str, cli: Callable[..., Result]
) -> None:
    _at(pg, "0003")
    with pytest.raises(ConfigError, match=r"revision 0003.*`calibrant db upgrade`"):
        make_engine(pg)
    env = {"CALIBRANT_DATABASE_URL": pg}
    r = cli("runs", "list", "--json", env=env)
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1, r.err
    assert "calibrant db upgrade" in r.err and "0003" in r.err and HEAD in r.err
    assert _revision(pg) == "0003"  # opening it changed nothing
    up = cli("db", "upgrade", env=env)
    assert up.code == 0, up.err
    assert f"upgraded from schema revision 0003 to {HEAD}" in up.out
    assert _revision(pg) == HEAD
    listed = cli("runs", "list", "--json", env=env)
    assert listed.code == 0 and '"status": "finished"' in listed.out  # its runs kept
    again = cli("db", "upgrade", env=env)
    assert again.code == 0 and "nothing to do" in again.out


@pytest.mark.postgres
def test_a_newer_postgresql_store_is_refused_in_one_line(
    pg: str, cli: Callable[..., Result]
) -> None:
    make_engine(pg).dispose()
    engine = create_engine(pg)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    engine.dispose()
    for args in (("runs", "list"), ("db", "upgrade")):
        r = cli(*args, env={"CALIBRANT_DATABASE_URL": pg})
        assert r.code == 2 and len(r.err.strip().splitlines()) == 1, r.err
        assert "newer calibrant" in r.err


@pytest.mark.postgres
def test_an_empty_postgresql_database_is_created_at_once(pg: str) -> None:
    make_engine(pg).dispose()
    assert _revision(pg) == HEAD
    assert upgrade_store(pg) == (HEAD, HEAD)


def test_the_local_sqlite_store_still_upgrades_itself(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    _at(url, "0003")
    engine = make_engine(url)
    assert _revision(url) == HEAD and [r.status for r in Runs(engine).recent()] == ["finished"]
    assert upgrade_store(url) == (HEAD, HEAD)
    fresh = f"sqlite:///{tmp_path / 'new.db'}"
    assert upgrade_store(fresh) == (None, HEAD)
