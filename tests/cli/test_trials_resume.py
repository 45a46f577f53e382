"""`calibrant trials` survives being killed: an incomplete-run marker in --out, a rerun of the
same command resumes without redoing finished trials (counted at a real OpenAI-compatible
endpoint), --restart starts over, and no scratch folder is left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CASES, ROOT, run_cli
from tests.harness.test_llm_agent import PLAN, scripted_model
from tests.support.fake_openai import FakeServer, fake_openai

CASE = CASES / "eligible_damaged_order.yaml"
K = 6
CALLS_PER_TRIAL = len(PLAN) + 2  # the plan's tool calls, the reply, and the second turn's reply
MARKER = "TRIALS_INCOMPLETE"
TIMING = ("latency_ms_mean", "latency_ms_p95")  # wall time differs between any two runs


def _args(server: FakeServer, out: Path, *extra: str) -> list[str]:
    return [
        "trials",
        str(CASE),
        "--agent",
        "llm:openai/counting",
        "--api-base",
        server.url,
        "-k",
        str(K),
        "--out",
        str(out),
        "--json",
        *extra,
    ]


def _env(tmp: Path) -> dict[str, str]:
    tmp.mkdir(exist_ok=True)
    # a store of its own, beside TMPDIR (whose leftovers the tests count): the child runs in
    # the repository, whose calibrant.db is no test's
    store = f"sqlite:///{tmp.parent / 'store.db'}"
    return {"TMPDIR": str(tmp), "OPENAI_API_KEY": "sk-test", "CALIBRANT_DATABASE_URL": store}


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "calibrant", *args],
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "200", **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _transcripts(out: Path) -> dict[str, tuple[int, str]]:
    """name -> (mtime_ns, content) of every transcript in `out`."""
    return {p.name: (p.stat().st_mtime_ns, p.read_text()) for p in sorted(out.glob("*.json"))}


def _wait_for(proc: subprocess.Popen[str], ready: Callable[[], bool]) -> None:
    """Wait until `ready()` while the run is still going."""
    deadline = time.time() + 120
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "the run made no progress"
        time.sleep(0.01)


def _kill_after(proc: subprocess.Popen[str], out: Path, done: int, sig: int) -> str:
    """Send `sig` once at least `done` transcripts are in `out` (the run is mid-way); its
    stderr."""
    _wait_for(proc, lambda: len(list(out.glob("*.json"))) >= done)
    proc.send_signal(sig)
    return proc.communicate(timeout=60)[1]


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in TIMING}


@pytest.mark.slow  # a real `calibrant trials` process, killed or running beside
def test_killed_run_resumes_without_redoing_finished_trials(tmp_path: Path) -> None:
    out, clean_out = tmp_path / "run", tmp_path / "clean"
    env = _env(tmp_path / "tmp")
    with fake_openai(scripted_model, latency_s=0.05) as server:
        proc = _start(_args(server, out), env)
        _kill_after(proc, out, 2, signal.SIGKILL)
        assert proc.returncode == -signal.SIGKILL
        finished = _transcripts(out)
        assert 2 <= len(finished) < K  # killed mid-run
        assert (out / MARKER).is_file()  # the folder says the run is incomplete

        before = server.requests["counting"]
        r = run_cli(*_args(server, out), env=env)
        assert r.code == 0, r.err
        rerun_requests = server.requests["counting"] - before
        # only the trials never finished were asked for again, in full
        assert rerun_requests == CALLS_PER_TRIAL * (K - len(finished))
        after = _transcripts(out)
        assert len(after) == K
        for name, (mtime, text) in finished.items():
            assert after[name] == (mtime, text), f"{name} was redone"
        assert "resum" in r.err and f"{len(finished)} of {K}" in r.err

        clean = run_cli(*_args(server, clean_out), env=env)
        assert clean.code == 0, clean.err
    resumed, fresh = json.loads(r.out), json.loads(clean.out)
    assert resumed["trials"] == K
    assert _comparable(resumed) == _comparable(fresh)
    assert resumed["latency_ms_mean"]["n"] == fresh["latency_ms_mean"]["n"] == K
    # finished: no marker, nothing but the transcripts in --out, no scratch folder anywhere
    assert sorted(p.name for p in out.iterdir()) == sorted(after)
    assert list((tmp_path / "tmp").iterdir()) == []
    assert run_cli("check", str(out), "--fail-on-violation").code == 0


@pytest.mark.slow  # a real `calibrant trials` process, killed or running beside
def test_sigterm_leaves_the_marker_and_no_scratch(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = _env(tmp_path / "tmp")
    with fake_openai(scripted_model, latency_s=0.05) as server:
        proc = _start(_args(server, out), env)
        err = _kill_after(proc, out, 1, signal.SIGTERM)
        assert proc.returncode in (130, 143), err
        assert "Traceback" not in err and "rerun the same command to resume" in err
        done = len(list(out.glob("*.json")))
        assert (out / MARKER).is_file()
        # cleaned on the way out: only transcripts and the marker stay
        assert sorted(p.name for p in out.iterdir()) == sorted(
            [MARKER, *(p.name for p in out.glob("*.json"))]
        )
        assert list((tmp_path / "tmp").iterdir()) == []
        before = server.requests["counting"]
        r = run_cli(*_args(server, out), env=env)
        assert r.code == 0, r.err
        assert server.requests["counting"] - before == CALLS_PER_TRIAL * (K - done)
    assert not (out / MARKER).exists()


@pytest.mark.slow  # a real `calibrant trials` process, killed or running beside
def test_restart_discards_an_incomplete_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = _env(tmp_path / "tmp")
    with fake_openai(scripted_model, latency_s=0.05) as server:
        proc = _start(_args(server, out), env)
        _kill_after(proc, out, 2, signal.SIGKILL)
        old = _transcripts(out)
        before = server.requests["counting"]
        r = run_cli(*_args(server, out, "--restart"), env=env)
        assert r.code == 0, r.err
        assert server.requests["counting"] - before == CALLS_PER_TRIAL * K  # every trial again
    new = _transcripts(out)
    assert len(new) == K and all(new[name] != old[name] for name in old)
    assert sorted(p.name for p in out.iterdir()) == sorted(new)
    assert list((tmp_path / "tmp").iterdir()) == []


def _one_line(r: Any) -> str:
    assert r.code == 2, (r.code, r.err)
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    return str(lines[0])


@pytest.mark.slow  # a real `calibrant trials` process, killed or running beside
def test_resume_with_another_command_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = _env(tmp_path / "tmp")
    with fake_openai(scripted_model, latency_s=0.05) as server:
        proc = _start(_args(server, out), env)
        _kill_after(proc, out, 1, signal.SIGKILL)
        old = _transcripts(out)
        args = _args(server, out)
        args[args.index("-k") + 1] = str(K + 1)
        before = server.requests["counting"]
        line = _one_line(run_cli(*args, env=env))
        assert str(out) in line and "--restart" in line and f"k {K}, not {K + 1}" in line
        assert server.requests["counting"] == before
    assert _transcripts(out) == old and (out / MARKER).is_file()


def test_finished_run_is_not_silently_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["trials", str(CASE), "--agent", "scripted:correct", "-k", "2", "--out", str(out)]
    assert run_cli(*args).code == 0
    old = _transcripts(out)
    line = _one_line(run_cli(*args))
    assert str(out) in line and "--restart" in line
    assert _transcripts(out) == old
    r = run_cli(*args, "--restart")
    assert r.code == 0, r.err
    assert sorted(_transcripts(out)) == sorted(old)


@pytest.mark.slow  # a real `calibrant trials` process, killed or running beside
def test_a_second_run_into_a_busy_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = _env(tmp_path / "tmp")
    with fake_openai(scripted_model, latency_s=0.05) as server:
        proc = _start(_args(server, out), env)
        try:
            _wait_for(proc, (out / MARKER).exists)
            line = _one_line(run_cli(*_args(server, out, "--restart"), env=env))
            assert str(out) in line and "in use" in line
        finally:
            _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err  # the first run was not disturbed
    assert len(_transcripts(out)) == K and not (out / MARKER).exists()
