"""The check and trials commands end to end, as a user runs them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from calibrant.safety import for_domain
from tests.conftest import CASES, ROOT, Result
from tests.harness.test_agents_and_faults import TARGETS

EXAMPLES = ROOT / "examples" / "transcripts"


def test_check_flags_exactly_the_broken_examples(cli: Callable[..., Result]) -> None:
    expected = yaml.safe_load((EXAMPLES / "expected.yaml").read_text())
    r = cli("check", str(EXAMPLES), "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["schema_version"] == 1 and doc["transcripts"] == len(expected)
    for v in doc["verdicts"]:
        name = Path(v["source"]).name
        got = {x["invariant"]: x["outcome"] for x in v["results"]}
        assert [x["invariant"] for x in v["results"]] == [i.name for i in for_domain("refunds")]
        for inv, outcome in expected[name]["expect"].items():
            assert got[inv] == outcome, (name, inv)
        if not expected[name]["expect"]:
            assert set(got.values()) <= {"pass", "not_applicable"}, name


def test_check_exit_codes(cli: Callable[..., Result]) -> None:
    assert cli("check", str(EXAMPLES / "good-eligible.json"), "--fail-on-violation").code == 0
    assert cli("check", str(EXAMPLES), "--fail-on-violation").code == 1
    r = cli("check", str(EXAMPLES / "harness-snapshot-by-agent.json"), "--fail-on-violation")
    assert r.code == 3 and "harness_error" in r.out


def test_check_table_names_the_invariant_and_evidence(cli: Callable[..., Result]) -> None:
    broken = str(EXAMPLES / "broken-duplicate-after-timeout.json")
    r = cli("check", broken, "--verbose")
    assert "no_duplicate_payment" in r.out and "violated" in r.out and "ref_" in r.out
    brief = cli("check", broken)  # a line for the transcript; its evidence behind --verbose
    assert "selftest:broken-duplicate-after-timeout: violated" in brief.out
    assert "ref_" not in brief.out


def test_check_against_another_contract(cli: Callable[..., Result], tmp_path: Path) -> None:
    # the transcript is judged by the contract given, not the embedded copy
    stricter = tmp_path / "case.yaml"
    stricter.write_text(
        (CASES / "eligible_damaged_order.yaml")
        .read_text()
        .replace("refund_total_minor_units: 4200", "refund_total_minor_units: 0")
    )
    r = cli("check", str(EXAMPLES / "good-eligible.json"), "--case", str(stricter), "--json")
    results = {x["invariant"]: x for x in json.loads(r.out)["verdicts"][0]["results"]}
    assert results["end_state_matches_contract"]["outcome"] == "violated"


def test_correct_agent_over_all_cases_passes_the_checker(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "ok"
    md = tmp_path / "report.md"
    r = cli(
        "trials",
        str(CASES),
        "--agent",
        "scripted:correct",
        "-k",
        "2",
        "--out",
        str(out),
        "--json",
        "--markdown",
        str(md),
    )
    assert r.code == 0, r.err
    report = json.loads(r.out)
    n_cases = len(list(CASES.glob("*.yaml")))
    assert report["trials"] == 2 * n_cases and len(list(out.glob("*.json"))) == 2 * n_cases
    assert report["success_rate"]["value"] == 1.0 and report["pass_all_k"]["value"] == 1.0
    # an interval, not a bare number, and it counts cases: every trial succeeding says little
    # about cases not yet seen, so the floor counts each case once
    assert report["success_rate"]["n_cases"] == report["n_cases"] == n_cases
    assert report["success_rate"]["ci95"][0] < 0.85
    # pass^k for every k, per case and over cases
    assert [f["k"] for f in report["pass_k"]] == [1, 2]
    assert all(f["value"] == 1.0 and f["n_cases"] == n_cases for f in report["pass_k"])
    assert all(c["pass_k"] == [1.0, 1.0] for c in report["cases"])
    text = md.read_text()
    assert "| pass^2 (all 2 trial(s) of a case succeed) | 100% [" in text
    assert f"{2 * n_cases} trials of {n_cases} cases; every interval resamples cases" in text
    assert report["provenance"]["agent"] == "scripted:correct"
    cost = report["cost_usd_per_accepted_outcome"]  # scripted agents cost nothing, with an n
    assert cost["value"] == 0.0 and cost["n"] == 2 * n_cases and cost["ci95"] == [0.0, 0.0]
    for figure in ("latency_ms_mean", "latency_ms_p95", "tool_calls_mean"):
        assert report[figure]["n"] == 2 * n_cases and report[figure]["ci95"] is not None
    assert cli("check", str(out), "--fail-on-violation").code == 0


@pytest.mark.parametrize("behaviour", sorted(TARGETS))
def test_each_faulty_agent_fails_the_checker_naming_its_invariant(
    cli: Callable[..., Result], tmp_path: Path, behaviour: str
) -> None:
    out = tmp_path / behaviour
    r = cli(
        "trials",
        str(CASES),
        "--agent",
        f"scripted:{behaviour}",
        "-k",
        "1",
        "--out",
        str(out),
        "--json",
    )
    assert r.code == 0, r.err
    assert json.loads(r.out)["success_rate"]["value"] < 1.0
    check = cli("check", str(out), "--fail-on-violation", "--json")
    assert check.code == 1
    summary = json.loads(check.out)["summary"]
    assert summary[TARGETS[behaviour][1]].get("violated", 0) >= 1


def test_schema_command_prints_json_schema(cli: Callable[..., Result]) -> None:
    for name in ("transcript", "case", "rubric", "label", "verdict"):
        r = cli("schema", name)
        assert r.code == 0 and json.loads(r.out)["type"] == "object"


def test_every_command_has_help(cli: Callable[..., Result]) -> None:
    top = cli("--help")
    assert top.code == 0
    for cmd in ("check", "schema", "trials", "selftest"):
        r = cli(cmd, "--help")
        assert r.code == 0 and "Usage" in r.out, cmd
