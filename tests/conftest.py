"""Shared fixtures: the shipped cases, trial runs cached per session, a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from calibrant.contracts import CaseContract, Transcript
from calibrant.files import load_case
from calibrant.harness import run_trial

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"


@pytest.fixture(scope="session")
def cases() -> dict[str, CaseContract]:
    return {c.case: c for c in (load_case(p) for p in sorted(CASES.glob("*.yaml")))}


@pytest.fixture(scope="session")
def trial(
    cases: dict[str, CaseContract], tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., Transcript]:
    """run(case_id, agent, seed=0, trial=1) -> Transcript, cached for the session."""
    cache: dict[tuple[str, str, int, int], Transcript] = {}
    work = tmp_path_factory.mktemp("trials")

    def run(case_id: str, agent: str, *, seed: int = 0, trial: int = 1) -> Transcript:
        key = (case_id, agent, seed, trial)
        if key not in cache:
            cache[key] = run_trial(cases[case_id], agent, trial=trial, seed=seed, workdir=work)
        return cache[key].model_copy(deep=True)

    return run


@dataclass
class Result:
    code: int
    out: str
    err: str


_SCRATCH = Path(tempfile.mkdtemp(prefix="calibrant-tests-"))
DEFAULT_STORE = {"CALIBRANT_DATABASE_URL": f"sqlite:///{_SCRATCH / 'store.db'}"}


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
    """Run the real `calibrant` command in a subprocess."""
    proc = subprocess.run(
        [sys.executable, "-m", "calibrant", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        # a test that names no store gets a scratch one, never calibrant.db in the repository
        env={**DEFAULT_STORE, **os.environ, "COLUMNS": "200", **(env or {})},
        timeout=600,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def cli() -> Callable[..., Result]:
    return run_cli
