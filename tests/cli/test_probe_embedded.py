"""`calibrant probe` offline on the embedded judge (slow: SmolLM2-135M on the CPU), kept to a
single item: the defended and the naive prompt both reach the model and come back as
verdicts, the report is complete and a rerun asks nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result
from tests.support.gold import small_gold

pytestmark = pytest.mark.slow


def test_probe_runs_offline_on_the_embedded_judge(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    gold = small_gold(tmp_path / "gold", n=6)
    args = (
        "probe",
        "--gold",
        str(gold),
        "--split",
        "all",
        "--probes",
        "injection",
        "--families",
        "verdict_json",
        "--channels",
        "agent",
        "--items",
        "1",
        "--json",
    )
    r = cli(*args, env=env)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    # 1 item x (clean + verdict_json) x (defended + naive prompt)
    assert doc["judgments"] == 4 and doc["judge_outcomes"] == {"verdict": 4}
    assert doc["judge"]["model"] == "calibrant-local/smollm2-135m"
    inj = doc["probes"]["injection"]
    for prompt in ("defended", "naive"):
        row = inj["prompts"][prompt]["families"]["verdict_json"]["agent"]
        assert row["n"] == 1 and row["no_verdict"] == 0
        assert row["gate"]["status"] == "UNDECIDED"  # 1 item: below --min-items
    assert inj["defense_effect"]["verdict_json"]["agent"]["n"] == 1
    again = cli(*args, env=env)
    redo = json.loads(again.out)
    assert again.code == 0 and redo["probes"] == doc["probes"]
    assert doc["from_cache"] == 0 and redo["from_cache"] == 4  # the rerun asked nothing
