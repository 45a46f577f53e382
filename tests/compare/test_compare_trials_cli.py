"""`calibrant compare-trials RUN_A RUN_B` on real trial runs of the scripted agents."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, Result

CASES = ["timeout_after_payment_commit", "approval_required", "eligible_damaged_order"]


@pytest.fixture(autouse=True)
def store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Each test's own store (comparisons are recorded as runs), never the repository's."""
    path = tmp_path / "store.db"
    monkeypatch.setenv("CALIBRANT_DATABASE_URL", f"sqlite:///{path}")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """k=2 trials of the correct agent, of the same agent again, and of one that retries a
    refund without reconciling it, on three cases."""
    from tests.conftest import run_cli

    base = tmp_path_factory.mktemp("runs")
    cases = base / "cases"
    cases.mkdir()
    for name in CASES:
        shutil.copy(ROOT / "cases" / f"{name}.yaml", cases / f"{name}.yaml")
    out = {}
    for label, agent, k in (
        ("ok", "scripted:correct", 2),
        ("ok_again", "scripted:correct", 2),
        ("ok_k3", "scripted:correct", 3),
        ("retry", "scripted:retry-without-reconcile", 2),
    ):
        r = run_cli(
            "trials", str(cases), "--agent", agent, "-k", str(k), "--out", str(base / label)
        )
        assert r.code == 0, r.err
        out[label] = base / label
    out["cases"] = cases
    return out


def _json(r: Result) -> dict:
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_a_version_that_retries_without_reconciling_shows_its_regressions(
    cli: Callable[..., Result], runs: dict[str, Path]
) -> None:
    doc = _json(cli("compare-trials", str(runs["ok"]), str(runs["retry"]), "--json"))
    assert doc["paired_trials"] == 6 and doc["cases"] == 3
    assert doc["regressed_cases"] == ["timeout_after_payment_commit"]
    assert doc["by_case"][0]["case"] == "timeout_after_payment_commit"  # regressions first
    assert doc["by_case"][0]["b_transcripts_newly_violating"]
    ok = doc["figures"]["success_rate"]
    assert ok["a"] == 1.0 and ok["b"] == pytest.approx(4 / 6) and ok["n"] == 6
    assert ok["difference"] == pytest.approx(-2 / 6)
    lo, hi = ok["ci95"]
    assert lo <= ok["difference"] <= hi
    assert doc["figures"]["duplicate_write_rate"]["difference"] > 0
    for fig in doc["figures"].values():  # every figure has an interval or says why not
        assert fig["ci95"] is not None or fig["undefined_reason"]
    table = cli("compare-trials", str(runs["ok"]), str(runs["retry"]))
    assert "regressed" in table.out and "timeout_after_payment_commit" in table.out
    gate = cli("compare-trials", str(runs["ok"]), str(runs["retry"]), "--fail-on-regression")
    assert gate.code == 1
    recorded = json.loads(cli("runs", "list", "--json").out)
    assert [r["kind"] for r in recorded] == ["compare-trials"] * 3
    shown = json.loads(cli("runs", "show", doc["run_id"], "--json").out)
    assert shown["report"]["regressed_cases"] == ["timeout_after_payment_commit"]


def test_the_same_agent_twice_shows_no_difference(
    cli: Callable[..., Result], runs: dict[str, Path]
) -> None:
    r = cli(
        "compare-trials", str(runs["ok"]), str(runs["ok_again"]), "--json", "--fail-on-regression"
    )
    doc = _json(r)
    assert doc["regressed_cases"] == []
    for key in ("success_rate", "violation_rate", "duplicate_write_rate", "pass_all_k"):
        assert doc["figures"][key]["difference"] == 0
        assert doc["figures"][key]["b_is"] == "undecided"


def test_trials_without_a_partner_are_named_and_left_out(
    cli: Callable[..., Result], runs: dict[str, Path]
) -> None:
    doc = _json(cli("compare-trials", str(runs["ok"]), str(runs["ok_k3"]), "--json"))
    assert doc["paired_trials"] == 6
    assert sorted(doc["unpaired"]["b"]) == sorted(f"{c} trial 3" for c in CASES)
    assert doc["unpaired"]["a"] == []


def test_a_case_that_changed_between_runs_is_refused(
    cli: Callable[..., Result], runs: dict[str, Path], tmp_path: Path
) -> None:
    changed = tmp_path / "cases"
    shutil.copytree(runs["cases"], changed)
    case = changed / "approval_required.yaml"
    doc = yaml.safe_load(case.read_text())
    doc["description"] = str(doc.get("description", "")) + " (edited)"
    case.write_text(yaml.safe_dump(doc, sort_keys=False))
    r = cli(
        "trials",
        str(changed),
        "--agent",
        "scripted:correct",
        "-k",
        "2",
        "--out",
        str(tmp_path / "b"),
    )
    assert r.code == 0, r.err
    r = cli("compare-trials", str(runs["ok"]), str(tmp_path / "b"))
    assert r.code == 2
    assert r.err.count("\n") == 1 and "approval_required" in r.err and "Traceback" not in r.err


def test_bad_run_folders_get_one_line_and_exit_2(
    cli: Callable[..., Result], runs: dict[str, Path], tmp_path: Path
) -> None:
    missing = cli("compare-trials", str(tmp_path / "nope"), str(runs["ok"]))
    assert missing.code == 2 and "RUN_A" in missing.err and missing.err.count("\n") == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    r = cli("compare-trials", str(runs["ok"]), str(empty))
    assert r.code == 2 and "no transcript" in r.err
    unfinished = tmp_path / "unfinished"
    shutil.copytree(runs["ok"], unfinished)
    (unfinished / "TRIALS_INCOMPLETE").write_text("{}")
    r = cli("compare-trials", str(runs["ok"]), str(unfinished))
    assert r.code == 2 and "did not finish" in r.err and r.err.count("\n") == 1
    broken = tmp_path / "broken"
    shutil.copytree(runs["ok"], broken)
    victim = sorted(broken.glob("*.json"))[0]
    victim.write_text(victim.read_text().replace('"trial"', '"trail"', 1))
    r = cli("compare-trials", str(runs["ok"]), str(broken))
    assert r.code == 2 and victim.name in r.err and "Traceback" not in r.err


def test_the_operation_returns_the_typed_report_the_command_prints(
    runs: dict[str, Path], cli: Callable[..., Result], tmp_path: Path
) -> None:
    """`calibrant.ops.compare_trials` (what the CLI, the service and the workers call) gives its
    report as the typed model, and the model holds what `compare-trials --json` prints."""
    from calibrant.contracts.reports import TrialsReport
    from calibrant.ops.compare_trials import CompareTrialsOptions, compare_trials
    from calibrant.store import Store

    with Store.open(f"sqlite:///{tmp_path / 'ops.db'}") as store:
        result = compare_trials(store, CompareTrialsOptions(runs["ok"], runs["retry"]))
    typed = result.typed()
    assert isinstance(typed, TrialsReport)
    printed = json.loads(cli("compare-trials", str(runs["ok"]), str(runs["retry"]), "--json").out)
    for key in ("cases", "paired_trials", "decision_rule", "regressed_cases"):
        assert getattr(typed, key) == printed[key] == result.data[key]
