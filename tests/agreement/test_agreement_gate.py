"""The release gate follows one rule, written once in the code and once in docs/calibration.md:
the judge against the experts by the same statistic on both sides, non-inferiority with a margin,
and minimums counted in cases."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from calibrant.agreement import BootstrapResult, Undefined
from calibrant.agreement.gate import GATE_RULE, GateSettings, release_gate
from calibrant.agreement.noninferiority import PairedComparison, paired_comparison
from tests.conftest import ROOT


def _result(estimate: float | Undefined, ci: tuple[float, float] | Undefined) -> BootstrapResult:
    return BootstrapResult(
        statistic="x",
        estimate=estimate,
        ci=ci,
        confidence=0.95,
        n=100,
        n_clusters=12,
        n_resamples=1000,
        n_dropped=0,
        seed=0,
    )


def _cmp(
    d: tuple[float, float] | Undefined,
    judge: tuple[float, float] = (0.7, 0.9),
    *,
    cases: int = 12,
    items: int = 100,
    expert_cases: int = 12,
) -> PairedComparison:
    mid = sum(judge) / 2
    diff = (
        _result(Undefined("no expert pair"), d)
        if isinstance(d, Undefined)
        else _result(sum(d) / 2, d)
    )
    return PairedComparison(
        statistic="cohen_kappa",
        judge=_result(mid, judge),
        experts=_result(0.8, (0.7, 0.9)),
        difference=diff,
        n_items=items,
        n_cases=cases,
        n_expert_items=items,
        n_expert_cases=expert_cases,
        n_experts=2,
    )


def _gate(c: PairedComparison, **kw: object) -> tuple[str, str]:
    d = release_gate(c, coverage=1.0, settings=GateSettings(**kw))  # type: ignore[arg-type]
    return d.status, "; ".join(d.reasons)


def test_non_inferiority_decides_on_the_bounds_of_d() -> None:
    assert _gate(_cmp((-0.08, 0.05)))[0] == "PASS"  # lower bound above -0.10
    status, why = _gate(_cmp((-0.15, 0.05)))
    assert status == "UNDECIDED" and "D's lower bound -0.15 ≤ -margin -0.10" in why
    status, why = _gate(_cmp((-0.40, -0.12)))
    assert status == "FAIL" and "D's upper bound -0.12 < -margin -0.10" in why
    # the margin is the user's: 0.20 lets the second judge pass
    assert _gate(_cmp((-0.15, 0.05)), margin=0.20)[0] == "PASS"


def test_the_absolute_bar_still_applies_to_the_judge_side() -> None:
    # experts who agree poorly let a poor judge be "non-inferior"; the bar keeps it out
    status, why = _gate(_cmp((-0.05, 0.05), judge=(0.2, 0.5)))
    assert status == "FAIL" and "judge side's upper bound 0.50 < the bar 0.6" in why
    assert _gate(_cmp((-0.05, 0.05), judge=(0.5, 0.8)))[0] == "UNDECIDED"


def test_minimums_count_cases_then_items() -> None:
    status, why = _gate(_cmp((0.0, 0.1), cases=7))
    assert status == "UNDECIDED" and "only 7 case(s)" in why and "--min-cases" in why
    status, why = _gate(_cmp((0.0, 0.1), cases=1, items=40))
    assert status == "UNDECIDED" and "below the minimum of 8" in why
    # --min-items stays an extra floor: scripts that set it keep their meaning
    status, why = _gate(_cmp((0.0, 0.1), items=19))
    assert status == "UNDECIDED" and "only 19 item(s)" in why and "--min-items" in why
    status, why = _gate(_cmp((0.0, 0.1), expert_cases=5))
    assert status == "UNDECIDED" and "--min-expert-cases" in why
    assert _gate(_cmp((0.0, 0.1), cases=5), min_cases=4)[0] == "PASS"


def test_undefined_difference_is_undecided_unless_the_ceiling_is_dropped() -> None:
    c = _cmp(Undefined("fewer than two experts: no expert pair"))
    status, why = _gate(c)
    assert status == "UNDECIDED" and "does not fall back to the absolute bar" in why
    assert _gate(c, use_ceiling=False)[0] == "PASS"


def _app(d: tuple[float, float], experts: float | Undefined = 0.8) -> PairedComparison:
    """An applicability comparison: D's interval ``d``, the experts' own kappa ``experts``."""
    c = _cmp(d)
    return PairedComparison(
        **{
            **{f: getattr(c, f) for f in PairedComparison.__dataclass_fields__},
            "experts": _result(experts, (0.7, 0.9)),
        }
    )


def test_applicability_is_gated_beside_quality() -> None:
    good = _cmp((-0.08, 0.05))

    def gate(app: PairedComparison, **kw: object) -> tuple[str, str, dict[str, object]]:
        d = release_gate(good, coverage=1.0, settings=GateSettings(**kw), applicability=app)  # type: ignore[arg-type]
        return d.status, "; ".join(d.reasons), d.as_gate().json_data()

    status, why, d = gate(_app((-0.05, 0.04)))
    assert status == "PASS" and "applicability (applies / not_applicable): D's lower bound" in why
    assert d["applicability_checked"] is True and d["applicability_n_cases"] == 12
    assert d["applicability_difference_lower_bound"] == -0.05
    # a judge that never says not_applicable: kappa 0 on applicability against experts at 0.8
    status, why, d = gate(_app((-0.95, -0.6)))
    assert (
        status == "FAIL"
        and "applicability (applies / not_applicable): D's upper bound -0.60" in why
    )
    status, why, _ = gate(_app((-0.3, 0.05)))
    assert status == "UNDECIDED" and "applicability" in why and "≤ -margin" in why
    # the experts never said not_applicable: nothing to compare with, said, not blocking
    status, why, d = gate(_app((-0.05, 0.04), experts=Undefined("no variation")))
    assert status == "PASS" and "applicability (applies / not_applicable) not checked" in why
    assert d["applicability_checked"] is False
    # --no-ceiling: the judge side's applicability kappa against the bar
    assert gate(_app((-0.95, -0.6)), use_ceiling=False)[0] == "PASS"  # judge side (0.7, 0.9)
    # without an applicability comparison (no not_applicable) nothing changes
    plain = release_gate(good, coverage=1.0, settings=GateSettings()).as_gate().json_data()
    assert plain["applicability_checked"] is None and plain["status"] == "PASS"


def test_decision_json_names_the_rule_and_the_minimums() -> None:
    decision = release_gate(_cmp((-0.08, 0.05)), coverage=1.0, settings=GateSettings())
    d = decision.as_gate().json_data()
    assert d["rule"] == GATE_RULE and d["min_cases"] == 8 and d["n_cases"] == 12
    assert d["margin"] == 0.10 and d["difference_lower_bound"] == -0.08
    assert d["min_items"] == 20 and d["min_expert_cases"] == 8


def test_the_calibration_page_states_the_same_rule() -> None:
    page = re.sub(r"\s+", " ", (ROOT / "docs" / "calibration.md").read_text())
    assert GATE_RULE in page


def test_paired_comparison_uses_one_statistic_on_both_sides() -> None:
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 120)
    e1 = np.where(rng.random(120) < 0.85, truth, 1 - truth)
    e2 = np.where(rng.random(120) < 0.85, truth, 1 - truth)
    judge = e1.copy()  # a copy of expert 1
    cases = np.repeat(np.arange(15), 8)
    p = paired_comparison(judge, np.vstack([e1, e2]), k=2, seed=0, clusters=cases, n_resamples=500)
    k12 = cohen_kappa_score(e1, e2)
    # judge side = (kappa(judge, e1) + kappa(judge, e2)) / 2 = (1 + k12) / 2; experts: k12
    assert p.judge.estimate == pytest.approx((1 + k12) / 2)
    assert p.experts.estimate == pytest.approx(k12)
    assert p.difference.estimate == pytest.approx((1 - k12) / 2)
    assert p.n_cases == 15 and p.n_expert_cases == 15 and p.difference.confidence == 0.95
    lo, hi = p.difference.ci  # type: ignore[misc]
    assert lo < (1 - k12) / 2 < hi


def test_one_case_has_no_interval_and_never_an_item_level_one() -> None:
    rng = np.random.default_rng(4)
    e1 = rng.integers(0, 2, 40)
    e2 = np.where(rng.random(40) < 0.9, e1, 1 - e1)
    p = paired_comparison(e1, np.vstack([e1, e2]), k=2, seed=0, clusters=["c"] * 40)
    for side in (p.judge, p.experts, p.difference):
        assert isinstance(side.ci, Undefined) and "needs at least 2" in side.ci.reason
    d = release_gate(p, coverage=1.0, settings=GateSettings(min_cases=1, min_expert_cases=1))
    assert d.status == "UNDECIDED" and "interval undefined" in d.reasons[0]


def test_perfect_agreement_everywhere_gives_no_zero_width_difference() -> None:
    rng = np.random.default_rng(5)
    e1 = rng.integers(0, 2, 80)
    p = paired_comparison(e1, np.vstack([e1, e1]), k=2, seed=0, clusters=np.repeat(range(10), 8))
    assert p.difference.estimate == 0.0
    lo, hi = p.difference.ci  # type: ignore[misc]
    assert lo < 0.0 < hi and "unpaired side bounds" in p.difference.method
