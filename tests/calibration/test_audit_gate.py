"""Outside audit of the release gate's promises (issue 18) with planted judges on the shipped
gold set: no PASS below the minimum of cases, constant raters leave the gate undecided with a
reason, odd case ids count as cases, and a judge that always says 'pass' never passes."""

from __future__ import annotations

import copy
import random
from typing import Any

from calibrant.agreement.gate import GateSettings
from calibrant.calibration import Settings, calibration_report, simulated_judgments
from calibrant.contracts import Label
from calibrant.gold import CONSENSUS, GoldSet
from tests.calibration.test_gate_issue18 import _na_gold, _rubric_with_na
from tests.reports.support import GOLD, RUBRIC, build, every_format

CRIT = "no_claim_before_confirmed"


def _report(gold: GoldSet, behaviour: str, **gate: Any) -> dict[str, dict[str, Any]]:
    cfg, js = simulated_judgments(gold, RUBRIC, behaviour)
    s = Settings(n_resamples=400, gate=GateSettings(**gate))
    r = calibration_report(gold, RUBRIC, js, settings=s, judge=cfg, split=None).json_data()
    return {c["criterion"]: c for c in r["criteria"]}


def test_a_perfect_judge_on_seven_cases_is_undecided_and_says_so() -> None:
    keep = sorted({m.case for m in GOLD.items.values()})[:7]
    g = copy.copy(GOLD)
    g.items = {i: m for i, m in GOLD.items.items() if m.case in keep}
    for c in _report(g, "consensus", min_items=2).values():
        assert c["gate"]["status"] == "UNDECIDED"
        assert "below the minimum of 8 (--min-cases)" in c["gate"]["reasons"][0]


def test_experts_who_gave_one_label_leave_the_gate_undecided_with_the_reason() -> None:
    g = copy.copy(GOLD)

    def constant(labels: list[Label]) -> list[Label]:
        return [
            x.model_copy(update={"label": "pass"}) if x.criterion == CRIT else x for x in labels
        ]

    g.consensus = constant(GOLD.consensus)
    g.experts = {r: constant(v) for r, v in GOLD.experts.items()}
    c = _report(g, "consensus")[CRIT]
    assert c["gate"]["status"] == "UNDECIDED"
    text = " ".join(c["gate"]["reasons"])
    assert "undefined" in text


def test_case_ids_with_spaces_slashes_and_accents_still_count_as_cases() -> None:
    g = copy.copy(GOLD)
    g.items = {
        i: m.model_copy(update={"case": f" caso/{m.case}  ñ\t"}) for i, m in GOLD.items.items()
    }
    plain, odd = _report(GOLD, "consensus"), _report(g, "consensus")
    for crit, c in odd.items():
        assert c["gate"]["n_cases"] == plain[crit]["gate"]["n_cases"]
        assert c["gate"]["status"] == plain[crit]["gate"]["status"]


def test_a_judge_that_always_says_pass_never_passes() -> None:
    r = build("always-pass", n_resamples=400)
    assert "PASS" not in {c["gate"]["status"] for c in r["criteria"]}


def test_a_judge_that_hides_in_not_applicable_does_not_pass() -> None:
    crit = "explains_next_step"
    rubric, gold = _rubric_with_na(crit), _na_gold(crit)
    cfg, js = simulated_judgments(gold, rubric, "consensus")
    cons = gold.labels_by(CONSENSUS, crit)
    rng = random.Random(3)
    dodged = {}
    for i, j in js.items():
        if cons[i] != "not_applicable" and rng.random() < 0.7:
            j = j.model_copy(
                update={
                    "criteria": [
                        c.model_copy(update={"label": "not_applicable"})
                        if c.criterion == crit
                        else c
                        for c in j.criteria
                    ]
                }
            )
        dodged[i] = j
    r = calibration_report(
        gold, rubric, dodged, settings=Settings(n_resamples=400), judge=cfg, split=None
    ).json_data()
    c = next(c for c in r["criteria"] if c["criterion"] == crit)
    hidden = sum(
        1
        for i, j in dodged.items()
        if cons[i] != "not_applicable" and j.label(crit) == "not_applicable"
    )
    assert hidden > 0.6 * sum(v != "not_applicable" for v in cons.values())
    cov = c["coverage"]
    assert cov["not_applicable_on_rated"] == hidden and cov["abstained"] == 0
    assert cov["usable"] == len(gold.item_ids) - hidden
    assert c["gate"]["status"] == "FAIL"
    assert "usable label on" in c["gate"]["reasons"][0]
    assert f"{hidden} not_applicable where the consensus rated" in every_format(r)["markdown"]


def test_not_applicable_where_the_consensus_says_so_is_usable() -> None:
    crit = "explains_next_step"
    rubric, gold = _rubric_with_na(crit), _na_gold(crit)
    cfg, js = simulated_judgments(gold, rubric, "consensus")
    r = calibration_report(
        gold, rubric, js, settings=Settings(n_resamples=400), judge=cfg, split=None
    ).json_data()
    c = next(c for c in r["criteria"] if c["criterion"] == crit)
    assert c["coverage"]["coverage"] == 1.0 and c["coverage"]["not_applicable_on_rated"] == 0
    assert c["gate"]["status"] == "PASS"
