"""Shared fixtures: the shipped cases, trial runs cached per session, a CLI runner."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.pool import Pool

from calibrant.contracts import CaseContract, Transcript
from calibrant.files import load_case
from calibrant_refunds.runner import run_trial
from tests.support.cli import Result, cli_environment, run_in_child, run_in_process
from tests.support.domains import on_path, refunds_fallback

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"


# The tiers (docs/development.md says which a new test belongs in):
#   fast  `pytest -q` (the README's test command): every module's behaviour in this process,
#         the CLI through its runner, the API through an ASGI transport, SQLite;
#   slow  `pytest -m slow`: real processes (kill -9, SIGTERM, several on one store, a served
#         service, the docs' shell blocks), PostgreSQL (the `postgres` marker implies `slow`),
#         the embedded model, Chromium, the whole schemathesis run;
#   lint  `pytest -m lint`: ruff, mypy and the import contracts.
# Within a run, the longest tests start first (seconds each on two cores).
LONG = (
    "tests/test_docs_shell.py::test_every_shell_block_of_the_page_runs_as_written",
    "tests/test_docs_shell.py::test_the_readme_tour_runs_to_its_end",
    "tests/service/test_schemathesis.py",
    "tests/scoring/test_score_durability.py",
    "tests/scoring/test_queue_workers.py",
    "tests/service/test_jobs.py",
    "tests/cli/test_judge_durability.py",
    "tests/cli/test_trials_resume.py",
    "tests/cli/test_embedded_end_to_end.py",
    "tests/test_repo.py::test_mypy_is_clean_on_src",
    # the fast tier's longest (15-50 s each)
    "tests/safety/test_invariant_equivalence.py",
    "tests/probes/test_the_tester.py",
    "tests/calibration/test_the_tester.py",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--ids-out",
        metavar="FILE",
        help="write the ids of the tests this run selected to FILE, one a line (CI counts them)",
    )


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: three workers for every two cores. Part of the suite waits rather than
    computes (servers and child processes starting, endpoints answering after a latency, a
    browser loading a page): with one worker per core those waits leave a core idle; a third
    worker fills them."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, ((cores or 1) * 3 + 1) // 2)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Before `-m` selects a tier: PostgreSQL tests are slow-tier tests; then the longest
    first, so that no minute-long test starts last while the other workers have nothing left."""
    for item in items:
        if item.get_closest_marker("postgres") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: not item.nodeid.startswith(LONG))


def _write_ids(config: pytest.Config, ids: Sequence[str]) -> None:
    out = config.getoption("--ids-out")
    if out:
        Path(out).write_text("".join(f"{i}\n" for i in ids))


def pytest_collection_finish(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # one process (-n 0): its own selection
        _write_ids(session.config, [item.nodeid for item in session.items])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: Sequence[str]) -> None:
    """With workers, each collects and selects the same tests: the first one's list."""
    config = node.config
    if not getattr(config, "_calibrant_ids_written", False):
        config._calibrant_ids_written = True
        _write_ids(config, ids)


# --- a test that reaches PostgreSQL is marked so -------------------------------------------

_RUNNING: list[pytest.Item] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    _RUNNING.append(item)
    try:
        yield
    finally:
        _RUNNING.remove(item)


def _only_postgres_tests_reach_postgres(dbapi_connection: Any, _record: Any) -> None:
    """Every connection a store opens in a test process: PostgreSQL only for a test marked
    `postgres` (so the fast tier never needs the server, and no PostgreSQL test hides in it)."""
    module = type(dbapi_connection).__module__
    if module.startswith("psycopg") and _RUNNING:
        item = _RUNNING[-1]
        if item.get_closest_marker("postgres") is None:
            raise RuntimeError(
                f"{item.nodeid} connects to PostgreSQL: mark it (or its parameter) "
                "pytest.mark.postgres, which puts it in the slow tier"
            )


event.listen(Pool, "connect", _only_postgres_tests_reach_postgres)


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
