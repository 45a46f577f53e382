"""A run whose process died is shown as `interrupted`, not `running` forever (issue 19, item 8):
by its pid on this host at once, by its lease anywhere; in `Runs`, `runs list`, `runs show` and
the API. Runs that outlive their process (a provider batch, a queued scoring run) are not."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from calibrant.store import make_engine
from calibrant.store.runs import Runs
from tests.conftest import ROOT, Result
from tests.support.clock import FakeClock
from tests.support.fake_openai import answer_from_schema, fake_openai
from tests.support.gold import small_gold
from tests.support.pg import fresh_schema
from tests.support.service import running_service


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        yield make_engine(f"sqlite:///{tmp_path / 'runs.db'}")
        return
    with fresh_schema() as url:
        e = make_engine(url)
        yield e
        e.dispose()


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _set_process(engine: Engine, run_id: str, process: dict[str, Any]) -> None:
    with engine.begin() as conn:
        raw = conn.execute(text("SELECT arguments FROM calibrant_runs WHERE id=:i"), {"i": run_id})
        arguments = json.loads(raw.scalar_one())
        arguments["_process"] = process
        conn.execute(
            text("UPDATE calibrant_runs SET arguments=:a WHERE id=:i"),
            {"a": json.dumps(arguments), "i": run_id},
        )


def _shown(runs: Runs, run_id: str) -> tuple[str, str]:
    listed = {r.id: r.status for r in runs.recent()}
    detail = runs.detail(run_id)
    assert detail is not None
    return listed[run_id], detail.status


def _lease(runs: Runs, run_id: str) -> float:
    detail = runs.detail(run_id)
    assert detail is not None and detail.process is not None
    return detail.process.lease_until


def test_a_run_whose_process_ended_is_interrupted(engine: Engine) -> None:
    runs = Runs(engine)
    run_id = runs.start("calibrate", arguments={"split": "all"})
    try:
        assert _shown(runs, run_id) == ("running", "running")  # this process: alive
        detail = runs.detail(run_id)
        assert detail is not None and detail.arguments == {"split": "all"}
        assert detail.process is not None
        assert detail.process.owner.startswith(f"{socket.gethostname()}:{os.getpid()}:")
        here = socket.gethostname()
        _set_process(engine, run_id, {"owner": f"{here}:{_dead_pid()}:x", "lease_until": 2e9})
        assert _shown(runs, run_id) == ("interrupted", "interrupted")  # at once, by its pid
        # another host: its pid cannot be seen here, its lease tells
        later, past = time.time() + 600, time.time() - 1
        _set_process(engine, run_id, {"owner": "elsewhere:1:x", "lease_until": later})
        assert _shown(runs, run_id) == ("running", "running")
        _set_process(engine, run_id, {"owner": "elsewhere:1:x", "lease_until": past})
        assert _shown(runs, run_id) == ("interrupted", "interrupted")
    finally:
        runs.finish(run_id, {"ok": True})
    assert _shown(runs, run_id) == ("finished", "finished")  # a settled run is what it is


def test_runs_that_outlive_their_process_and_old_rows_show_as_stored(engine: Engine) -> None:
    runs = Runs(engine)
    batch = runs.start("batch", arguments={"owner": "elsewhere:1:x"}, process=False)
    assert _shown(runs, batch) == ("running", "running")
    detail = runs.detail(batch)
    assert detail is not None and detail.process is None
    with engine.begin() as conn:  # a row written by the previous version: no process recorded
        conn.execute(text("UPDATE calibrant_runs SET arguments='{}' WHERE id=:i"), {"i": batch})
    assert _shown(runs, batch) == ("running", "running")


def test_the_lease_is_renewed_while_the_process_lives(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The heartbeat renews every lease / 4 seconds of real time (0.1 s here); the lease is read
    on the test's clock, which has moved past the first lease's end."""
    monkeypatch.setenv("CALIBRANT_CLAIM_LEASE_S", "0.4")
    clock = FakeClock()
    runs = Runs(engine, clock=clock)
    run_id = runs.start("score")
    try:
        first = _lease(runs, run_id)
        assert first == clock() + 0.4
        clock.advance(0.6)  # without a renewal the run would now show as interrupted
        deadline = time.monotonic() + 30
        while (renewed := _lease(runs, run_id)) == first:
            assert time.monotonic() < deadline, "the heartbeat never renewed the lease"
            time.sleep(0.01)
        assert renewed == clock() + 0.4 and renewed > first
        assert _shown(runs, run_id) == ("running", "running")
    finally:
        runs.finish(run_id, None)


@pytest.mark.slow  # a real `calibrate` process killed with SIGKILL, then the CLI and the API
def test_a_killed_calibration_is_interrupted_in_the_cli_and_the_api(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    env = {**os.environ, "CALIBRANT_DATABASE_URL": url, "OPENAI_API_KEY": "x"}
    gold = small_gold(tmp_path / "gold", n=4)
    engine = make_engine(url)
    with fake_openai(answer_from_schema(lambda c, labels: labels[0]), latency_s=30) as server:
        args = ["calibrate", "--model", "openai/hangs", "--api-base", server.url]
        proc = subprocess.Popen(
            [sys.executable, "-m", "calibrant", *args, "--gold", str(gold), "--split", "all"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while not Runs(engine).recent():
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.2)
            assert Runs(engine).recent()[0].status == "running"
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    run_id = Runs(engine).recent()[0].id
    store = {"CALIBRANT_DATABASE_URL": url}
    listed = json.loads(cli("runs", "list", "--json", env=store).out)
    assert [r["status"] for r in listed] == ["interrupted"]
    shown = cli("runs", "show", run_id[:8], env=store)
    assert shown.code == 0 and "interrupted" in shown.out.splitlines()[0]
    assert "ended" in shown.out  # and why
    with running_service(url, tmp_path) as s:
        admin = s.client(s.user("liveness-admin", "admin"))
        assert [r["status"] for r in admin.get("/api/runs").json()] == ["interrupted"]
        assert admin.get(f"/api/runs/{run_id}").json()["status"] == "interrupted"
