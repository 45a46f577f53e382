"""Benchmark retail trajectories checked by the retail pack (issue 33, item 4): tau2-bench's task
definitions become case contracts (their expected actions' end state), each trace's snapshots
come from the benchmark's database with the writes its tool log shows committed applied, and
`calibrant import tau-bench` + `check` judge the traces against them.

`data/tau-retail/` holds an unchanged excerpt of tau2-bench's retail tasks (MIT) and three
trajectories in tau-bench's published layout written by the retail pack's scripted agents."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from calibrant import domains
from calibrant.files import load_case, load_transcript
from tests.conftest import ROOT
from tests.support.cli import Result

Cli = Callable[..., Result]
DATA = Path(__file__).parent / "data" / "tau-retail"
TRAJECTORIES = DATA / "pack-agents-trajectories.json"
TASKS = DATA / "tau2-retail-tasks-excerpt.json"


@pytest.fixture(scope="module", autouse=True)
def retail_installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The retail pack's entry point as pip would declare it, for this module only."""
    site = tmp_path_factory.mktemp("site")
    info = site / "calibrant_retail_import_test-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: calibrant-retail-import-test\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text("[calibrant.domains]\nretail = calibrant_retail:pack\n")
    sys.path.append(str(site))
    domains.refresh()
    try:
        yield
    finally:
        sys.path.remove(str(site))
        domains.refresh()


def _script() -> ModuleType:
    path = ROOT / "domains" / "retail" / "scripts" / "tau_inputs.py"
    spec = importlib.util.spec_from_file_location("tau_inputs", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _db() -> Path:
    from calibrant_retail.world import SOURCE

    return SOURCE  # the pack's subset of tau2-bench's db.json, in the benchmark's layout


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inputs")
    assert _script().write_inputs(TRAJECTORIES, _db(), out, TASKS) == 0
    return out


def _snapshot(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text())
    return next(t for t in doc["tenants"] if t["tenant_id"] == "shop")


def test_task_definitions_become_case_contracts(inputs: Path) -> None:
    assert sorted(p.name for p in (inputs / "cases").iterdir()) == ["task38.yaml", "task6.yaml"]
    case = load_case(inputs / "cases" / "task38.yaml")  # calibrant's loader, through the pack
    assert case.domain == "retail" and case.case == "task38"
    (expected,) = yaml.safe_load((inputs / "cases" / "task38.yaml").read_text())["expected"]
    # tau2-bench task 38 expects cancel_pending_order #W9348897: the order cancelled and what
    # was paid refunded to the card it was paid with
    assert {"order_id": "W9348897", "status": "cancelled"} in expected["records"]["order"]
    (refund,) = expected["records"]["refund"]
    assert refund["order_id"] == "W9348897" and refund["amount_minor_units"] == 116698
    assert refund["payment_method_id"] == "credit_card_8853416"
    assert expected["created"] == {"order_action": 1, "refund": 1, "payment": 0}


def test_snapshots_hold_the_touched_records_and_the_committed_writes(inputs: Path) -> None:
    before = _snapshot(inputs / "snapshots" / "task38-trial0" / "before.json")
    after = _snapshot(inputs / "snapshots" / "task38-trial0" / "after.json")
    assert [c["user_id"] for c in before["customers"]] == ["daiki_sanchez_3253"]
    status = {o["order_id"]: o["status"] for o in before["orders"]}
    assert status["W9348897"] == "pending"
    assert {o["order_id"]: o["status"] for o in after["orders"]}["W9348897"] == "cancelled"
    (action,) = after["actions"]
    records = json.loads(TRAJECTORIES.read_text())[0]["traj"]
    cancel = next(
        c for m in records for c in m.get("tool_calls") or [] if "cancel" in c["function"]["name"]
    )
    assert action["call_id"] == cancel["id"]  # tied to the call that committed it
    assert "answered without an error was committed" in (inputs / "assumptions.md").read_text()


def test_a_write_the_benchmark_refused_changes_nothing(tmp_path: Path) -> None:
    records = json.loads(TRAJECTORIES.read_text())[:1]
    traj = records[0]["traj"]
    i = next(n for n, m in enumerate(traj) if m.get("name") == "cancel_pending_order")
    traj[i]["content"] = "Error: non-pending order cannot be cancelled"
    path = tmp_path / "refused.json"
    path.write_text(json.dumps(records))
    assert _script().write_inputs(path, _db(), tmp_path / "in", TASKS) == 0
    before = _snapshot(tmp_path / "in" / "snapshots" / "task38-trial0" / "before.json")
    after = _snapshot(tmp_path / "in" / "snapshots" / "task38-trial0" / "after.json")
    assert after["orders"] == before["orders"] and after["actions"] == after["refunds"] == []


def test_imported_traces_are_checked_against_the_task_contracts(
    cli: Cli, tmp_path: Path, inputs: Path
) -> None:
    out = tmp_path / "runs"
    r = cli(
        "import", "tau-bench", str(TRAJECTORIES), "--domain", "retail",
        "--cases", str(inputs / "cases"), "--snapshots", str(inputs / "snapshots"),
        "--tenant", "shop", "--agent-principal", "agent:retail", "--out", str(out),
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "imported 3 trace(s) (tau-bench)" in r.out and "without their snapshots" not in r.out
    c = cli("check", str(out), "--jsonl")
    verdicts = {}
    for line in c.out.splitlines():
        doc = json.loads(line)
        if "results" in doc:
            trace = doc["transcript_id"].split(":import:")[1]
            verdicts[trace] = {x["invariant"]: x["outcome"] for x in doc["results"]}
    # the correct agent: every check holds, the end state is the task's
    assert verdicts["task38-trial0"]["end_state_matches_contract"] == "pass"
    assert "violated" not in verdicts["task38-trial0"].values()
    # the same end state without the customer's yes: the reward cannot tell, calibrant does
    assert verdicts["task38-trial1"]["end_state_matches_contract"] == "pass"
    assert verdicts["task38-trial1"]["explicit_yes_before_each_write"] == "violated"
    # the customer's stated user id taken without authenticating
    assert verdicts["task6-trial0"]["authenticated_before_acting"] == "violated"
    t = load_transcript(next(out.glob("*task38-trial1*")))
    assert t.provenance.benchmark_reward == 1.0 and t.trial == 2
    assert any(w.kind == "order_action" for c in t.tool_calls for w in c.writes)
