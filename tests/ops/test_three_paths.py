"""Each of score, calibrate and compare gives the same result through its three paths — the
command line, the service's job runner (on a real SQLite store) and the queue's workers (a real
`calibrant worker` on PostgreSQL: `score --queue` for score, the service's queued jobs for
calibrate and compare) — on the same input, with the judge at a local fake endpoint whose
answers depend only on the transcript and the judge's temperature. Each path has its own fresh
store, so no path reads another's answers; only the run ids (and the calibration's wall-clock
figures) differ."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from calibrant.ops import jobrun, jobs
from calibrant.ops.catalog import add_judge
from calibrant.ops.jobrun import run_job
from calibrant.store import Store
from calibrant.store.runs import Runs
from tests.conftest import ROOT
from tests.support.fake_openai import FakeServer, fake_openai
from tests.support.gold import small_gold
from tests.support.pg import fresh_schema

pytestmark = pytest.mark.postgres

RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
RESAMPLES = "200"
NONCE = re.compile(r"[0-9a-f]{16}")  # the fence's nonce: secrets.token_hex(8)


def _answer(body: dict[str, Any]) -> str:
    """Labels picked by a digest of the prompt (its per-call random fence nonce left out) and
    the temperature: the same transcript gets the same answer from the same judge on every
    path; judges at two temperatures differ."""
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema") or {}
    prompt = NONCE.sub("", json.dumps(body.get("messages"), sort_keys=True))
    key = json.dumps([prompt, body.get("temperature")])
    digest = int(hashlib.sha256(key.encode()).hexdigest(), 16)
    out = {}
    for n, (crit, spec) in enumerate(sorted(schema.get("properties", {}).items())):
        props = spec["properties"]
        labels = props["label"]["enum"]
        ids = props["evidence"]["items"].get("enum") or []
        out[crit] = {
            "rationale": f"fake rationale for {crit}",
            "evidence": ids[:1],
            "label": labels[(digest >> (8 * n)) % len(labels)],
        }
    return json.dumps(out)


def _judge_yaml(url: str, temperature: float, work: Path) -> str:
    """A saved judge whose rubric file is a copy in `work`: the jobs' data root, where the
    service reads a judge's rubric file (the command line reads it anywhere)."""
    rubric = work / "rubric.yaml"
    if not rubric.exists():
        rubric.write_bytes(RUBRIC.read_bytes())
    return (
        f"model: openai/three\napi_base: {url}\nrubric: {rubric}\n"
        f"temperature: {temperature}\nmax_attempts: 1\n"
    )


VOLATILE = {"run_id", "created_at", "latency_ms_total", "finished_at", "started_at"}


def _same(report: dict[str, Any], volatile: set[str] = VOLATILE) -> Any:
    """The report without what differs between two runs of one input (ids, clocks)."""

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in volatile}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return strip(json.loads(json.dumps(report, default=str)))


@pytest.fixture(scope="module")
def judge() -> Iterator[FakeServer]:
    with fake_openai(_answer) as server:
        yield server


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory, judge: FakeServer) -> Path:
    work = tmp_path_factory.mktemp("three")
    small_gold(work / "gold", n=4)
    (work / "judges").mkdir()
    (work / "judges" / "a.yaml").write_text(_judge_yaml(judge.url, 0.0, work))
    (work / "judges" / "b.yaml").write_text(_judge_yaml(judge.url, 0.5, work))
    return work


@pytest.fixture(autouse=True)
def _data_root(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The jobs read the test's files: its folder is their data root (CALIBRANT_DATA_ROOT)."""
    monkeypatch.setenv("CALIBRANT_DATA_ROOT", str(work))


def _cli_store(work: Path, name: str) -> dict[str, str]:
    return {"CALIBRANT_DATABASE_URL": f"sqlite:///{work / f'{name}.db'}"}


def _stored(url: str, run_id: str) -> dict[str, Any]:
    with Store.open(url) as store:
        detail = Runs(store.engine).detail(run_id)
    assert detail is not None and detail.status == "finished", detail
    report = detail.report
    assert report is not None and not isinstance(report, dict), report  # its kind's model
    return report.json_data()


def _service_job(url: str, work: Path, request: Any) -> dict[str, Any]:
    """Run one service job through the service's job runner, in this process."""
    with Store.open(url) as store:
        for name in ("a", "b"):
            add_judge(store.engine, name, (work / "judges" / f"{name}.yaml").read_text(), "root")
        row = jobs.create(store.engine, request, "root")
        run_job(store, row.id)
        done = jobs.get(store.engine, row.id)
        assert done.status == "finished" and done.run_id, (done.status, done.error)
        run_id = done.run_id
    return _stored(url, run_id)


class _Worker:
    """A real `calibrant worker` process on a PostgreSQL store."""

    def __init__(self, url: str, log: Path, cwd: Path) -> None:
        self.url = url
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "calibrant", "worker"],
            cwd=cwd,  # where judges/*.yaml are, as for the command line
            env={**os.environ, "CALIBRANT_DATABASE_URL": url},
            stdout=subprocess.DEVNULL,
            stderr=log.open("w"),
            text=True,
        )

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)

    def job(self, work: Path, request: Any) -> dict[str, Any]:
        """Queue one service job on the store and wait for this worker to finish it."""
        with Store.open(self.url) as store:
            for name in ("a", "b"):
                text = (work / "judges" / f"{name}.yaml").read_text()
                add_judge(store.engine, name, text, "root")
            row = jobs.create(store.engine, request, "root")
            jobrun.enqueue(store.engine, self.url, row.id)
            deadline = time.monotonic() + 180
            while (done := jobs.get(store.engine, row.id)).status in ("queued", "running"):
                assert self.proc.poll() is None, self.log.read_text()
                assert time.monotonic() < deadline, self.log.read_text()
                time.sleep(0.2)
            assert done.status == "finished" and done.run_id, (done.error, self.log.read_text())
            run_id = done.run_id
        return _stored(self.url, run_id)


