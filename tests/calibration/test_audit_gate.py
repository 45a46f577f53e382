"""Outside audit of the release gate's promises (issue 18) with planted judges on the shipped
gold set: no PASS below the minimum of cases, constant raters leave the gate undecided with a
reason, odd case ids count as cases, and a judge that always says 'pass' never passes."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from calibrant.agreement.gate import GateSettings
from calibrant.calibration import Settings, calibration_report, simulated_judgments
from calibrant.contracts import Label
from calibrant.gold import CONSENSUS, GoldSet
from tests.calibration.test_gate_issue18 import _na_gold, _rubric_with_na
from tests.reports.support import GOLD, RUBRIC, build

CRIT = "no_claim_before_confirmed"


def _report(gold: GoldSet, behaviour: str, **gate: Any) -> dict[str, dict[str, Any]]:
    cfg, js = simulated_judgments(gold, RUBRIC, behaviour)
    s = Settings(n_resamples=400, gate=GateSettings(**gate))
    r = calibration_report(gold, RUBRIC, js, settings=s, judge=cfg, split=None)
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


@pytest.mark.xfail(
    strict=True,
    reason=(
        "bug: a judge that answers not_applicable on 70% of the items the experts found "
        "applicable (dodging them) PASSes the release gate: pass/fail kappa is computed only "
        "on items both sides found applicable, coverage counts not_applicable as covered "
        "(1.0), and applicability agreement (judge side 0.23 against the experts' 1.0, D = "
        "-0.77) is reported but never gated. Needs a rule on applicability (or counting a "
        "judge's not_applicable on consensus-applicable items against coverage), with its "
        "error rates measured in benchmarks/bench_gate.py"
    ),
)
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
    )
    c = next(c for c in r["criteria"] if c["criterion"] == crit)
    assert c["gate"]["status"] != "PASS"
