"""Shared fixtures: the shipped cases, trial runs cached per session, a CLI runner."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant.contracts import CaseContract, Transcript
from calibrant.files import load_case
from calibrant.harness import run_trial
from tests.support.cli import Result, cli_environment, run_in_child, run_in_process
from tests.support.domains import on_path, refunds_fallback

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"


# Long tests not marked slow (seconds each on two cores): started first, with the slow ones.
LONG = (
    "tests/test_repo.py::test_mypy_is_clean_on_src",
    # the killed runs and the three processes side by side (30-55 s); the rest run in process
    "tests/cli/test_judge_durability.py::test_a_killed_run_loses_no_answer_it_received",
    "tests/cli/test_judge_durability.py::test_three_processes_on_one_store_pay_once_per_item",
    "tests/cli/test_trials_resume.py",
    "tests/scoring/test_queue_workers.py",
    "tests/service/test_jobs.py",
    # one test per page, 11-46 s each (README.md and docs/daily-loop.md the longest)
    "tests/test_docs_shell.py::test_every_shell_block_of_the_page_runs_as_written",
)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: three workers for every two cores. Part of the suite waits rather than
    computes (servers and child processes starting, endpoints answering after a latency, a
    browser loading a page, a lease running out): with one worker per core those waits leave a
    core idle; a third worker fills them."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, ((cores or 1) * 3 + 1) // 2)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest first: with the tests handed to workers in this order, no minute-long test
    starts last while the other worker has nothing left to do."""
    items.sort(
        key=lambda item: not (item.get_closest_marker("slow") or item.nodeid.startswith(LONG))
    )


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


_SCRATCH = Path(tempfile.mkdtemp(prefix="calibrant-tests-"))  # one per test process (xdist worker)
DEFAULT_STORE = {"CALIBRANT_DATABASE_URL": f"sqlite:///{_SCRATCH / 'store.db'}"}


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, process: bool = False
) -> Result:
    """Run the real `calibrant` command: `calibrant.cli.main()` in this process, or with
    `process=True` `python -m calibrant` in a child process (for kills, signals, exit codes
    seen from outside, memory, import-time behaviour). Both give the command the same
    environment, working directory, terminal width and a scratch store when it names none
    (never calibrant.db in the repository); see tests/support/cli.py."""
    full_env = cli_environment(DEFAULT_STORE, env)
    if process:
        return run_in_child(args, cwd=cwd or ROOT, env=full_env)
    return run_in_process(args, cwd=cwd or ROOT, env=full_env)


@pytest.fixture
def cli() -> Callable[..., Result]:
    return run_cli


@pytest.fixture(scope="session", autouse=True)
def _refunds_pack_installed() -> None:
    """The refund shop's `calibrant.domains` entry point, when the environment was installed
    before pyproject.toml declared it (see tests/support/domains.py); else nothing."""
    folder = refunds_fallback()
    if folder is not None and str(folder) not in sys.path:
        on_path(folder)
