"""`calibrant batch submit` / `score --submit` against a real OpenAI-compatible files + batches
server in its own process: the requests go through litellm's batch API, a kill -9 while polling
(or while the batch is being created) and a rerun resume the same provider batch, nothing is
submitted twice and no live completion call is made."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.support.cli import run_in_process
from tests.support.counting_endpoint import make_items
from tests.support.fake_batch_server import BatchServer

SRC = ROOT / "examples" / "transcripts" / "good-eligible.json"
OTHER = ROOT / "examples" / "transcripts" / "good-timeout.json"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}",
        "OPENAI_API_KEY": "sk-test-key",
        "COLUMNS": "200",
        **extra,
    }


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One command run to its end, in this process (tests/support/cli.py); the runs a test
    kills or starts side by side are real processes (_spawn)."""
    r = run_in_process(tuple(args), cwd=ROOT, env=env)
    return subprocess.CompletedProcess(args, r.code, r.out, r.err)


def _spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "calibrant", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
    )


def _until(what: str, cond: Any, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while not cond():
        assert proc.poll() is None, f"exited before {what}: {log.read_text()}"
        assert time.monotonic() < deadline, f"never {what}: {log.read_text()}"
        time.sleep(0.05)


def _batch_runs(tmp_path: Path) -> list[tuple[str, dict[str, Any]]]:
    with sqlite3.connect(tmp_path / "store.db") as db:
        rows = db.execute(
            "SELECT status, arguments FROM calibrant_runs WHERE kind = 'batch' ORDER BY started_at"
        ).fetchall()
    return [(str(s), json.loads(a)) for s, a in rows]


@pytest.mark.slow
def test_kill_9_while_polling_then_rerun_resumes_the_same_batch(tmp_path: Path) -> None:
    names = make_items(SRC, tmp_path / "items", 12)
    make_items(OTHER, tmp_path / "others", 2)  # other transcripts: not in the batch in flight
    env = _env(tmp_path)
    with BatchServer("--line-latency", "0.25") as server:
        judge = ["--model", "openai/batched", "--api-base", server.url, "--poll-interval", "0.1"]
        log = tmp_path / "first.log"
        first = _spawn(["score", str(tmp_path / "items"), *judge, "--submit"], env, log)
        _until(
            "polling",
            lambda: server.counts()["counts"].get("retrieves", 0) >= 2,
            first,
            log,
        )
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        assert first.returncode == -signal.SIGKILL
        [(status, args)] = _batch_runs(tmp_path)
        assert status == "running" and args["batch_id"].startswith("batch_")
        assert len(args["items"]) == len(names)
        assert "in_progress" in log.read_text() or "validating" in log.read_text()
        in_flight = _cli(["runs", "list", "--kind", "batch", "--json"], env)
        run_id = json.loads(in_flight.stdout)[0]["id"]
        shown = " ".join(_cli(["runs", "show", run_id], env).stdout.split())
        assert f"run {run_id} (batch, running)" in shown
        assert f"provider batch {args['batch_id']}: in flight" in shown
        assert "12 request(s): 12 transcript(s) x 1 sample(s)" in shown
        assert "no result stored yet" in shown and "the same command again" in shown

        # a batch of this judge is in flight for transcripts not given: refused in one line
        other = _cli(["score", str(tmp_path / "others"), *judge, "--submit"], env)
        assert other.returncode == 2, other.stderr
        errors = [x for x in other.stderr.splitlines() if x.startswith("calibrant:")]
        assert len(errors) == 1 and "still in flight for 12 transcript(s)" in errors[0]
        assert str(tmp_path / "items") in errors[0] and "Traceback" not in other.stderr

        again = _cli(["score", str(tmp_path / "items"), *judge, "--submit", "--json"], env)
        assert again.returncode == 0, again.stderr
        seen = server.counts()

    assert "resuming provider batch " + args["batch_id"] in again.stderr
    counts = seen["counts"]
    assert counts["files_created"] == 1 and counts["batches_created"] == 1, counts
    assert counts.get("completions", 0) == 0  # no live call, in either run
    assert seen["lines_run"] == {n: 1 for n in names}  # each request ran once, at the provider
    report = json.loads(again.stdout)
    assert report["transcripts"] == len(names)
    assert report["judge_outcomes"] == {"verdict": len(names)}
    assert report["failures"] == {}
    # answered by this run's batch, not from an earlier run; batch prices are never guessed
    assert report["from_cache"] == 0 and report["cost_usd"] is None
    [(status, args)] = _batch_runs(tmp_path)
    assert status == "finished"


@pytest.mark.slow
def test_kill_9_before_the_batch_id_was_recorded_finds_the_batch_by_its_run(
    tmp_path: Path,
) -> None:
    """Killed while the provider has created the batch but not yet answered with its id: the
    rerun finds that batch by the run id in its metadata instead of creating another."""
    names = make_items(SRC, tmp_path / "items", 4)
    env = _env(tmp_path)
    with BatchServer("--line-latency", "0.05", "--create-delay", "20") as server:
        judge = ["--model", "openai/batched", "--api-base", server.url, "--poll-interval", "0.1"]
        log = tmp_path / "first.log"
        first = _spawn(["batch", "submit", str(tmp_path / "items"), *judge], env, log)
        _until(
            "the batch was created",
            lambda: server.counts()["counts"].get("batches_created", 0) == 1,
            first,
            log,
        )
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        [(status, args)] = _batch_runs(tmp_path)
        assert status == "running" and args["input_file_id"] and args["batch_id"] is None
        run_id = json.loads(_cli(["runs", "list", "--json"], env).stdout)[0]["id"]
        shown = " ".join(_cli(["runs", "show", run_id], env).stdout.split())
        assert f"provider batch: being created; requests uploaded as {args['input_file_id']}" in (
            shown
        )
        assert "to collect it: the same command again" in shown

        again = _cli(["batch", "submit", str(tmp_path / "items"), *judge, "--json"], env)
        assert again.returncode == 0, again.stderr
        seen = server.counts()
    counts = seen["counts"]
    assert counts["files_created"] == 1 and counts["batches_created"] == 1, counts
    assert seen["lines_run"] == {n: 1 for n in names}
    [batch] = json.loads(again.stdout)["batches"]
    assert batch["resumed"] is True and batch["status"] == "completed"
    assert batch["ingested"]["outcomes"] == {"verdict": len(names)}
    assert _batch_runs(tmp_path)[0][0] == "finished"


def test_error_lines_and_an_expired_batch_become_failures_by_kind(tmp_path: Path) -> None:
    make_items(SRC, tmp_path / "items", 5)
    env = _env(tmp_path)
    with BatchServer(
        "--line-latency",
        "0.02",
        "--fail-items",
        "item-00001",
        "--expire-after",
        "3",
        in_thread=True,
    ) as server:
        judge = ["--model", "openai/batched", "--api-base", server.url, "--poll-interval", "0.1"]
        done = _cli(["score", str(tmp_path / "items"), *judge, "--submit", "--json"], env)
        assert done.returncode == 0, done.stderr
        seen = server.counts()["counts"]
    report = json.loads(done.stdout)
    # items 0 and 2 answered; item 1 an error line (500); items 3 and 4 never ran (expired)
    assert report["judge_outcomes"] == {"verdict": 2, "provider_error": 1, "timeout": 2}
    assert report["failures"]["provider_error"]["count"] == 1
    assert "worker lost" in report["failures"]["provider_error"]["sample"]
    assert report["failures"]["timeout"]["count"] == 2
    assert "expired" in done.stderr
    assert seen["batches_created"] == 1 and seen.get("completions", 0) == 0


def test_refused_credentials_and_models_without_a_batch_api_are_one_line(
    tmp_path: Path,
) -> None:
    make_items(SRC, tmp_path / "items", 2)
    env = _env(tmp_path)
    with BatchServer("--api-key", "the-right-key", in_thread=True) as server:
        judge = ["--model", "openai/batched", "--api-base", server.url]
        for cmd in (["batch", "submit"], ["score", "--submit"]):
            done = _cli([*cmd, str(tmp_path / "items"), *judge], env)
            assert done.returncode == 2, done.stderr
            lines = [x for x in done.stderr.splitlines() if x.strip()]
            assert lines[-1].startswith("calibrant: error: ") and "refused" in lines[-1]
            assert "sk-test-key" not in done.stderr
            assert not any("Traceback" in x for x in lines)
        seen = server.counts()["counts"]
    assert seen.get("batches_created", 0) == 0 and seen["refused"] == 2
    assert [s for s, _ in _batch_runs(tmp_path)] == ["failed", "failed"]  # nothing in flight
    refused = json.loads(_cli(["runs", "list", "--kind", "batch", "--json"], env).stdout)[0]
    shown = " ".join(_cli(["runs", "show", refused["id"]], env).stdout.split())
    assert f"run {refused['id']} (batch, failed)" in shown
    assert "provider batch: none; its requests never uploaded (run failed)" in shown
    assert "2 request(s): 2 transcript(s) x 1 sample(s)" in shown
    assert "error: " in shown and "refused" in shown and "sk-test-key" not in shown

    local = _cli(["batch", "submit", str(tmp_path / "items"), "--model", "ollama/llama3"], env)
    assert local.returncode == 2
    lines = [x for x in local.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "batch API" in lines[0], local.stderr  # before reading inputs

    queued = _cli(["score", "--wait", "0" * 32, "--submit"], env)
    assert queued.returncode == 2
    lines = [x for x in queued.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "--submit" in lines[0] and "--wait" in lines[0], queued.stderr


@pytest.mark.slow
def test_two_submits_at_once_make_one_batch(tmp_path: Path) -> None:
    """Started together on the same transcripts: the later run gives way and follows the
    earlier one's batch (or finds every answer stored); one upload, one batch."""
    names = make_items(SRC, tmp_path / "items", 6)
    env = _env(tmp_path)
    with BatchServer("--line-latency", "0.2") as server:
        judge = ["--model", "openai/batched", "--api-base", server.url, "--poll-interval", "0.1"]
        cmd = ["batch", "submit", str(tmp_path / "items"), *judge, "--json"]
        logs = [tmp_path / "a.log", tmp_path / "b.log"]
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "calibrant", *cmd],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=log.open("wb"),
            )
            for log in logs
        ]
        outs = [p.communicate(timeout=180)[0] for p in procs]
        seen = server.counts()
    assert [p.returncode for p in procs] == [0, 0], [log.read_text() for log in logs]
    assert seen["counts"]["batches_created"] == 1, seen
    assert seen["counts"]["files_created"] == 1, seen
    assert seen["lines_run"] == {n: 1 for n in names}
    followed = [json.loads(o)["batches"] for o in outs]
    ids = {b["batch_id"] for bs in followed for b in bs}
    assert len(ids) == 1  # the same provider batch, whichever followed it
    statuses = sorted(s for s, _ in _batch_runs(tmp_path))
    assert "finished" in statuses and set(statuses) <= {"finished", "failed"}


