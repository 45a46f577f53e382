"""Several `calibrant worker` processes share one queued batch (`calibrant score --queue`) on a
real PostgreSQL, against a local counting endpoint in its own process; one worker is killed with
kill -9 mid-run and its job is finished by the others without paying twice for any answer."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import ROOT
from tests.support.counting_endpoint import CountingEndpoint, make_items

pytestmark = pytest.mark.postgres

SRC = ROOT / "examples" / "transcripts" / "good-eligible.json"
PG = "postgresql+psycopg2://postgres@127.0.0.1:5432/test"
JUDGE_CONCURRENCY = 3
UNREACHABLE_JUDGE = ["--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1"]  # never asked


def run(
    args: list[str], env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "calibrant", *args],
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "200", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def worker(env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "calibrant", "worker", "--concurrency", "1"],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        text=True,
    )


@pytest.fixture
def pg_env() -> Iterator[dict[str, str]]:
    schema = f"calibrant_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield {
            "CALIBRANT_DATABASE_URL": f"{PG}?options=-csearch_path%3D{schema}",
            # a silent worker is stalled after 6 s: long enough that a live worker on a loaded
            # two-core machine is not taken for dead, short enough for the kill tests
            "CALIBRANT_WORKER_HEARTBEAT_S": "2",
        }
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def query(env: dict[str, str], sql: str, **params: object) -> list[tuple[object, ...]]:
    """Rows of `sql` in the test's schema ({schema} in `sql` names it)."""
    schema = env["CALIBRANT_DATABASE_URL"].rsplit("%3D", 1)[1]
    engine = create_engine(PG)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql.format(schema=schema)), params)]
    finally:
        engine.dispose()


def holder_of_a_claim(
    env: dict[str, str], workers: list[subprocess.Popen[str]]
) -> subprocess.Popen[str]:
    """A worker process that holds a claim in the store right now (owner is host:pid:random)."""
    by_pid = {w.pid: w for w in workers}
    deadline = time.monotonic() + 30
    while True:
        owners = query(env, "SELECT owner FROM {schema}.calibrant_claims")
        pids = {int(str(o).split(":")[1]) for (o,) in owners} & set(by_pid)
        if pids:
            return by_pid[min(pids)]
        assert time.monotonic() < deadline, "no worker ever held a claim"
        time.sleep(0.02)


def scores(env: dict[str, str], run_id: str) -> list[tuple[int, str, str]]:
    rows = query(
        env,
        "SELECT position, source, judge_outcome FROM {schema}.calibrant_scores "
        "WHERE run_id = :r ORDER BY position",
        r=run_id,
    )
    return [(int(str(p)), str(s), str(o)) for p, s, o in rows]


