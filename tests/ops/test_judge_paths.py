"""`judge` gives the same report through the command line (`judge --json`) and the service's
judge job (its job runner, in this process, on a SQLite store), on the same three example
transcripts, with the judge at a local fake endpoint whose answers depend only on the
transcript. Each path has its own fresh store, so neither reads the other's answers; only the
run id (which the command line does not record) and the clocks differ."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from calibrant.contracts.reports import JudgeReport
from calibrant.ops import jobs
from calibrant.ops.catalog import add_judge
from calibrant.ops.jobrun import run_job
from calibrant.ops.jobs import JudgeJob, JudgeParams
from calibrant.store import Store
from calibrant.store.runs import Runs
from tests.conftest import ROOT
from tests.ops.test_three_paths import VOLATILE as THREE_PATHS_VOLATILE
from tests.ops.test_three_paths import _answer, _judge_yaml, _same
from tests.support.fake_openai import FakeServer, fake_openai

EXAMPLES = ROOT / "examples" / "transcripts"
VOLATILE = {*THREE_PATHS_VOLATILE, "latency_ms"}  # and each answer's own time


THREE = ("good-eligible.json", "broken-false-completion.json", "broken-stale-overwrite.json")


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with fake_openai(_answer) as server:
        yield server


@pytest.fixture
def work(tmp_path: Path, server: FakeServer) -> Path:
    (tmp_path / "in").mkdir()
    for name in THREE:
        (tmp_path / "in" / name).write_bytes((EXAMPLES / name).read_bytes())
    (tmp_path / "judges").mkdir()
    (tmp_path / "judges" / "a.yaml").write_text(_judge_yaml(server.url, 0.0, tmp_path))
    return tmp_path


def test_judge_is_the_same_through_the_cli_and_the_service_job(
    cli: Callable[..., Any], work: Path, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALIBRANT_DATA_ROOT", str(work))  # the job's files are the test's
    items = str(work / "in")
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{work / 'cli.db'}"}
    result = cli("judge", items, "--judge", "a", "--json", cwd=work, env=env)
    assert result.code == 0, result.err
    by_cli = json.loads(result.out)

    url = f"sqlite:///{work / 'job.db'}"
    with Store.open(url) as store:
        add_judge(store.engine, "a", (work / "judges" / "a.yaml").read_text(), "root")
        request = JudgeJob(kind="judge", params=JudgeParams(judge="a", paths=[items]))
        row = jobs.create(store.engine, request, "root")
        run_job(store, row.id)
        done = jobs.get(store.engine, row.id)
        assert done.status == "finished" and done.run_id, (done.status, done.error)
        detail = Runs(store.engine).detail(done.run_id)
    assert detail is not None and detail.kind == "judge" and detail.status == "finished"
    assert isinstance(detail.report, JudgeReport)
    by_job = detail.report.json_data()
    assert by_job["run_id"] == done.run_id and "run_id" not in by_cli

    assert by_cli["judgments"] == 3 and by_cli["outcomes"] == {"verdict": 3}
    assert by_cli["model_calls"] == 3 and by_job["model_calls"] == 3  # neither read the other
    assert sorted(t["transcript_id"] for t in by_cli["transcripts"]) == sorted(
        json.loads((EXAMPLES / name).read_text())["transcript_id"] for name in THREE
    )
    assert _same(by_cli, VOLATILE) == _same(by_job, VOLATILE)
