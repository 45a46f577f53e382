"""`calibrant score` keeps the crash and concurrency promises with group commit (answers and
claims written in groups): a run killed with kill -9 mid-batch loses only the calls in flight,
and three processes scoring one batch on one store pay once per item, on SQLite and PostgreSQL.
Real processes against a local endpoint (its own process) that counts requests per item."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_judge_durability import pg_env, sqlite_env, wait_for_answers  # noqa: F401
from tests.conftest import ROOT
from tests.support.counting_endpoint import CountingEndpoint, make_items
from tests.support.pg import BACKENDS

pytestmark = pytest.mark.slow  # real processes, each importing litellm

SRC = ROOT / "examples" / "transcripts" / "good-eligible.json"
CONCURRENCY = 6


def start(items: Path, url: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "calibrant", "score", str(items), "--model", "openai/count"]
        + ["--api-base", url, "--concurrency", str(CONCURRENCY), "--json"],
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "200", **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_score_run_killed_mid_batch_re_asks_at_most_the_calls_in_flight(
    tmp_path: Path,
    sqlite_env: dict[str, str],  # noqa: F811
) -> None:
    names = make_items(SRC, tmp_path / "items", 80)
    with CountingEndpoint(latency_s=0.2) as endpoint:
        proc = start(tmp_path / "items", endpoint.url, sqlite_env)
        wait_for_answers(endpoint, 25, proc)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        first = endpoint.counts()["requests"]
        assert 25 <= sum(first.values()) < len(names)  # killed mid-run
        rerun = start(tmp_path / "items", endpoint.url, sqlite_env)
        out, err = rerun.communicate(timeout=300)
        assert rerun.returncode == 0, err
        counts = endpoint.counts()["requests"]
    doc = json.loads(out)
    assert doc["transcripts"] == len(names)
    assert doc["judge_outcomes"] == {"verdict": len(names)}
    asked_again = [n for n in names if counts[n] > 1]
    # only the calls in flight at the kill (one per slot) may be asked once more; items claimed
    # and prompted ahead of a slot were never sent
    assert len(asked_again) <= CONCURRENCY, asked_again
    assert set(counts) == set(names) and max(counts.values()) <= 2
    assert doc["from_cache"] == len(names) - len([n for n in names if n not in first]) - len(
        asked_again
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_three_score_processes_on_one_store_pay_once_per_item(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    env = request.getfixturevalue("sqlite_env" if backend == "sqlite" else "pg_env")
    names = make_items(SRC, tmp_path / "items", 60)
    with CountingEndpoint(latency_s=0.1) as endpoint:
        procs = [start(tmp_path / "items", endpoint.url, env) for _ in range(3)]
        results = [p.communicate(timeout=300) for p in procs]
        counts = endpoint.counts()["requests"]
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err
        assert "Traceback" not in err
        doc = json.loads(out)
        assert doc["judge_outcomes"] == {"verdict": len(names)}  # every item has its verdict
    assert set(counts) == set(names) and set(counts.values()) == {1}  # one request per item
