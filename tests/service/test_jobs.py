"""Background jobs through the real service on PostgreSQL, with a real queue worker inside it
(`calibrant serve --worker`) and a real OpenAI-compatible endpoint in its own process that
counts what it is asked: each kind runs and records its run; bad requests get a clear 4xx before
anything is queued; cancel stops a queued or running job; a service killed with kill -9 mid-job
is restarted and the job finishes without asking the judge twice for any answer it had."""

from __future__ import annotations

import shutil
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import ROOT
from tests.support.counting_endpoint import CountingEndpoint, make_items
from tests.support.gold import small_gold
from tests.support.pg import fresh_schema
from tests.support.service import Service, running_service, wait_job

pytestmark = pytest.mark.postgres

SRC = ROOT / "examples" / "transcripts" / "good-eligible.json"
RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
ENV = {"CALIBRANT_WORKER_HEARTBEAT_S": "1"}  # a silent worker is stalled after 3 s


def data_root(work: Path) -> Path:
    """`work` as the served service's data root (running_service makes it so), holding the
    rubric file the judges below name: a judge's rubric file is read there only."""
    shutil.copy(RUBRIC, work / "rubric.yaml")
    return work


def judge_yaml(
    url: str, *, concurrency: int = 4, temperature: float = 0.0, model: str = "openai/count"
) -> str:
    return (
        f"model: {model}\napi_base: {url}\nrubric: rubric.yaml\n"
        f"temperature: {temperature}\nconcurrency: {concurrency}\nmax_attempts: 1\n"
    )


@dataclass
class Ctx:
    service: Service
    admin: str
    adjudicator: str
    annotator: str
    endpoint: CountingEndpoint
    slow: CountingEndpoint
    work: Path


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ctx]:
    work = tmp_path_factory.mktemp("jobs")
    with (
        CountingEndpoint() as endpoint,
        CountingEndpoint(latency_s=0.4) as slow,
        fresh_schema() as url,
        running_service(url, data_root(work), "--worker", env=ENV) as s,
    ):
        c = Ctx(
            s,
            s.user("root", "admin"),
            s.user("ada", "adjudicator"),
            s.user("ann", "annotator"),
            endpoint,
            slow,
            work,
        )
        with s.client(c.admin) as admin:
            for name, body in (
                ("count", judge_yaml(endpoint.url)),
                ("count-warm", judge_yaml(endpoint.url, temperature=0.5)),
                ("slow", judge_yaml(slow.url, concurrency=1, model="openai/slow")),
            ):
                made = admin.post("/api/judges", params={"name": name}, content=body)
                assert made.status_code == 201, made.text
        yield c


def test_a_judge_job_runs_on_the_worker_and_records_its_run(ctx: Ctx) -> None:
    names = make_items(SRC, ctx.work / "five", 5)
    with ctx.service.client(ctx.admin) as admin:
        posted = admin.post(
            "/api/jobs",
            json={"kind": "judge", "params": {"judge": "count", "paths": [str(ctx.work / "five")]}},
        )
        assert posted.status_code == 202, posted.text
        job = posted.json()
        assert job["status"] in ("queued", "running") and job["created_by"] == "root"
        done = wait_job(admin, job["id"], "finished", "failed")
        assert done["status"] == "finished", done
        assert done["error"] is None and done["started_at"] and done["finished_at"]
    with ctx.service.client(ctx.adjudicator) as reader:
        run = reader.get(f"/api/runs/{done['run_id']}").json()
        assert run["kind"] == "judge" and run["status"] == "finished"
        assert run["report"]["outcomes"] == {"verdict": 5}
        assert len(run["report"]["transcripts"]) == 5
        assert done["id"] in [j["id"] for j in reader.get("/api/jobs").json()]
    asked = ctx.endpoint.counts()["requests"]
    assert all(asked[n] == 1 for n in names), asked

    # a score job with the same judge version: every answer comes from the store
    with ctx.service.client(ctx.admin) as admin:
        posted = admin.post(
            "/api/jobs",
            json={"kind": "score", "params": {"judge": "count", "paths": [str(ctx.work / "five")]}},
        )
        scored = wait_job(admin, posted.json()["id"], "finished", "failed")
        assert scored["status"] == "finished", scored
        report = admin.get(f"/api/runs/{scored['run_id']}").json()["report"]
    assert report["transcripts"] == 5 and report["judge_outcomes"] == {"verdict": 5}
    assert ctx.endpoint.counts()["requests"] == asked  # nothing asked again
    with ctx.service.client(ctx.adjudicator) as reader:
        page = reader.get(f"/reports/{scored['run_id']}")
        assert page.status_code == 200 and 'id="safety-panel"' in page.text
        assert "Communication (judge), 95% intervals" in page.text
        # no calibration_run: nothing corrects, and the page says so
        assert "Calibration: none given; pass rates are as judged" in page.text
    assert report["calibration"] is None