def test_three_workers_one_killed_score_every_item_once(
    tmp_path: Path, pg_env: dict[str, str]
) -> None:
    names = make_items(SRC, tmp_path / "items", 90)
    with CountingEndpoint(latency_s=0.3) as endpoint:
        judge = ["--model", "openai/count", "--api-base", endpoint.url]
        queued = run(
            [
                "score",
                str(tmp_path / "items"),
                *judge,
                "--queue",
                "--chunk",
                "6",
                "--concurrency",
                str(JUDGE_CONCURRENCY),
            ],
            pg_env,
        )
        assert queued.returncode == 0, queued.stderr
        run_id = queued.stdout.strip()
        assert len(run_id) == 32, queued.stdout
        assert endpoint.counts()["requests"] == Counter()  # queued, nothing judged yet

        logs = [tmp_path / f"worker{k}.log" for k in range(3)]
        workers = [worker(pg_env, log) for log in logs]
        try:
            # a guard against workers that never start, not a measure: three workers each
            # import litellm (~3.5 s of CPU) before their first job, which took 39 s with
            # three copies of this test on the two cores and over 60 s at a higher load
            deadline = time.monotonic() + 180
            while sum(endpoint.counts()["answered"].values()) < 15:
                assert all(w.poll() is None for w in workers), [p.read_text() for p in logs]
                assert time.monotonic() < deadline, "the workers never got going"
                time.sleep(0.05)
            victim = holder_of_a_claim(pg_env, workers)  # a worker with calls in flight
            victim.send_signal(signal.SIGKILL)
            victim.wait(timeout=10)
            at_kill = sum(endpoint.counts()["requests"].values())
            assert at_kill < len(names)  # killed mid-run

            waited = run(["score", "--wait", run_id, "--json"], pg_env, timeout=80)
            assert waited.returncode == 0, waited.stderr + "".join(p.read_text() for p in logs)
            report = json.loads(waited.stdout)
        finally:
            for w in workers:
                if w.poll() is None:
                    w.send_signal(signal.SIGTERM)
            codes = {w.pid: w.wait(timeout=30) for w in workers}
        counts = endpoint.counts()["requests"]

    assert victim.returncode == -signal.SIGKILL
    others = [w for w in workers if w is not victim]
    # told to stop, the others stop cleanly
    assert [codes[w.pid] for w in others] == [0, 0], [p.read_text() for p in logs]
    survivors = [log.read_text() for w, log in zip(workers, logs, strict=True) if w is not victim]
    assert not any("Traceback" in text for text in survivors), survivors
    # the killed worker's job went back to the queue and another worker finished it; each
    # stalled job is put back once (twice, a live worker that had just taken it lost it)
    retried = Counter(re.findall(r"retrying job (\d+) of a stalled worker", "".join(survivors)))
    assert retried and set(retried.values()) == {1}, survivors
    # every item scored exactly once in the run's rows, each with a verdict
    rows = scores(pg_env, run_id)
    assert [p for p, _, _ in rows] == list(range(len(names)))
    assert sorted(Path(s).stem for _, s, _ in rows) == names
    assert {o for _, _, o in rows} == {"verdict"}
    assert report["run_id"] == run_id
    assert report["transcripts"] == len(names)
    assert report["judge_outcomes"] == {"verdict": len(names)}
    # the endpoint saw each item once, but for the calls in flight in the killed worker
    assert set(counts) == set(names)
    asked_again = [n for n in names if counts[n] > 1]
    assert len(asked_again) <= JUDGE_CONCURRENCY, asked_again
    assert sum(counts.values()) == len(names) + len(asked_again)
    assert max(counts.values()) <= 2


def test_queue_is_refused_on_sqlite_in_one_line(tmp_path: Path) -> None:
    make_items(SRC, tmp_path / "items", 3)
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    done = run(
        ["score", str(tmp_path / "items"), *UNREACHABLE_JUDGE, "--queue"],
        env,
    )
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "PostgreSQL" in lines[0], done.stderr
    assert not (tmp_path / "store.db").exists()  # nothing written
    for cmd in (["worker"], ["score", "--wait", "0" * 32]):
        other = run(cmd, env)
        assert other.returncode == 2, other.stderr
        assert "PostgreSQL" in other.stderr