def test_runs_show_sums_up_a_batch_of_many_requests_and_json_keeps_every_one(
    tmp_path: Path,
) -> None:
    make_items(SRC, tmp_path / "items", 40)
    env = _env(tmp_path)
    with BatchServer(
        "--line-latency", "0.002", "--fail-items", "item-00001", in_thread=True
    ) as server:
        judge = ["--model", "openai/batched", "--api-base", server.url, "--poll-interval", "0.1"]
        cmd = ["batch", "submit", str(tmp_path / "items"), *judge, "--samples", "5", "--json"]
        done = _cli(cmd, env)
        assert done.returncode == 0, done.stderr
    [batch] = json.loads(done.stdout)["batches"]
    run_id = batch["run_id"]

    shown = _cli(["runs", "show", run_id[:10]], env)
    assert shown.returncode == 0, shown.stderr
    assert len(shown.stdout.splitlines()) <= 20, shown.stdout  # not one line per request
    text = " ".join(shown.stdout.split())
    assert f"run {run_id} (batch, finished)" in text
    assert f"provider batch {batch['batch_id']}: completed" in text
    assert "200 request(s): 40 transcript(s) x 5 sample(s)" in text
    # item-00001's five requests got an error line from the provider
    assert "outcomes: provider_error 5, verdict 195" in text
    assert "5 failure(s) a rerun submits again" in text
    assert f"calibrant runs show {run_id} --json" in text  # where the full detail is

    full = _cli(["runs", "show", run_id, "--json"], env)
    assert full.returncode == 0, full.stderr
    detail = json.loads(full.stdout)
    items = detail["arguments"]["items"]
    assert len(items) == 200 and {s for _, s in items} == set(range(5))
    assert len({th for th, _ in items}) == 40
    assert not any(th in shown.stdout for th, _ in items)  # the summary names no request
    assert detail["report"] == batch and detail["arguments"]["batch_id"] == batch["batch_id"]
