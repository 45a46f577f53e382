"""Rubrics and judge versions through the real service (uvicorn in its own process) on SQLite
and PostgreSQL: validated by the same loaders as the files, stored under their content hash
(storing again gives the same entry), admins write and adjudicators read, clear 4xx otherwise.
Runs and reports: the stored report as JSON, and report pages for adjudicators."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from calibrant.files import load_rubric
from calibrant.judge.config import JudgeOptions, resolve_judge
from tests.conftest import ROOT
from tests.support.browser import login
from tests.support.pg import BACKENDS, fresh_schema
from tests.support.service import Service, app_service

RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
JUDGE = "model: openai/house\napi_base: http://127.0.0.1:9/v1\ntemperature: 0.0\n"


@dataclass
class Ctx:
    service: Service
    admin: str
    adjudicator: str
    annotator: str


@pytest.fixture(scope="module", params=BACKENDS)
def ctx(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ctx]:
    work = tmp_path_factory.mktemp("svc")

    def make(s: Service) -> Ctx:
        return Ctx(
            s, s.user("root", "admin"), s.user("ada", "adjudicator"), s.user("ann", "annotator")
        )

    if request.param == "sqlite":
        with app_service(f"sqlite:///{work / 'store.db'}") as s:
            yield make(s)
        return
    with fresh_schema() as url, app_service(url) as s:
        yield make(s)


YAML = {"Content-Type": "application/yaml"}


def test_a_rubric_is_stored_under_its_content_hash_and_storing_it_again_is_the_same(
    ctx: Ctx,
) -> None:
    text = RUBRIC.read_text()
    expected = load_rubric(RUBRIC).content_hash
    with ctx.service.client(ctx.admin) as admin:
        first = admin.post("/api/rubrics", content=text, headers=YAML)
        assert first.status_code == 201, first.text
        assert first.json()["hash"] == expected
        assert first.json()["created_by"] == "root"
        again = admin.post("/api/rubrics", content=text, headers=YAML)
        assert again.status_code == 200 and again.json() == first.json()
    with ctx.service.client(ctx.adjudicator) as reader:
        listed = reader.get("/api/rubrics").json()
        assert [r["hash"] for r in listed].count(expected) == 1
        one = reader.get(f"/api/rubrics/{expected}")
        assert one.status_code == 200 and one.json()["yaml"] == text
        bare = reader.get(f"/api/rubrics/{expected.removeprefix('sha256:')}")
        assert bare.status_code == 200 and bare.json()["hash"] == expected
        missing = reader.get("/api/rubrics/sha256:" + "0" * 64)
        assert missing.status_code == 404 and "no rubric" in missing.json()["detail"]


def test_a_bad_rubric_gets_422_naming_line_and_field(ctx: Ctx) -> None:
    broken = RUBRIC.read_text().replace("criteria:", "criterias:", 1)
    with ctx.service.client(ctx.admin) as admin:
        r = admin.post("/api/rubrics", content=broken, headers=YAML)
        assert r.status_code == 422
        body = r.json()
        assert body["detail"].startswith("request body:")
        assert body["line"] >= 1 and body["field"]
        assert admin.post("/api/rubrics", content="a: [1,", headers=YAML).status_code == 422
        assert admin.post("/api/rubrics", content=b"\xff\xfe", headers=YAML).status_code == 422
        assert admin.post("/api/rubrics", content="- a list", headers=YAML).status_code == 422
        # a YAML escape that makes a lone surrogate, echoed in the message (found by fuzzing)
        lone = admin.post("/api/rubrics", content='rubric_id: "\\ud800"\n', headers=YAML)
        assert lone.status_code == 422 and "\ufffd" in lone.json()["detail"]


def test_roles_and_tokens_on_rubrics_and_judges(ctx: Ctx) -> None:
    text = RUBRIC.read_text()
    with ctx.service.client() as anonymous:
        assert anonymous.get("/api/rubrics").status_code == 401
        assert anonymous.post("/api/rubrics", content=text, headers=YAML).status_code == 401
        assert anonymous.get("/api/judges").status_code == 401
    with ctx.service.client(ctx.annotator) as annotator:
        r = annotator.get("/api/rubrics")
        assert r.status_code == 403 and "adjudicator" in r.json()["detail"]
        assert annotator.get("/api/judges").status_code == 403
        assert annotator.get("/api/runs").status_code == 403
    with ctx.service.client(ctx.adjudicator) as adjudicator:
        r = adjudicator.post("/api/rubrics", content=text, headers=YAML)
        assert r.status_code == 403 and "admin" in r.json()["detail"]
        judge = adjudicator.post("/api/judges", params={"name": "x"}, content=JUDGE)
        assert judge.status_code == 403


def test_a_judge_version_is_the_hash_the_cli_gives_the_same_configuration(
    ctx: Ctx, tmp_path: Path
) -> None:
    (tmp_path / "judges").mkdir()
    (tmp_path / "judges" / "house.yaml").write_text(JUDGE + f"rubric: {RUBRIC}\n")
    os.environ["CALIBRANT_JUDGES_DIR"] = str(tmp_path / "judges")
    try:
        cli_hash = resolve_judge(JudgeOptions(judge="house"))[0].hash
    finally:
        del os.environ["CALIBRANT_JUDGES_DIR"]
    with ctx.service.client(ctx.admin) as admin:
        rubric = admin.post("/api/rubrics", content=RUBRIC.read_text(), headers=YAML).json()
        body = JUDGE + f"rubric: {rubric['hash']}\n"
        made = admin.post("/api/judges", params={"name": "house"}, content=body, headers=YAML)
        assert made.status_code in (200, 201), made.text
        entry = made.json()
        assert entry["hash"] == cli_hash
        assert entry["name"] == "house" and entry["model"] == "openai/house"
        assert entry["rubric"]["hash"] == rubric["hash"]
        assert entry["latest_calibration"] is None
        again = admin.post("/api/judges", params={"name": "house"}, content=body, headers=YAML)
        assert again.status_code == 200 and again.json()["hash"] == cli_hash
        # a rubric file on the server is read, and the version is the same
        by_file = JUDGE + f"rubric: {RUBRIC}\n"
        same = admin.post("/api/judges", params={"name": "house"}, content=by_file)
        assert same.status_code == 200 and same.json()["hash"] == cli_hash
        other = admin.post("/api/judges", params={"name": "other"}, content=body)
        assert other.status_code == 409 and "already stored as 'house'" in other.json()["detail"]
        slower = admin.post(
            "/api/judges", params={"name": "house"}, content=body + "concurrency: 9\n"
        )
        assert slower.status_code == 409 and "run settings" in slower.json()["detail"]
        hotter = body.replace("temperature: 0.0", "temperature: 0.7")
        v2 = admin.post("/api/judges", params={"name": "house"}, content=hotter)
        assert v2.status_code == 201 and v2.json()["hash"] != cli_hash
    with ctx.service.client(ctx.adjudicator) as reader:
        listed = [j for j in reader.get("/api/judges").json() if j["name"] == "house"]
        assert {j["hash"] for j in listed} == {cli_hash, v2.json()["hash"]}
        latest = reader.get("/api/judges/house").json()
        assert latest["hash"] == v2.json()["hash"] and "temperature: 0.7" in latest["yaml"]
        assert reader.get(f"/api/judges/{cli_hash}").json()["name"] == "house"
        assert reader.get("/api/judges/nobody").status_code == 404


def test_bad_judges_get_422(ctx: Ctx) -> None:
    with ctx.service.client(ctx.admin) as admin:
        cases = {
            "no rubric": JUDGE,
            "unknown rubric hash": JUDGE + "rubric: sha256:" + "1" * 64 + "\n",
            "missing rubric file": JUDGE + "rubric: /nowhere/r.yaml\n",
            "unknown field": JUDGE + f"rubric: {RUBRIC}\ncolour: red\n",
            "bad value": JUDGE.replace("0.0", "-1") + f"rubric: {RUBRIC}\n",
        }
        for what, body in cases.items():
            r = admin.post("/api/judges", params={"name": "bad"}, content=body)
            assert r.status_code == 422, (what, r.text)
            assert r.json()["detail"], what
        assert admin.post("/api/judges", content=JUDGE).status_code == 422  # no name
        odd = admin.post(
            "/api/judges", params={"name": "../x"}, content=JUDGE + f"rubric: {RUBRIC}\n"
        )
        assert odd.status_code == 422 and "name" in odd.json()["detail"]


SECRET = "sk-live-0ddba11"
WITH_CREDENTIALS = {
    "api_key in the query": f"http://127.0.0.1:9/v1?api_key={SECRET}",
    "key in the query": f"http://127.0.0.1:9/v1?key={SECRET}",
    "token in the query": f"http://127.0.0.1:9/v1?token={SECRET}",
    "access_token in the query": f"http://127.0.0.1:9/v1?access_token={SECRET}",
    "bearer in the query": f"http://127.0.0.1:9/v1?bearer={SECRET}",
    "user and password": f"http://ops:{SECRET}@127.0.0.1:9/v1",
    "a user alone": f"http://{SECRET}@127.0.0.1:9/v1",
}


def test_a_judge_carrying_a_credential_is_refused_and_nothing_is_stored(ctx: Ctx) -> None:
    """Issue 30, item 3: a stored judge keeps no secret at rest; the 422 names the field and
    says where the key goes (the server's environment)."""
    with ctx.service.client(ctx.admin) as admin:
        before = admin.get("/api/judges").json()
        for what, url in WITH_CREDENTIALS.items():
            body = f"model: openai/keyed\napi_base: {url}\nrubric: {RUBRIC}\n"
            r = admin.post("/api/judges", params={"name": "keyed"}, content=body)
            assert r.status_code == 422, (what, r.text)
            assert r.json()["field"] == "api_base", what
            assert "environment" in r.json()["detail"] and "OPENAI_API_KEY" in r.json()["detail"]
            assert SECRET not in r.text, what
        assert admin.get("/api/judges").json() == before
        assert admin.get("/api/judges/keyed").status_code == 404
        plain = f"model: openai/keyed\napi_base: http://127.0.0.1:9/v1\nrubric: {RUBRIC}\n"
        assert admin.post("/api/judges", params={"name": "keyed"}, content=plain).is_success


def test_a_judges_rubric_file_must_lie_inside_the_data_root(ctx: Ctx, tmp_path: Path) -> None:
    """Issue 30, item 4: a rubric named by its path is read only inside the service's data root
    (CALIBRANT_DATA_ROOT, here the working directory): a path outside it, by '..', absolute or
    through a link, is a 422 naming `rubric` that quotes nothing of the file, and nothing is
    stored."""
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(RUBRIC.read_text() + "# secret-marker-4711\n")
    inside = ROOT / "tmp" / f"catalog-{os.getpid()}"  # in the data root, globbed by no test
    inside.mkdir(parents=True, exist_ok=True)
    link = inside / "link.yaml"
    link.symlink_to(outside)
    try:
        with ctx.service.client(ctx.admin) as admin:
            before = admin.get("/api/judges").json()
            for ref in (str(outside), "../" * 12 + str(outside).lstrip("/"), "/etc/passwd", link):
                body = f"model: openai/x\napi_base: http://127.0.0.1:9/v1\nrubric: {ref}\n"
                r = admin.post("/api/judges", params={"name": "far"}, content=body)
                assert r.status_code == 422, (ref, r.text)
                assert r.json()["field"] == "rubric" and "data root" in r.json()["detail"], r.text
                assert "secret-marker" not in r.text and "root:" not in r.text
            assert admin.get("/api/judges").json() == before
    finally:
        shutil.rmtree(inside)


def test_a_judge_stored_with_a_credential_before_is_shown_masked(ctx: Ctx) -> None:
    """A store written before the rule may hold a judge whose api_base has a key: every
    answer shows it masked."""
    from datetime import UTC, datetime

    import yaml
    from sqlmodel import Session

    from calibrant.store import make_engine
    from calibrant.store.service_tables import JudgeRow

    with ctx.service.client(ctx.admin) as admin:
        rubric = admin.post("/api/rubrics", content=RUBRIC.read_text(), headers=YAML).json()
    for n, url in enumerate(WITH_CREDENTIALS.values()):
        body = yaml.safe_dump(
            {"model": "openai/old", "api_base": url, "rubric": rubric["hash"]}, sort_keys=True
        )
        engine = make_engine(ctx.service.database_url)
        try:
            with Session(engine) as s:
                s.add(
                    JudgeRow(
                        hash=f"sha256:{n:064d}",
                        name=f"old-{n}",
                        body=body,
                        created_by="root",
                        created_at=datetime.now(UTC),
                    )
                )
                s.commit()
        finally:
            engine.dispose()
        with ctx.service.client(ctx.adjudicator) as reader:
            for path in (f"/api/judges/old-{n}", "/api/judges"):
                got = reader.get(path)
                assert got.status_code == 200, got.text
                assert SECRET not in got.text, (url, path)
            shown = yaml.safe_load(reader.get(f"/api/judges/old-{n}").json()["yaml"])
            assert shown["api_base"].startswith("http") and "127.0.0.1:9/v1" in shown["api_base"]


def test_runs_and_report_pages(ctx: Ctx) -> None:
    from calibrant.store import make_engine
    from calibrant.store.runs import Runs

    engine = make_engine(ctx.service.database_url)
    try:
        runs = Runs(engine)
        run_id = runs.start("compare-trials", arguments={"a": "x", "b": "y"})
        runs.finish(run_id, {"figures": {}, "note": "<script>alert(1)</script>"})
        pending = runs.start("score", arguments={})
    finally:
        engine.dispose()
    with ctx.service.client(ctx.adjudicator) as reader:
        listed = reader.get("/api/runs", params={"kind": "compare-trials"}).json()
        assert run_id in [r["id"] for r in listed]
        assert all(r["kind"] == "compare-trials" for r in listed)
        one = reader.get(f"/api/runs/{run_id[:8]}").json()
        assert one["id"] == run_id and one["report"]["note"] == "<script>alert(1)</script>"
        assert reader.get("/api/runs/nope").status_code == 404
        assert reader.get("/api/runs", params={"kind": "bogus"}).status_code == 422
        page = reader.get(f"/reports/{run_id}")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "<script>alert(1)</script>" not in page.text  # escaped
        assert "&lt;script&gt;" in page.text
        waiting = reader.get(f"/reports/{pending}")
        assert waiting.status_code == 200 and "No report: the run is running" in waiting.text
        index = reader.get("/reports")
        assert index.status_code == 200 and run_id[:12] in index.text
    # the workbench signs experts in with a session cookie: the pages take it too (a session
    # made by logging in; the token itself is no longer a cookie, issue 19)
    signed_in = login(ctx.service, ctx.adjudicator)
    assert signed_in.get(f"/reports/{run_id}").status_code == 200
    signed_in.close()
    with ctx.service.client(cookies={"calibrant_session": ctx.adjudicator}) as c:
        assert c.get(f"/reports/{run_id}").status_code == 303  # the raw token is no session
    with ctx.service.client(ctx.annotator) as annotator:
        assert annotator.get("/reports").status_code == 403
        assert annotator.get(f"/reports/{run_id}").status_code == 403
    with ctx.service.client() as anonymous:  # a person not signed in is sent to the login page
        got = anonymous.get("/reports")
        assert got.status_code == 303 and got.headers["location"] == "/login"


def test_every_kind_of_run_the_cli_records_can_be_listed_by_kind(ctx: Ctx) -> None:
    """Provider batches (`batch submit`) and probe runs are runs too: listing them by kind
    works as for the others (it answered 422 before)."""
    from calibrant.store import make_engine
    from calibrant.store.runs import Runs

    engine = make_engine(ctx.service.database_url)
    try:
        runs = Runs(engine)
        made = {kind: runs.start(kind, arguments={}) for kind in ("batch", "probe")}
    finally:
        engine.dispose()
    with ctx.service.client(ctx.adjudicator) as reader:
        for kind, run_id in made.items():
            got = reader.get("/api/runs", params={"kind": kind})
            assert got.status_code == 200, got.text
            assert run_id in [r["id"] for r in got.json()]
            assert {r["kind"] for r in got.json()} == {kind}


def test_jobs_on_sqlite_get_409_with_one_sentence(ctx: Ctx) -> None:
    if not ctx.service.database_url.startswith("sqlite"):
        pytest.skip("the SQLite store's refusal")
    with ctx.service.client(ctx.admin) as admin:
        r = admin.post(
            "/api/jobs", json={"kind": "judge", "params": {"judge": "house", "paths": ["x"]}}
        )
        assert r.status_code == 409
        assert "need the store on PostgreSQL" in r.json()["detail"]
        assert admin.get("/api/jobs").json() == []
        assert admin.get("/api/jobs/nope").status_code == 404


def test_serve_worker_on_sqlite_is_refused_in_one_line(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    done = run_cli("serve", "--worker", "--port", "1", env=env)
    assert done.code == 2
    lines = [line for line in done.err.splitlines() if line.strip()]
    assert len(lines) == 1 and "PostgreSQL" in lines[0], done.err
    assert not (tmp_path / "store.db").exists()  # refused before the store is opened
