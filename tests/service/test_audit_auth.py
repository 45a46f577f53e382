"""Audit of the service's authentication promises (issue 11, README "The service API" and
"The workbench"), against the real service on SQLite and PostgreSQL:

- every /api/ route answers 401 without a valid token (none, empty, wrong scheme, in the URL,
  disabled, rotated), and a disabled account's cookie opens no page;
- tokens are stored hashed, never in a page, the log (even when a client puts one in a URL),
  or `users list`; `users add` refuses look-alike and path names;
- every form and every cookie-authenticated API write needs the session's CSRF token (a
  non-ASCII one is a 403, not a crash), a form posted from another origin is refused (the
  login form too), and no other origin may read the API."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from calibrant.store import make_engine
from tests.support.browser import csrf_of, login
from tests.support.cli import run_in_process
from tests.support.labeling import (
    ALL_CRITERIA,
    BACKENDS,
    NDJSON,
    RUBRIC,
    SMALL_LIMIT,
    gold_jsonl,
    small_limit_service,
)
from tests.support.service import ROOT, ServedService, Service

LIMIT = SMALL_LIMIT
CRITERIA = ALL_CRITERIA


@pytest.fixture(scope="module", params=BACKENDS)
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    """The application in this process."""
    with small_limit_service(request.param, tmp_path_factory.mktemp("audit-auth")) as s:
        yield s


@pytest.fixture(scope="module", params=BACKENDS)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServedService]:
    """`calibrant serve` in its own process: the tests that read its access log."""
    work = tmp_path_factory.mktemp("audit-auth-served")
    with small_limit_service(request.param, work, served=True) as s:
        yield s  # type: ignore[misc]


def _users(service: Service):  # type: ignore[no-untyped-def]
    from calibrant.store.users import Users

    return Users(make_engine(service.database_url))


def _routes(service: Service) -> list[tuple[str, str]]:
    schema = service.client().get("/openapi.json").json()
    out = []
    for path, methods in schema["paths"].items():
        for method in methods:
            out.append((method.upper(), re.sub(r"\{[^}]+\}", "x", path)))
    return out


@pytest.mark.slow  # the served process's access log
def test_every_api_route_answers_401_without_a_valid_token(served: ServedService) -> None:
    service = served
    token = service.user("in-401", "admin")
    routes = [r for r in _routes(service) if r[1] != "/api/health"]
    assert ("POST", "/api/labels") in routes and len(routes) > 15
    disabled = service.user("in-disabled", "admin")
    _users(service).disable("in-disabled")
    attempts: list[dict[str, str]] = [
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer  x"},
        {"Authorization": "Bearer cal_not-a-token"},
        {"Authorization": f"Basic {token}"},
        {"Authorization": f"Token {token}"},
        {"Authorization": f"Bearer {token}x"},
        {"Authorization": f"Bearer {token[:-1]}"},
        {"Authorization": f"Bearer {disabled}"},
        {"Cookie": f"calibrant_session={disabled}"},
        {"X-API-Key": token},
    ]
    with service.client() as anonymous:
        for method, path in routes:
            for headers in attempts:
                got = anonymous.request(method, path, headers=headers)
                assert got.status_code == 401, (method, path, headers, got.text)
                assert token not in got.text and disabled not in got.text
            for query in (f"?token={token}", f"?access_token={token}"):
                got = anonymous.request(method, path + query)
                assert got.status_code == 401, (method, path, query)
        refused = anonymous.post("/api/labels", json={"item": "gold-081", "labels": []})
        assert refused.status_code == 401
        assert refused.json() == {"detail": refused.json()["detail"]}
        assert refused.headers["www-authenticate"] == "Bearer"
    # a client that put its token in the URL finds it refused, and not in the service's log
    assert token not in service.log.read_text()
    assert "cal_[redacted]" in service.log.read_text()


def test_a_disabled_or_rotated_account_opens_nothing(service: Service) -> None:
    token = service.user("in-leaver", "annotator")
    browser = login(service, token)
    assert browser.get("/").status_code == 200
    users = _users(service)
    new = users.rotate("in-leaver")
    assert browser.get("/").status_code == 303  # the old cookie is no session any more
    assert service.client(token).get("/api/me").status_code == 401
    assert service.client(new).get("/api/me").json() == {"name": "in-leaver", "role": "annotator"}
    browser = login(service, new)
    users.disable("in-leaver")
    for path in ("/", "/label/gold-081"):
        got = browser.get(path)
        assert got.status_code == 303 and got.headers["location"] == "/login", path
    assert browser.post("/label/gold-081", data={"csrf": "x"}).status_code in (303, 401, 403)
    assert service.client(new).get("/api/labels").status_code == 401
    bad = service.client().post("/login", data={"token": new})
    assert bad.status_code == 401 and "set-cookie" not in bad.headers


@pytest.mark.slow  # the served process's access log
def test_tokens_are_stored_hashed_and_never_shown_or_logged(
    served: ServedService, tmp_path: Path
) -> None:
    service = served
    env = {"CALIBRANT_DATABASE_URL": service.database_url, "PATH": "/usr/bin:/bin"}
    made = run_in_process(("users", "add", "in-cli", "--role", "adjudicator"), cwd=ROOT, env=env)
    assert made.code == 0, made.err
    token = made.out.strip().splitlines()[-1].strip()
    assert token.startswith("cal_") and len(token) > 30, made.out
    listing = run_in_process(("users", "list"), cwd=ROOT, env=env)
    assert listing.code == 0, listing.err
    assert "in-cli" in listing.out and token not in listing.out + listing.err
    secret_part = token.removeprefix("cal_")
    engine = make_engine(service.database_url)
    try:
        with engine.connect() as conn:
            for table in ("calibrant_users",):
                rows = conn.execute(text(f"SELECT * FROM {table}")).fetchall()
                dump = repr(rows)
                assert "in-cli" in dump and secret_part not in dump and token not in dump
    finally:
        engine.dispose()
    # a typo of the real token at the login form, a good login, pages, API calls
    near = token[:-2] + ("aa" if not token.endswith("aa") else "bb")
    with service.client() as anonymous:
        failed = anonymous.post("/login", data={"token": near})
        assert failed.status_code == 401 and near not in failed.text
    browser = login(service, token)
    pages = [browser.get(p) for p in ("/", "/label/gold-081", "/adjudicate", "/login")]
    api = service.client(token)
    pages += [api.get(p) for p in ("/api/me", "/api/labels", "/openapi.json", "/api/docs")]
    for page in pages:
        assert token not in page.text and secret_part not in page.text, page.url
        assert secret_part not in json.dumps(dict(page.headers)), page.url
    home = browser.get("/").text
    assert csrf_of(home) not in token
    log = service.log.read_text()
    assert token not in log and secret_part not in log and near not in log


def test_every_cookie_write_needs_the_csrf_token_and_our_origin(service: Service) -> None:
    token = service.user("in-csrf-admin", "admin")
    browser = login(service, token)
    good = csrf_of(browser.get("/label/gold-082").text)
    # the API with the cookie: every write route, not only the labeling ones
    writes = [
        ("/api/labels", {"json": {"item": "gold-082", "labels": []}}),
        ("/api/adjudications", {"json": {}}),
        ("/api/transcripts?queue=in-x", {"content": gold_jsonl(86)}),
        ("/api/labels/import", {"content": b"", "headers": NDJSON}),
        ("/api/rubrics", {"content": RUBRIC.read_bytes()}),
        ("/api/judges?name=csrf", {"content": b"model: m\nrubric: r\n"}),
        ("/api/jobs", {"json": {"kind": "judge", "params": {}}}),
        ("/api/jobs/1/cancel", {}),
    ]
    for path, kwargs in writes:
        got = browser.post(path, **kwargs)  # type: ignore[arg-type]
        assert got.status_code == 403, (path, got.status_code, got.text)
        assert "CSRF" in got.text, path
    forged = browser.post(
        "/api/rubrics", content=RUBRIC.read_bytes(), headers={"X-CSRF-Token": "0" * 64}
    )
    assert forged.status_code == 403
    # with the token the cookie write goes through
    ok = browser.post(
        "/api/rubrics",
        content=RUBRIC.read_bytes(),
        headers={"X-CSRF-Token": good, "Content-Type": "application/yaml"},
    )
    assert ok.status_code in (200, 201), ok.text
    # a form from another origin, even with the right token (old browsers send no
    # Sec-Fetch-Site, every browser sends Origin on a cross-site POST)
    form = {f"label.{k}": str(v) for k, v in CRITERIA.items()} | {"csrf": good}
    evil = {"Origin": "https://evil.example"}
    assert browser.post("/label/gold-082", data=form, headers=evil).status_code == 403
    assert browser.post("/logout", data={"csrf": good}, headers=evil).status_code == 403
    with service.client() as anonymous:
        refused = anonymous.post("/login", data={"token": token}, headers=evil)
        assert refused.status_code == 403 and "set-cookie" not in refused.headers
        null = anonymous.post("/login", data={"token": token}, headers={"Origin": "null"})
        assert null.status_code == 403
    # our own origin (what a browser sends from the workbench's pages) is fine
    ours = {"Origin": service.url}
    assert browser.post("/label/gold-082", data=form, headers=ours).status_code == 303
    # the token in the query string instead of the form is not accepted
    assert browser.post(f"/label/gold-082?csrf={good}", data=form | {"csrf": ""}).status_code == 403
    # a rotated token's old CSRF token no longer works with the new session
    _users(service).rotate("in-csrf-admin")
    assert browser.get("/").status_code == 303


def test_no_other_origin_may_read_the_api_from_a_browser(service: Service) -> None:
    token = service.user("in-cors", "annotator")
    evil = {"Origin": "https://evil.example"}
    pre = service.client().options(
        "/api/labels",
        headers={
            **evil,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert "access-control-allow-origin" not in pre.headers
    got = service.client().get("/api/labels", headers={**evil, "Authorization": f"Bearer {token}"})
    assert "access-control-allow-origin" not in got.headers


def test_users_add_refuses_names_that_could_pass_for_another(service: Service) -> None:
    env = {"CALIBRANT_DATABASE_URL": service.database_url, "PATH": "/usr/bin:/bin"}
    for name in ("../x", "consensus", "ma\u200bria", "ma\u202eria"):
        got = run_in_process(("users", "add", name), cwd=ROOT, env=env)
        assert got.code == 2, (name, got.out, got.err)
        assert len(got.err.strip().splitlines()) == 1 and "cal_" not in got.out, name
    names = [u.name for u in _users(service).list()]
    assert not any("maria" in n or "/" in n or n in ("consensus", "..") for n in names), names


def test_a_non_ascii_csrf_token_is_refused_not_a_crash(service: Service) -> None:
    browser = login(service, service.user("in-csrf-utf8", "annotator"))
    form = {f"label.{k}": str(v) for k, v in CRITERIA.items()} | {"csrf": "é" * 64}
    assert browser.post("/label/gold-081", data=form).status_code == 403
    body = {"item": "gold-081", "labels": [{"criterion": "explains_next_step", "label": "pass"}]}
    header = {"X-CSRF-Token": "é".encode("latin-1")}  # type: ignore[dict-item]
    assert browser.post("/api/labels", json=body, headers=header).status_code == 403
    assert browser.post("/logout", data={"csrf": "ü"}).status_code == 403