def test_a_bad_line_queues_nothing(tmp_path: Path, pg_env: dict[str, str]) -> None:
    make_items(SRC, tmp_path / "items", 4)
    good = (tmp_path / "items" / "item-00000.json").read_text()
    (tmp_path / "items" / "more.jsonl").write_text(json.dumps(json.loads(good)) + "\n{oops\n")
    done = run(
        ["score", str(tmp_path / "items"), *UNREACHABLE_JUDGE, "--queue"],
        pg_env,
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "more.jsonl" in lines[0] and ":2" in lines[0], done.stderr
    assert done.stdout == ""  # no run id
    schema = pg_env["CALIBRANT_DATABASE_URL"].rsplit("%3D", 1)[1]
    found = {
        str(t)
        for (t,) in query(
            pg_env,
            "SELECT table_name FROM information_schema.tables WHERE table_schema = :s",
            s=schema,
        )
    }
    for table in ("procrastinate_jobs", "calibrant_runs", "calibrant_scores"):
        if table in found:  # the store may exist; nothing is in it
            assert query(pg_env, f"SELECT count(*) FROM {{schema}}.{table}") == [(0,)], table


def test_a_job_that_fails_on_every_retry_fails_its_run_with_the_reason(
    tmp_path: Path, pg_env: dict[str, str]
) -> None:
    make_items(SRC, tmp_path / "items", 2)
    with CountingEndpoint() as endpoint:
        judge = ["--model", "openai/count", "--api-base", endpoint.url]
        queued = run(["score", str(tmp_path / "items"), *judge, "--queue", "--chunk", "1"], pg_env)
        assert queued.returncode == 0, queued.stderr
        run_id = queued.stdout.strip()
        gone = tmp_path / "items" / "item-00001.json"
        gone.unlink()  # its job can never load it: every attempt fails
        log = tmp_path / "worker.log"
        w = worker(pg_env, log)
        try:
            waited = run(["score", "--wait", run_id], pg_env, timeout=120)
        finally:
            w.send_signal(signal.SIGTERM)
            w.wait(timeout=30)
    assert waited.returncode == 2, waited.stderr + log.read_text()
    errors = [x for x in waited.stderr.splitlines() if x.startswith("calibrant:")]
    assert len(errors) == 1, waited.stderr
    assert f"run {run_id} failed" in errors[0]
    # the retry strategy allows 3 retries: 4 attempts, each refused the same way
    assert "transcripts 2-2 failed on each of its 4 attempt(s)" in errors[0]
    assert str(gone) in errors[0] and "no such file" in errors[0]
    assert "Traceback" not in waited.stderr

    shown = run(["runs", "show", run_id, "--json"], pg_env)
    assert shown.returncode == 0, shown.stderr
    detail = json.loads(shown.stdout)
    assert detail["status"] == "failed" and detail["finished_at"] is not None
    assert detail["error"] == errors[0].split("failed: ", 1)[1].split("; fix it")[0]
    jobs = query(
        pg_env,
        "SELECT status::text, attempts FROM {schema}.procrastinate_jobs ORDER BY id",
    )
    assert sorted(jobs) == [("failed", 4), ("succeeded", 1)]  # the other item was scored


def test_a_worker_with_two_jobs_at_once_leaves_nothing_of_litellm_pending(
    tmp_path: Path, pg_env: dict[str, str]
) -> None:
    """Two jobs at once used to judge on two event loops in one process: litellm's one logging
    worker moved between them, and the loop it left lost a task still pending ("Task was
    destroyed but it is pending!") or re-ran a finished coroutine ("cannot reuse already
    awaited coroutine"). All model calls of a worker now run on one loop, drained at exit."""
    env = {**pg_env, "CALIBRANT_WORKER_HEARTBEAT_S": "10"}  # no stall rescue in this test
    names = make_items(SRC, tmp_path / "items", 24)
    with CountingEndpoint(latency_s=0.05) as endpoint:
        judge = ["--model", "openai/count", "--api-base", endpoint.url]
        queued = run(["score", str(tmp_path / "items"), *judge, "--queue", "--chunk", "2"], env)
        assert queued.returncode == 0, queued.stderr
        run_id = queued.stdout.strip()
        log = tmp_path / "worker.log"
        w = subprocess.Popen(
            [sys.executable, "-m", "calibrant", "worker", "--concurrency", "2"],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=log.open("w"),
            text=True,
        )
        try:
            waited = run(["score", "--wait", run_id, "--json"], env, timeout=120)
        finally:
            w.send_signal(signal.SIGTERM)
            code = w.wait(timeout=30)
        assert sum(endpoint.counts()["answered"].values()) == len(names)
    stderr = log.read_text()
    assert waited.returncode == 0, waited.stderr + stderr
    assert json.loads(waited.stdout)["judge_outcomes"] == {"verdict": len(names)}
    assert code == 0, stderr
    assert "Task was destroyed but it is pending" not in stderr, stderr
    assert "never awaited" not in stderr, stderr
    assert "LoggingWorker" not in stderr, stderr  # litellm's logging never saw a loop change
    assert "Traceback" not in stderr, stderr
