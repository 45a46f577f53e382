"""Accounts and tokens against the service on SQLite and PostgreSQL: a token is printed once
and stored hashed; requests without one get 401, with a lesser role 403; bodies over the limit
get 413 (the application in this process); no token is ever written to the log (`calibrant
serve` in its own process, whose access log it is)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import Result, run_cli
from tests.support.pg import BACKENDS, fresh_schema
from tests.support.service import ServedService, Service, app_service, running_service


@contextmanager
def _store(backend: str, work: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{work / 'store.db'}"
        return
    with fresh_schema() as url:
        yield url


@pytest.fixture(scope="module", params=BACKENDS)
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    with _store(request.param, tmp_path_factory.mktemp("svc")) as url:
        with app_service(url, "--max-body-mb", "1") as s:
            yield s


@pytest.fixture(scope="module", params=BACKENDS)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServedService]:
    work = tmp_path_factory.mktemp("svc-served")
    with _store(request.param, work) as url, running_service(url, work) as s:
        yield s


@pytest.mark.parametrize(
    ("first", "name", "says"),
    [
        (None, "Consensus", "reserved for the consensus labels"),
        (None, "CONSENSUS", "reserved for the consensus labels"),
        ("ann", "Ann", "account 'ann' exists, and names must differ in more than case"),
        (None, "CON", "'CON.jsonl'"),
        (None, "lpt9", "'lpt9.jsonl'"),
        (None, "nul.x", "'nul.x.jsonl'"),
    ],
)
def test_users_add_refuses_a_name_that_is_not_a_labels_file_of_its_own(
    tmp_path: Path, first: str | None, name: str, says: str
) -> None:
    """Each expert's labels are exported as `labels/<name>.jsonl`: a name that is the consensus
    file's, another account's but for case, or a device on Windows would not be a file of its
    own wherever the export is unpacked."""
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    if first is not None:
        assert run_cli("users", "add", first, env=env).code == 0
    got = run_cli("users", "add", name, env=env)
    assert got.code == 2 and got.err.count("\n") == 1, got.err
    assert says in got.err and name in got.err, got.err
    listed = json.loads(run_cli("users", "list", "--json", env=env).out)
    assert [u["name"] for u in listed] == ([first] if first else [])


def test_users_add_prints_the_token_once_and_stores_only_its_hash(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    env = {"CALIBRANT_DATABASE_URL": url}
    made: Result = run_cli("users", "add", "ana", "--role", "adjudicator", env=env)
    assert made.code == 0, made.err
    token = made.out.strip()
    assert token.startswith("cal_") and len(token) > 40
    assert "shown only now" in made.err
    engine = create_engine(url)
    with engine.connect() as conn:
        dump = "\n".join(str(r) for r in conn.execute(text("SELECT * FROM calibrant_users")))
    engine.dispose()
    assert token not in dump and hashlib.sha256(token.encode()).hexdigest() in dump
    listed = run_cli("users", "list", "--json", env=env)
    assert json.loads(listed.out)[0] | {"created_at": None} == {
        "name": "ana",
        "role": "adjudicator",
        "created_at": None,
        "disabled": False,
        "sessions": 0,  # live workbench sessions (issue 19)
    }
    assert token not in listed.out
    again = run_cli("users", "add", "ana", env=env)
    assert again.code == 2 and again.err.count("\n") == 1 and "already exists" in again.err
    bad = run_cli("users", "add", "bob", "--role", "owner", env=env)
    assert bad.code == 2 and "annotator, adjudicator, admin" in bad.err
    odd = run_cli("users", "add", "../bob", env=env)
    assert odd.code == 2 and "user name" in odd.err


def test_without_a_token_the_api_answers_401_and_with_one_it_knows_who(service: Service) -> None:
    with service.client() as anonymous:
        assert anonymous.get("/api/health").status_code == 200  # liveness needs no token
        refused = anonymous.get("/api/me")
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == "Bearer"
        assert "calibrant users add" in refused.json()["detail"]
    token = service.user("rita", "annotator")
    with service.client(token) as rita:
        assert rita.get("/api/me").json() == {"name": "rita", "role": "annotator"}
    for wrong in (token[:-1] + ("A" if token[-1] != "A" else "B"), "Bearer", token.upper(), "x"):
        with service.client() as c:
            got = c.get("/api/me", headers={"Authorization": f"Bearer {wrong}"})
            assert got.status_code == 401, wrong
    with service.client() as c:  # the token in another scheme, or as a query parameter: no
        assert c.get("/api/me", headers={"Authorization": f"Basic {token}"}).status_code == 401
        assert c.get(f"/api/me?token={token}").status_code == 401


def test_a_rotated_or_disabled_token_stops_working(service: Service) -> None:
    from calibrant.store import make_engine
    from calibrant.store.users import Users

    old = service.user("tom", "admin")
    engine = make_engine(service.database_url)
    try:
        new = Users(engine).rotate("tom")
        with service.client(old) as c:
            assert c.get("/api/me").status_code == 401
        with service.client(new) as c:
            assert c.get("/api/me").status_code == 200
        Users(engine).disable("tom")
        with service.client(new) as c:
            assert c.get("/api/me").status_code == 401
    finally:
        engine.dispose()


def test_a_body_over_the_limit_is_refused_with_413(service: Service) -> None:
    token = service.user("big", "admin")
    with service.client(token) as c:
        got = c.post("/api/me", content=b"x" * (1024 * 1024 + 1))
        assert got.status_code == 413 and "limit" in got.json()["detail"]


@pytest.mark.slow  # the served process's access log
def test_no_token_appears_in_the_service_log(served: ServedService) -> None:
    service = served
    token = service.user("quiet", "annotator")
    with service.client(token) as c:
        c.get("/api/me")
        c.get("/api/nothing-here")
    assert token not in service.log.read_text()
