"""Crash safety, concurrency and refused credentials of `calibrant judge`, against a local
OpenAI-compatible endpoint (its own process) that counts requests per item. Runs that are killed
or run side by side are real processes; a run that goes to its end alone runs through the `cli`
fixture (the exit code, stdout and stderr a child would give, see tests/support/cli.py)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import ROOT
from tests.support.cli import Result
from tests.support.counting_endpoint import CountingEndpoint, make_items
from tests.support.pg import BACKENDS, PG

SRC = ROOT / "examples" / "transcripts" / "good-eligible.json"
CONCURRENCY = 4

Cli = Callable[..., Result]

PROGRESS = re.compile(r"^\d+/\d+ ")  # the progress lines of a run without a terminal


def judge_args(items: Path, url: str, *extra: str) -> tuple[str, ...]:
    """`calibrant judge` of `items` at the counting endpoint `url`, JSON report on stdout."""
    return (
        "judge",
        str(items),
        *("--model", "openai/count", "--api-base", url),
        *("--concurrency", str(CONCURRENCY), "--json", *extra),
    )


def start(items: Path, url: str, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "calibrant", *judge_args(items, url, *extra)],
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "200", **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_answers(
    endpoint: CountingEndpoint, at_least: int, proc: subprocess.Popen[str]
) -> None:
    deadline = time.monotonic() + 120
    while sum(endpoint.counts()["answered"].values()) < at_least:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never got going"
        time.sleep(0.05)


@pytest.fixture
def sqlite_env(tmp_path: Path) -> dict[str, str]:
    return {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}


@pytest.fixture
def pg_env() -> Iterator[dict[str, str]]:
    schema = f"calibrant_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield {"CALIBRANT_DATABASE_URL": f"{PG}?options=-csearch_path%3D{schema}"}
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@pytest.mark.slow  # real processes, killed
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_a_killed_run_loses_no_answer_it_received(
    how: signal.Signals, tmp_path: Path, sqlite_env: dict[str, str]
) -> None:
    names = make_items(SRC, tmp_path / "items", 60)
    with CountingEndpoint(latency_s=0.3) as endpoint:
        proc = start(tmp_path / "items", endpoint.url, sqlite_env)
        wait_for_answers(endpoint, 14, proc)
        proc.send_signal(how)
        out, err = proc.communicate(timeout=60)
        if how == signal.SIGTERM:  # drained like Ctrl-C: one line, no traceback
            assert proc.returncode == 143, err
            # progress lines ("n/total judgments ...") aside, one line says what happened
            said = [ln for ln in err.splitlines() if ln.strip() and not PROGRESS.match(ln)]
            assert said == ["calibrant: terminated"], err
        else:
            assert proc.returncode == -signal.SIGKILL
        first = endpoint.counts()["requests"]
        assert 14 <= sum(first.values()) < len(names)  # killed mid-run
        rerun = start(tmp_path / "items", endpoint.url, sqlite_env)
        out, err = rerun.communicate(timeout=300)
        assert rerun.returncode == 0, err
        doc = json.loads(out)
        counts = endpoint.counts()["requests"]
    assert doc["outcomes"] == {"verdict": len(names)}
    assert set(counts) == set(names)
    asked_again = [n for n in names if counts[n] > 1]
    # only the calls in flight at the kill (at most one per slot) may be asked once more
    assert len(asked_again) <= CONCURRENCY, asked_again
    assert max(counts.values()) <= 2
    never_asked = [n for n in names if n not in first]
    assert doc["model_calls"] == len(never_asked) + len(asked_again)


@pytest.mark.slow  # three real processes on one store
@pytest.mark.parametrize("backend", BACKENDS)
def test_three_processes_on_one_store_pay_once_per_item(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    env = request.getfixturevalue("sqlite_env" if backend == "sqlite" else "pg_env")
    names = make_items(SRC, tmp_path / "items", 45)
    with CountingEndpoint(latency_s=0.2) as endpoint:
        procs = [start(tmp_path / "items", endpoint.url, env) for _ in range(3)]
        results = [p.communicate(timeout=300) for p in procs]
        counts = endpoint.counts()["requests"]
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err
        assert "Traceback" not in err
        doc = json.loads(out)
        assert doc["outcomes"] == {"verdict": len(names)}  # every item has its verdict
    assert sum(counts.values()) == len(names)  # requests == distinct items
    assert set(counts) == set(names) and set(counts.values()) == {1}
    calls = [json.loads(out)["model_calls"] for out, _ in results]
    assert sum(calls) == len(names)


@pytest.mark.parametrize("model", ["always-401", "always-403"])
def test_refused_credentials_stop_the_run_in_one_line(
    model: str,
    tmp_path: Path,
    sqlite_env: dict[str, str],
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_items(SRC, tmp_path / "items", 30)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with CountingEndpoint(in_thread=True) as endpoint:
        r = cli(
            "judge",
            str(tmp_path / "items"),
            *("--model", f"openai/{model}", "--api-base", endpoint.url),
            *("--concurrency", "2", "--max-attempts", "4"),
            env=sqlite_env,
        )
        asked = sum(endpoint.counts()["requests"].values())
    assert r.code == 2, r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.err
    assert "'openai'" in lines[0] and "OPENAI_API_KEY" in lines[0]
    assert asked <= 2  # the slots already in flight; no retry, no rest of the batch


def test_a_cached_rerun_at_another_url_or_of_reformatted_files_makes_no_call(
    tmp_path: Path, sqlite_env: dict[str, str], cli: Cli
) -> None:
    names = make_items(SRC, tmp_path / "items", 12)
    with CountingEndpoint(in_thread=True) as first, CountingEndpoint(in_thread=True) as second:
        r = cli(*judge_args(tmp_path / "items", first.url), env=sqlite_env)
        assert r.code == 0, r.err
        assert json.loads(r.out)["model_calls"] == len(names)
        # the same model and settings served at another address is the same judge
        r = cli(*judge_args(tmp_path / "items", second.url), env=sqlite_env)
        assert r.code == 0, r.err
        doc = json.loads(r.out)
        assert doc["model_calls"] == 0 and doc["from_cache"] == len(names)
        assert sum(second.counts()["requests"].values()) == 0
        # other bytes, same transcripts (re-indented): found by content, still no call
        for f in (tmp_path / "items").glob("*.json"):
            f.write_text(json.dumps(json.loads(f.read_text()), indent=4))
        r = cli(*judge_args(tmp_path / "items", second.url), env=sqlite_env)
        assert r.code == 0, r.err
        again = json.loads(r.out)
        assert again["model_calls"] == 0 and again["from_cache"] == len(names)
        assert sum(second.counts()["requests"].values()) == 0
        assert sum(first.counts()["requests"].values()) == len(names)
    assert again["transcripts"] == doc["transcripts"]  # the same report, safety included


def test_calibrate_stops_on_refused_credentials_before_the_batch(
    tmp_path: Path, sqlite_env: dict[str, str], cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with CountingEndpoint(in_thread=True) as endpoint:
        r = cli(
            "calibrate",
            *("--model", "openai/always-401", "--api-base", endpoint.url, "--concurrency", "2"),
            env=sqlite_env,
        )
        asked = sum(endpoint.counts()["requests"].values())
    assert r.code == 2, r.err
    assert "Traceback" not in r.err
    assert "OPENAI_API_KEY" in r.err.strip().splitlines()[-1]
    assert asked <= 2