def test_calibrate_and_compare_jobs_and_their_report_pages(ctx: Ctx) -> None:
    gold = small_gold(ctx.work / "gold", n=4)
    with ctx.service.client(ctx.admin) as admin:
        cal = admin.post(
            "/api/jobs",
            json={
                "kind": "calibrate",
                "params": {"judge": "count", "gold": str(gold), "split": "all", "resamples": 200},
            },
        )
        assert cal.status_code == 202, cal.text
        cmp_ = admin.post(
            "/api/jobs",
            json={
                "kind": "compare",
                "params": {"a": "count", "b": "count-warm", "gold": str(gold), "split": "all"},
            },
        )
        assert cmp_.status_code == 202, cmp_.text
        cal_done = wait_job(admin, cal.json()["id"], "finished", "failed")
        cmp_done = wait_job(admin, cmp_.json()["id"], "finished", "failed")
    assert cal_done["status"] == "finished", cal_done
    assert cmp_done["status"] == "finished", cmp_done
    with ctx.service.client(ctx.adjudicator) as reader:
        judge = reader.get("/api/judges/count").json()
        assert judge["latest_calibration"]["run_id"] == cal_done["run_id"]
        assert judge["latest_calibration"]["n_items"] == 4
        page = reader.get(f"/reports/{cal_done['run_id']}").text
        assert "Calibration report" in page and "Judge release gate" in page
        assert 'id="safety-panel"' in page and "Safety invariants" in page
        assert 'class="heatmap"' in page and "<svg" in page
        assert "judge vs consensus [95% CI]" in page
        run = reader.get(f"/api/runs/{cmp_done['run_id']}").json()
        assert run["kind"] == "compare"
        assert run["report"]["judges"]["a"]["name"] == "count"
        page = reader.get(f"/reports/{cmp_done['run_id']}").text
        assert "Judge comparison: B (count-warm) against A (count)" in page
        assert 'id="comparison"' in page
        listing = reader.get("/reports", params={"kind": "compare"}).text
        assert cmp_done["run_id"][:12] in listing and cal_done["run_id"][:12] not in listing

    # a score job corrected by that calibration; refused for another judge version
    items = str(ctx.work / "gold" / "transcripts")
    with ctx.service.client(ctx.admin) as admin:
        params = {"judge": "count", "paths": [items], "calibration_run": "latest"}
        scored = admin.post("/api/jobs", json={"kind": "score", "params": params})
        assert scored.status_code == 202, scored.text
        done = wait_job(admin, scored.json()["id"], "finished", "failed")
        assert done["status"] == "finished", done
        report = admin.get(f"/api/runs/{done['run_id']}").json()["report"]
        assert report["calibration"]["source"] == f"store: calibrate run {cal_done['run_id']}"
        assert report["calibration"]["n_items"] == 4
        assert report["calibration"]["run_id"] == cal_done["run_id"]
        by_id = {**params, "judge": "count-warm", "calibration_run": cal_done["run_id"]}
        other = admin.post("/api/jobs", json={"kind": "score", "params": by_id})
        assert other.status_code == 422
        assert "calibrate this judge version first" in other.json()["detail"]


