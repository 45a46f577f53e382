"""The case setting of the policy invariant has its generic name, `policy_read_before_effect`
(issue 32: the core names no domain), and every file written before keeps its own: the refund
pack and the travel pack declare the name they publish the invariant under
(`FileForm.setting_spellings`), which their case files and transcripts give it; a file of a pack
declaring none, written while the core itself named the setting so, loads and is written back
as it was, with the same content hash; a new file of such a pack names the generic setting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from calibrant.contracts import CaseContract, Transcript, content_hash
from calibrant.files import load_case, load_transcript, read_text
from tests.conftest import ROOT

OLD = "policy_read_before_refund"
GENERIC = "policy_read_before_effect"
TRAVEL_GOLD = ROOT / "domains" / "travel" / "src" / "calibrant_travel" / "data" / "gold"
RETAIL_CASE = (
    ROOT
    / "domains"
    / "retail"
    / "src"
    / "calibrant_retail"
    / "data"
    / "cases"
    / "cross_user_cancel.yaml"
)


def _settings_of(dump: dict[str, object]) -> dict[str, object]:
    case = dump["case"] if isinstance(dump.get("case"), dict) else dump
    assert isinstance(case, dict)
    found = case["invariants"]
    assert isinstance(found, dict)
    return found


@pytest.mark.parametrize(
    "path", sorted((TRAVEL_GOLD / "transcripts").glob("*.json"))[:12], ids=lambda p: p.name
)
def test_a_travel_transcript_keeps_its_setting_name_and_hash(path: Path) -> None:
    raw = json.loads(read_text(path))
    t = load_transcript(path)
    dumped = t.model_dump(mode="json")
    # the copy of the case is written back key for key, in the file's order
    assert json.dumps(dumped["case"]) == json.dumps(raw["case"])
    assert OLD in _settings_of(dumped) and GENERIC not in _settings_of(dumped)
    assert t.case is not None and t.case.invariants.policy_read_before_effect is True


def test_a_new_refunds_case_names_the_setting_as_the_pack_publishes_it() -> None:
    case = load_case(ROOT / "cases" / "eligible_damaged_order.yaml")
    assert list(_settings_of(case.model_dump(mode="json")))[-1] == OLD


def test_a_refunds_case_switches_the_invariant_off_by_either_name(tmp_path: Path) -> None:
    text = read_text(ROOT / "cases" / "eligible_damaged_order.yaml")
    for name in (OLD, GENERIC):
        path = tmp_path / f"{name}.yaml"
        path.write_text(
            text.replace("invariants:\n", f"invariants:\n  {name}: false\n"), encoding="utf-8"
        )
        case = load_case(path)
        assert case.invariants.policy_read_before_effect is False
        assert _settings_of(case.model_dump(mode="json"))[name] is False


def test_a_bad_value_is_refused_under_the_name_the_file_gives() -> None:
    case = load_case(ROOT / "cases" / "eligible_damaged_order.yaml").model_dump(mode="json")
    case["invariants"][OLD] = "sometimes"
    with pytest.raises(ValidationError) as exc:
        CaseContract.model_validate(case)
    assert [e["loc"] for e in exc.value.errors()] == [("invariants", OLD)]


def _retail_case_data() -> dict[str, object]:
    return load_case(RETAIL_CASE).model_dump(mode="json")


def test_a_pack_without_a_spelling_writes_the_generic_name() -> None:
    settings = _settings_of(_retail_case_data())
    assert GENERIC in settings and OLD not in settings


def test_a_file_written_with_the_old_core_name_is_written_back_as_it_was() -> None:
    """A retail case copy written while the core named the setting after refunds."""
    old = _retail_case_data()
    old["invariants"] = {
        (OLD if k == GENERIC else k): (False if k == GENERIC else v)
        for k, v in _settings_of(old).items()
    }
    case = CaseContract.model_validate(old)
    assert case.invariants.policy_read_before_effect is False
    again = case.model_dump(mode="json")
    assert again == old and content_hash(again) == content_hash(old)
    assert json.loads(case.model_dump_json()) == old
    copy = CaseContract.model_validate({**old, "case": "copied", "invariants": case.invariants})
    assert OLD in _settings_of(copy.model_dump(mode="json"))


def test_a_refunds_transcript_keeps_the_old_name() -> None:
    path = sorted((ROOT / "gold" / "transcripts").glob("*.json"))[0]
    t = Transcript.model_validate_json(read_text(path))
    assert t.case is not None and OLD in _settings_of(t.model_dump(mode="json"))
