"""Outside audit of workbench sessions (issue 19): the cookie's flags, what the store keeps,
and a logged-out session's cookie on the API as well as on the pages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

from tests.support.browser import csrf_of, login
from tests.support.labeling import labeling_service
from tests.support.service import Service


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with labeling_service("sqlite", tmp_path_factory.mktemp("audit-sess")) as s:
        yield s


def test_the_session_cookie_is_httponly_strict_and_stored_only_as_a_hash(
    service: Service,
) -> None:
    token = service.user("audit-ann", "annotator")
    browser = service.client()
    got = browser.post("/login", data={"token": token})
    assert got.status_code == 303
    set_cookie = got.headers["set-cookie"].lower()
    assert "calibrant_session=" in set_cookie
    assert "httponly" in set_cookie and "samesite=strict" in set_cookie
    cookie = browser.cookies.get("calibrant_session")
    assert cookie
    engine = create_engine(service.database_url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT * FROM calibrant_sessions")).fetchall()
    engine.dispose()
    assert rows and not any(cookie in str(v) for r in rows for v in r)


def test_a_logged_out_cookie_opens_no_api_route_either(service: Service) -> None:
    token = service.user("audit-ann2", "annotator")
    browser = login(service, token)
    cookie = browser.cookies.get("calibrant_session")
    assert cookie
    home = browser.get("/")
    assert browser.get("/api/me").status_code == 200  # the cookie works on the API while live
    assert browser.post("/logout", data={"csrf": csrf_of(home.text)}).status_code == 303
    copied = service.client()
    copied.cookies.set("calibrant_session", cookie)
    assert copied.get("/api/me").status_code == 401
    assert copied.get("/api/items").status_code == 401


def test_logout_without_the_csrf_token_does_not_end_the_session(service: Service) -> None:
    browser = login(service, service.user("audit-ann3", "annotator"))
    assert browser.get("/").status_code == 200
    browser.post("/logout", data={})  # a cross-site form cannot know the token
    assert browser.get("/").status_code == 200


def test_the_login_page_says_what_the_browser_keeps(service: Service) -> None:
    # the token is not stored in the browser: the cookie holds a session id (docs/workbench.md)
    page = service.client().get("/login").text
    assert "session id in an HttpOnly cookie" in page
    assert "It is kept in an HttpOnly cookie" not in page
    token = service.user("audit-ann4", "annotator")
    browser = login(service, token)
    cookie = browser.cookies.get("calibrant_session")
    assert cookie and token not in cookie