def test_bad_job_requests_get_a_clear_4xx_and_queue_nothing(ctx: Ctx) -> None:
    five = str(ctx.work / "bad-five")
    make_items(SRC, Path(five), 2)
    with ctx.service.client(ctx.admin) as admin:
        before = len(admin.get("/api/jobs").json())
        cases = {
            "unknown judge": {"kind": "judge", "params": {"judge": "nobody", "paths": [five]}},
            "missing path": {"kind": "judge", "params": {"judge": "count", "paths": ["/no/x"]}},
            "unknown kind": {"kind": "train", "params": {}},
            "unknown option": {
                "kind": "judge",
                "params": {"judge": "count", "paths": [five], "x": 1},
            },
            "no paths": {"kind": "score", "params": {"judge": "count", "paths": []}},
            "bad split": {"kind": "calibrate", "params": {"judge": "count", "split": "test"}},
            "no calibrate run": {
                "kind": "score",
                "params": {"judge": "count", "paths": [five], "calibration_run": "feedbeef"},
            },
        }
        for what, body in cases.items():
            r = admin.post("/api/jobs", json=body)
            assert r.status_code == 422, (what, r.text)
            assert r.json()["detail"], what
        assert "no judge 'nobody'" in admin.post("/api/jobs", json=cases["unknown judge"]).text
        assert len(admin.get("/api/jobs").json()) == before
        assert admin.get("/api/jobs/nope").status_code == 404
        assert admin.post("/api/jobs/nope/cancel").status_code == 404
    ok = {"kind": "judge", "params": {"judge": "count", "paths": [five]}}
    with ctx.service.client(ctx.adjudicator) as adjudicator:
        assert adjudicator.post("/api/jobs", json=ok).status_code == 403
    with ctx.service.client(ctx.annotator) as annotator:
        assert annotator.get("/api/jobs").status_code == 403
    with ctx.service.client() as anonymous:
        assert anonymous.post("/api/jobs", json=ok).status_code == 401


def test_cancel_a_running_job_and_a_queued_one(ctx: Ctx) -> None:
    names = make_items(SRC, ctx.work / "forty", 40)
    many = {"kind": "judge", "params": {"judge": "slow", "paths": [str(ctx.work / "forty")]}}
    with ctx.service.client(ctx.admin) as admin:
        running = admin.post("/api/jobs", json=many).json()
        queued = admin.post("/api/jobs", json=many).json()  # the worker runs one job at a time
        deadline = time.monotonic() + 30
        while sum(ctx.slow.counts()["answered"].values()) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert admin.get(f"/api/jobs/{queued['id']}").json()["status"] == "queued"
        gone = admin.post(f"/api/jobs/{queued['id']}/cancel")
        assert gone.status_code == 200 and gone.json()["status"] == "cancelled"
        asked = admin.post(f"/api/jobs/{running['id']}/cancel")
        assert asked.status_code == 200 and asked.json()["status"] in ("cancelling", "cancelled")
        stopped = wait_job(admin, running["id"], "cancelled", "finished", "failed", timeout=15)
        assert stopped["status"] == "cancelled", stopped
        again = admin.post(f"/api/jobs/{running['id']}/cancel")
        assert again.status_code == 200 and again.json()["status"] == "cancelled"
        run = admin.get(f"/api/runs/{stopped['run_id']}").json()
        assert run["status"] == "failed" and run["report"] is None
        # a job sent after the cancelled one: the worker takes jobs in order, so once this one
        # has finished, the cancelled one was reached before it, and left alone
        small = make_items(SRC, ctx.work / "cancel-two", 2)
        assert small
        quick = {
            "kind": "judge",
            "params": {"judge": "count", "paths": [str(ctx.work / "cancel-two")]},
        }
        finished = wait_job(admin, admin.post("/api/jobs", json=quick).json()["id"], "finished")
        left = admin.get(f"/api/jobs/{queued['id']}").json()
        assert left["status"] == "cancelled" and left["run_id"] is None
        done = admin.post(f"/api/jobs/{finished['id']}/cancel")
        assert done.status_code == 409 and "finished" in done.json()["detail"]
    asked_total = sum(ctx.slow.counts()["requests"][n] for n in names)
    assert asked_total < len(names)  # it stopped well before the end


