"""Workbench sessions are the server's: the cookie is a session id, not the account's API token;
a session expires, is replaced at every login, ends for good at logout (a copied cookie stops
working), and has its own CSRF token. API tokens stay for API clients, listed and revoked with
`calibrant users`. A store of schema 4 gains the sessions table and keeps its users and labels."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, inspect, text

from calibrant.store.migrate import HEAD
from tests.conftest import run_cli
from tests.support.browser import csrf_of, login
from tests.support.labeling import BACKENDS, gold_jsonl, labeling_service
from tests.support.service import Service


@pytest.fixture(scope="module", params=BACKENDS)
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    with labeling_service(request.param, tmp_path_factory.mktemp("sess")) as s:
        yield s


def _cookie(browser: httpx.Client) -> str:
    value = browser.cookies.get("calibrant_session")
    assert value
    return value


def _with_cookie(service: Service, cookie: str) -> httpx.Client:
    c = service.client()
    c.cookies.set("calibrant_session", cookie)
    return c


def test_the_cookie_is_a_session_not_the_token_and_logout_ends_it(service: Service) -> None:
    token = service.user("sess-ann", "annotator")
    browser = login(service, token)
    cookie = _cookie(browser)
    assert cookie != token and token not in cookie  # a stolen cookie is not the API token
    home = browser.get("/")
    assert home.status_code == 200
    copied = _with_cookie(service, cookie)  # e.g. left in another browser's jar
    assert copied.get("/").status_code == 200
    out = browser.post("/logout", data={"csrf": csrf_of(home.text)})
    assert out.status_code == 303
    # revoked on the server: the copy no longer opens a page
    again = copied.get("/")
    assert again.status_code == 303 and again.headers["location"] == "/login"
    # the API token still works for API clients
    assert service.client(token).get("/api/me").json()["name"] == "sess-ann"


def test_the_login_page_says_what_the_cookie_holds(service: Service) -> None:
    """Issue 35: the page said the token was kept in the cookie; it is a session id."""
    page = " ".join(service.client().get("/login").text.split())
    assert "It is not kept: your browser gets a session id in an HttpOnly cookie" in page
    assert "token is kept" not in page and "logging out ends that session" in page


def test_each_login_is_a_new_session_with_its_own_csrf_token(service: Service) -> None:
    token = service.user("sess-ann2", "annotator")
    first = login(service, token)
    before = _cookie(first)
    page1 = first.get("/").text
    # logging in again from the same browser: a new session; the one it had is ended
    got = first.post("/login", data={"token": token})
    assert got.status_code == 303
    after = _cookie(first)
    assert after != before
    assert _with_cookie(service, before).get("/").status_code == 303
    page2 = first.get("/").text
    assert csrf_of(page1) != csrf_of(page2)
    # a second browser of the same account: its own session and CSRF token
    other = login(service, token)
    page3 = other.get("/").text
    assert csrf_of(page3) not in (csrf_of(page1), csrf_of(page2))
    # one session's CSRF token does not pass in another session
    admin = service.client(service.user("sess-admin", "admin"))
    assert admin.post("/api/transcripts?queue=sess", content=gold_jsonl(60)).is_success
    refused = other.post(
        "/label/gold-060", data={"csrf": csrf_of(page2), "label.overall_clarity": "2"}
    )
    assert refused.status_code == 403


def test_an_expired_session_sends_the_browser_to_login(service: Service) -> None:
    browser = login(service, service.user("sess-ann3", "annotator"))
    assert browser.get("/").status_code == 200
    engine = create_engine(service.database_url)
    with engine.begin() as conn:
        past = datetime.now(UTC).replace(tzinfo=None) - timedelta(minutes=1)
        conn.execute(
            text("UPDATE calibrant_sessions SET expires_at = :t WHERE user_name = 'sess-ann3'"),
            {"t": past},
        )
    engine.dispose()
    got = browser.get("/")
    assert got.status_code == 303 and got.headers["location"] == "/login"


def test_disabling_or_rotating_an_account_ends_its_sessions(service: Service) -> None:
    env = {"CALIBRANT_DATABASE_URL": service.database_url}
    token = service.user("sess-ann4", "annotator")
    browser = login(service, token)
    assert browser.get("/").status_code == 200
    listed = run_cli("users", "list", "--json", env=env)
    assert listed.code == 0
    row = next(r for r in json.loads(listed.out) if r["name"] == "sess-ann4")
    assert row["sessions"] == 1 and token not in listed.out
    assert run_cli("users", "token", "sess-ann4", env=env).code == 0
    assert browser.get("/").status_code == 303  # the session went with the old token
    assert service.client(token).get("/api/me").status_code == 401
    fresh = run_cli("users", "token", "sess-ann4", env=env).out.strip()
    browser = login(service, fresh)
    assert run_cli("users", "disable", "sess-ann4", env=env).code == 0
    assert browser.get("/").status_code == 303
    assert service.client(fresh).get("/api/me").status_code == 401


def test_a_schema_4_store_gains_sessions_and_keeps_users_and_labels(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config

    import calibrant.store.migrate as migrate_module
    from calibrant.store import make_engine

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg = Config()
        cfg.set_main_option(
            "script_location", str(Path(migrate_module.__file__).parent / "migrations")
        )
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004")
        conn.execute(
            text(
                "INSERT INTO calibrant_users (name, role, token_hash, created_at, disabled) "
                "VALUES ('old-ann', 'annotator', 'abc', '2026-11-01 10:00:00', 0)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO calibrant_items (id, transcript_hash, payload, queue, rubric_hash, "
                "uploaded_by, created_at) VALUES ('t-1:scripted:correct:s0:t1', 'sha256:x', "
                "'{}', 'q', 'r', 'admin', '2026-11-01 10:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO calibrant_labels (item, rater, criterion, label, created_at) "
                "VALUES ('t-1:scripted:correct:s0:t1', 'old-ann', 'c', '\"pass\"', "
                "'2026-11-01 10:00:00')"
            )
        )
    engine.dispose()
    upgraded = make_engine(url)
    with upgraded.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == HEAD
        users = conn.execute(text("SELECT name, token_hash FROM calibrant_users")).all()
        labels = conn.execute(text("SELECT item, rater, label FROM calibrant_labels")).all()
        alias = conn.execute(text("SELECT alias FROM calibrant_items")).scalar()
    assert "calibrant_sessions" in tables
    assert users == [("old-ann", "abc")]
    assert labels == [("t-1:scripted:correct:s0:t1", "old-ann", '"pass"')]
    assert alias and alias.startswith("item-") and "scripted" not in alias