@pytest.fixture  # a fresh store per test: no path reads answers another test stored
def worker(tmp_path_factory: pytest.TempPathFactory, work: Path) -> Iterator[_Worker]:
    with fresh_schema() as url:
        w = _Worker(url, tmp_path_factory.mktemp("worker") / "worker.log", work)
        try:
            yield w
        finally:
            w.stop()


def _json(result: Any) -> dict[str, Any]:
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert isinstance(out, dict)
    return out


def test_score_is_the_same_through_the_cli_the_service_job_and_the_queue(
    cli: Callable[..., Any], work: Path, worker: _Worker
) -> None:
    items = str(work / "gold" / "transcripts")
    score = ["score", items, "--judge", "a"]
    by_cli = _json(cli(*score, "--json", cwd=work, env=_cli_store(work, "score-cli")))

    from calibrant.ops.jobs import ScoreJob, ScoreParams

    request = ScoreJob(kind="score", params=ScoreParams(judge="a", paths=[items]))
    by_job = _service_job(f"sqlite:///{work / 'score-job.db'}", work, request)

    pg = {"CALIBRANT_DATABASE_URL": worker.url}
    queued = cli(*score, "--queue", "--chunk", "3", cwd=work, env=pg)
    assert queued.code == 0, queued.err
    run_id = queued.out.strip()
    by_queue = _json(cli("score", "--wait", run_id, "--json", env=pg))

    assert by_cli["transcripts"] == 4 and by_cli["judge_outcomes"] == {"verdict": 4}
    assert by_queue["run_id"] == run_id
    assert len({by_cli["run_id"], by_job["run_id"], run_id}) == 3  # three runs, one result
    assert _same(by_job) == _same(by_cli)
    assert _same(by_queue) == _same(by_cli)


def test_calibrate_is_the_same_through_the_cli_the_service_job_and_the_worker(
    cli: Callable[..., Any], work: Path, worker: _Worker
) -> None:
    gold = str(work / "gold")
    args = ["calibrate", "--gold", gold, "--split", "all", "--judge", "a"]
    by_cli = _json(
        cli(*args, "--resamples", RESAMPLES, "--json", cwd=work, env=_cli_store(work, "cal-cli"))
    )

    from calibrant.ops.jobs import CalibrateJob, CalibrateParams

    params = CalibrateParams(judge="a", gold=gold, split="all", resamples=int(RESAMPLES))
    request = CalibrateJob(kind="calibrate", params=params)
    by_job = _service_job(f"sqlite:///{work / 'cal-job.db'}", work, request)
    by_worker = worker.job(work, request)

    assert by_cli["n_items"] == 4 and by_cli["judge_outcomes"] == {"verdict": 4}
    kappas = [c.get("judge_vs_consensus") for c in by_cli["criteria"]]
    assert kappas and all(k is not None for k in kappas)
    assert _same(by_job) == _same(by_cli)
    assert _same(by_worker) == _same(by_cli)


def test_compare_is_the_same_through_the_cli_the_service_job_and_the_worker(
    cli: Callable[..., Any], work: Path, worker: _Worker
) -> None:
    gold = str(work / "gold")
    by_cli = _json(
        cli(
            "compare",
            "a",
            "b",
            "--gold",
            gold,
            "--split",
            "all",
            "--resamples",
            RESAMPLES,
            "--json",
            cwd=work,
            env=_cli_store(work, "cmp-cli"),
        )
    )

    from calibrant.ops.jobs import CompareJob, CompareParams

    params = CompareParams(a="a", b="b", gold=gold, split="all", resamples=int(RESAMPLES))
    request = CompareJob(kind="compare", params=params)
    by_job = _service_job(f"sqlite:///{work / 'cmp-job.db'}", work, request)
    by_worker = worker.job(work, request)

    assert by_cli["judges"]["a"]["name"] == "a" and by_cli["judges"]["b"]["name"] == "b"
    assert [c["kappa_a"] for c in by_cli["criteria"]] != [c["kappa_b"] for c in by_cli["criteria"]]
    assert _same(by_job) == _same(by_cli)
    assert _same(by_worker) == _same(by_cli)