@pytest.mark.slow
def test_a_service_killed_mid_job_finishes_it_after_a_restart_judging_nothing_twice(
    tmp_path: Path,
) -> None:
    names = make_items(SRC, tmp_path / "items", 30)
    concurrency = 3
    with CountingEndpoint(latency_s=0.3) as endpoint, fresh_schema() as url:
        with running_service(url, data_root(tmp_path), "--worker", env=ENV) as first:
            token = first.user("root", "admin")
            with first.client(token) as admin:
                body = judge_yaml(endpoint.url, concurrency=concurrency)
                assert admin.post("/api/judges", params={"name": "c"}, content=body).is_success
                job = admin.post(
                    "/api/jobs",
                    json={
                        "kind": "judge",
                        "params": {"judge": "c", "paths": [str(tmp_path / "items")]},
                    },
                ).json()
                deadline = time.monotonic() + 30
                while sum(endpoint.counts()["answered"].values()) < 6:
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
                first.process.send_signal(signal.SIGKILL)
                first.process.wait(timeout=10)
                at_kill = sum(endpoint.counts()["requests"].values())
                assert at_kill < len(names)
                first_run = _job_row(url, job["id"])["run_id"]
                assert _job_row(url, job["id"])["status"] == "running"
        with running_service(url, tmp_path, "--worker", env=ENV) as second:
            with second.client(token) as admin:
                done = wait_job(admin, job["id"], "finished", "failed", timeout=60)
                assert done["status"] == "finished", (done, second.log.read_text()[-3000:])
                run = admin.get(f"/api/runs/{done['run_id']}").json()
                assert run["report"]["outcomes"] == {"verdict": len(names)}
                # the killed attempt's run is marked failed, not left running forever
                assert admin.get(f"/api/runs/{first_run}").json()["status"] == "failed"
            assert "starting it again" in second.log.read_text()
        counts = endpoint.counts()["requests"]
        engine = create_engine(url)
        try:
            with engine.connect() as conn:
                stored = conn.execute(text("SELECT count(*) FROM calibrant_judgments")).scalar()
        finally:
            engine.dispose()
    assert stored == len(names)  # one judgment per item
    # the endpoint saw each item once, but for the calls in flight when the service was killed
    assert set(counts) == set(names)
    asked_again = [n for n in names if counts[n] > 1]
    assert len(asked_again) <= concurrency, asked_again
    assert max(counts.values()) <= 2


def _job_row(url: str, job_id: str) -> dict[str, Any]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                text("SELECT status, run_id FROM calibrant_jobs WHERE id = :i"), {"i": job_id}
            ).one()
    finally:
        engine.dispose()
    return {"status": row[0], "run_id": row[1]}


@pytest.mark.slow
def test_jobs_wait_in_the_queue_until_a_calibrant_worker_takes_them(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    names = make_items(SRC, tmp_path / "items", 3)
    with CountingEndpoint() as endpoint, fresh_schema() as url:
        with running_service(url, data_root(tmp_path), env=ENV) as service:  # no worker inside
            token = service.user("root", "admin")
            with service.client(token) as admin:
                body = judge_yaml(endpoint.url)
                assert admin.post("/api/judges", params={"name": "c"}, content=body).is_success
                job = admin.post(
                    "/api/jobs",
                    json={
                        "kind": "judge",
                        "params": {"judge": "c", "paths": [str(tmp_path / "items")]},
                    },
                ).json()
                time.sleep(1.0)
                assert admin.get(f"/api/jobs/{job['id']}").json()["status"] == "queued"
                assert endpoint.counts()["requests"] == {}
                log = (tmp_path / "worker.log").open("w")
                worker = subprocess.Popen(
                    [sys.executable, "-m", "calibrant", "worker"],
                    cwd=ROOT,
                    env={
                        **os.environ,
                        **ENV,
                        "CALIBRANT_DATABASE_URL": url,
                        "CALIBRANT_DATA_ROOT": str(tmp_path),
                    },
                    stdout=subprocess.DEVNULL,
                    stderr=log,
                )
                try:
                    done = wait_job(admin, job["id"], "finished", "failed", timeout=60)
                finally:
                    worker.send_signal(signal.SIGTERM)
                    code = worker.wait(timeout=30)
                    log.close()
        asked = endpoint.counts()["requests"]
    assert done["status"] == "finished", (done, (tmp_path / "worker.log").read_text())
    assert code == 0, (tmp_path / "worker.log").read_text()  # SIGTERM: a clean stop
    assert asked == {n: 1 for n in names}
