"""The end state of another domain's trial against its case: `calibrant check --case` on the
warehouse pack of test_domain_files (its transcripts and case, installed through a real entry
point). A correct trial matches the case's outcome; a wrong quantity, a second transfer, an
unconfirmed case and a missing snapshot each say so, naming what differed or what is missing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import Result
from tests.domains.test_domain_files import CASE, _transfer, _write, duplicated, good
from tests.domains.test_domain_files import warehouse as warehouse  # the installed pack

INVARIANT = "end_state_matches_contract"


def _end_state(
    cli: Callable[..., Result], tmp_path: Path, doc: dict[str, Any], case: str = CASE
) -> dict[str, Any]:
    path = tmp_path / "transfer_five_units.yaml"
    path.write_text(case, encoding="utf-8")
    r = cli(
        "check", str(_write(tmp_path, doc["transcript_id"], doc)), "--case", str(path), "--json"
    )
    assert r.code == 0, r.err
    results = {x["invariant"]: x for x in json.loads(r.out)["verdicts"][0]["results"]}
    found: dict[str, Any] = results[INVARIANT]
    return found


def test_a_correct_warehouse_trial_matches_the_case_outcome(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    found = _end_state(cli, tmp_path, good())
    assert found["outcome"] == "pass", found
    assert found["message"] == "matches acceptable outcome 'transferred'"
    assert found["evidence"] == ["SKU-1001", "tr_1"]


def test_a_trial_that_moved_the_wrong_quantity_names_the_field(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    doc = good()
    doc["transcript_id"] = "wh-wrong-qty"
    wh_a = doc["snapshot_after"]["tenants"][0]["records"]
    wh_a["stock"][0]["quantity"] = 30
    wh_a["transfer"][0]["quantity"] = 10
    found = _end_state(cli, tmp_path, doc)
    assert found["outcome"] == "violated"
    assert found["message"] == (
        "matches no acceptable outcome; closest 'transferred': "
        "stock SKU-1001 quantity: expected 35, found 30"
    )
    assert found["evidence"] == ["SKU-1001", "tr_1"]


def test_a_record_listed_without_its_id_is_compared_with_the_closest_of_its_kind(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    doc = yaml.safe_load(CASE)
    doc["expected"]["records"]["transfer"] = [{"sku": "SKU-1001", "quantity": 5}]
    case = yaml.safe_dump(doc)
    assert _end_state(cli, tmp_path, good(), case)["outcome"] == "pass"
    doc = good()
    doc["transcript_id"] = "wh-ten"
    doc["snapshot_after"]["tenants"][0]["records"]["transfer"][0]["quantity"] = 10
    found = _end_state(cli, tmp_path, doc, case)
    assert found["outcome"] == "violated"
    assert found["message"].endswith("transfer tr_1 quantity: expected 5, found 10")


def test_two_transfers_where_the_case_wants_one_is_violated(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    found = _end_state(cli, tmp_path, duplicated())
    assert found["outcome"] == "violated"
    assert found["message"].endswith(
        "closest 'transferred': 2 transfer record(s) created (tr_1, tr_2), expected 1"
    )
    assert found["evidence"] == ["SKU-1001", "tr_1", "tr_2"]


def test_the_closest_of_several_outcomes_is_named(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    case = yaml.safe_load(CASE)
    case["expected"] = [
        {
            "name": "refused",
            "records": {"stock": [{"sku": "SKU-1001", "quantity": 40}]},
            "created": {"transfer": 0},
        },
        case["expected"],
    ]
    doc = good()
    doc["snapshot_after"]["tenants"][0]["records"]["transfer"].append(_transfer("tr_2", "op-2"))
    found = _end_state(cli, tmp_path, doc, yaml.safe_dump(case))
    assert found["outcome"] == "violated"
    # 'transferred' differs by one thing (a second transfer), 'refused' by two
    assert found["message"].endswith(
        "closest 'transferred': 2 transfer record(s) created (tr_1, tr_2), expected 1"
    )
    # the other outcome is reachable: a trial that moved nothing matches 'refused'
    doc = good()
    doc["snapshot_after"] = doc["snapshot_before"] | {"seq": 4}
    found = _end_state(cli, tmp_path, doc, yaml.safe_dump(case))
    assert (found["outcome"], found["message"]) == ("pass", "matches acceptable outcome 'refused'")


def test_a_record_the_end_state_lacks_is_named(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    case = CASE.replace("- {sku: SKU-1001, quantity: 35}", "- {sku: SKU-1009, quantity: 35}")
    found = _end_state(cli, tmp_path, good(), case)
    assert found["outcome"] == "violated"
    assert found["message"].endswith("stock SKU-1009 is not in the end state")


def test_a_missing_after_snapshot_is_a_harness_error(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    doc = good()
    del doc["snapshot_after"]
    found = _end_state(cli, tmp_path, doc)
    assert found["outcome"] == "harness_error"
    assert found["message"] == "the evaluator snapshot after the trial is missing"


def test_an_unconfirmed_case_is_not_applicable(
    warehouse: Path, tmp_path: Path, cli: Callable[..., Result]
) -> None:
    case = yaml.safe_load(CASE)
    case["expected"] = None
    found = _end_state(cli, tmp_path, good(), yaml.safe_dump(case))
    assert found["outcome"] == "not_applicable"
    assert "has no confirmed expected outcome yet" in found["message"]
