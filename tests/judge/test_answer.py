"""Parsing good and bad judge outputs against the rubric."""

from __future__ import annotations

import json
from typing import Any

import pytest

from calibrant.files import load_rubric
from calibrant.judge.answer import Unparseable, answer_schema, parse_answer
from tests.conftest import ROOT

RUBRIC = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
IDS = ["ref_0006", "tkt_order_17"]


def good(**overrides: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        c.id: {"rationale": "r", "evidence": ["ref_0006"], "label": "pass"} for c in RUBRIC.criteria
    }
    out["overall_clarity"]["label"] = 3
    out["reports_access_problem"]["label"] = "not_applicable"
    out.update(overrides)
    return out


def test_a_good_answer_parses() -> None:
    got = parse_answer(json.dumps(good()), RUBRIC, IDS)
    assert [c.criterion for c in got] == [c.id for c in RUBRIC.criteria]
    assert got[-1].label == 3 and got[0].evidence == ["ref_0006"]


def test_code_fences_and_label_spelling_are_tolerated() -> None:
    data = good()
    data["overall_clarity"]["label"] = "3"
    data["explains_next_step"]["label"] = "PASS"
    got = parse_answer("```json\n" + json.dumps(data) + "\n```", RUBRIC, IDS)
    assert got[1].label == "pass" and got[-1].label == 3


def test_insufficient_evidence_is_a_valid_answer() -> None:
    data = good()
    data["no_claim_before_confirmed"]["label"] = "insufficient_evidence"
    assert parse_answer(json.dumps(data), RUBRIC, IDS)[2].label == "insufficient_evidence"


def test_unknown_cited_ids_are_kept_apart_not_trusted() -> None:
    data = good()
    data["explains_next_step"]["evidence"] = ["ref_0006", "ref_9999"]
    c = parse_answer(json.dumps(data), RUBRIC, IDS)[1]
    assert c.evidence == ["ref_0006"] and c.invalid_evidence == ["ref_9999"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"separates_done_from_pending": {"lab', "not JSON"),
        ("[1, 2]", "not a JSON object"),
        (json.dumps({k: v for k, v in good().items() if k != "overall_clarity"}), "missing"),
        (
            json.dumps(good(overall_clarity={"rationale": "", "evidence": [], "label": 7})),
            "not one of",
        ),
        (
            json.dumps(good(explains_next_step={"rationale": "", "evidence": [], "label": "meh"})),
            "not one of",
        ),
        (json.dumps({**good(), "tone": {"label": "pass"}}), "unknown criteria"),
        (
            json.dumps(good(overall_clarity={"rationale": "", "evidence": "x", "label": 2})),
            "not a list",
        ),
        ("", "not JSON"),
    ],
)
def test_bad_answers_are_unparseable_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(Unparseable, match=reason):
        parse_answer(text, RUBRIC, IDS)


def test_schema_bounds_lengths_and_restricts_citations() -> None:
    s = answer_schema(RUBRIC, IDS)
    assert set(s["required"]) == {c.id for c in RUBRIC.criteria}
    crit = s["properties"]["separates_done_from_pending"]["properties"]
    assert crit["rationale"]["maxLength"] <= 200
    assert crit["evidence"]["items"]["enum"] == IDS and crit["evidence"]["maxItems"] <= 3
    assert "insufficient_evidence" in crit["label"]["enum"]
    assert "not_applicable" not in crit["label"]["enum"]
    assert (
        "not_applicable" in s["properties"]["reports_access_problem"]["properties"]["label"]["enum"]
    )


def test_labels_only_answers_map_each_criterion_to_a_label() -> None:
    schema = answer_schema(RUBRIC, IDS, labels_only=True)
    assert schema["required"] == [c.id for c in RUBRIC.criteria]
    assert schema["properties"]["overall_clarity"]["enum"][-1] == "insufficient_evidence"
    bare = {c: v["label"] for c, v in good().items()}
    got = parse_answer(json.dumps(bare), RUBRIC, IDS, labels_only=True)
    assert [(c.label, c.rationale, c.evidence) for c in got][-1] == (3, "", [])
    with pytest.raises(Unparseable, match="is missing"):  # the full format still wants objects
        parse_answer(json.dumps(bare), RUBRIC, IDS)
    with pytest.raises(Unparseable, match="not one of"):
        parse_answer(json.dumps({**bare, "overall_clarity": 9}), RUBRIC, IDS, labels_only=True)
