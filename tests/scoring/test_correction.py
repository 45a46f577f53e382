"""The judged pass rate corrected by the judge's measured error rates (Rogan–Gladen), with the
calibration resampled by case."""

from __future__ import annotations

import numpy as np
import pytest

from calibrant.scoring import ErrorCounts, corrected_pass_rate


def _cases(n: int, tp: int, ff: int, tf: int, fp: int) -> list[ErrorCounts]:
    """`n` calibration cases with the same error counts each."""
    return [ErrorCounts(true_pass=tp, false_fail=ff, true_fail=tf, false_pass=fp)] * n


def test_a_perfect_judge_needs_no_correction_and_still_gets_an_interval() -> None:
    r = corrected_pass_rate(30, 100, _cases(10, 5, 0, 5, 0))
    assert r.judged.value == pytest.approx(0.30)
    assert r.corrected.value == pytest.approx(0.30)
    lo, hi = r.corrected.ci95  # type: ignore[misc]
    assert lo < 0.30 < hi
    # no error in 10 cases is not certainty: the judge's rates carry case-clustered intervals
    assert r.sensitivity.value == 1.0 and r.sensitivity.n_cases == 10
    assert r.sensitivity.ci95 is not None and r.sensitivity.ci95[0] < 0.9


def test_a_lenient_judge_overstates_the_pass_rate_and_the_correction_brings_it_down() -> None:
    # The judge passes 20% of what the experts fail and 90% of what they pass: a true pass
    # rate of 30% is judged 0.3 * 0.9 + 0.7 * 0.2 = 41%.
    r = corrected_pass_rate(410, 1000, _cases(10, 9, 1, 8, 2))
    assert r.sensitivity.value == pytest.approx(0.9)
    assert r.specificity.value == pytest.approx(0.8)
    assert r.corrected.value == pytest.approx((0.41 + 0.8 - 1) / (0.9 + 0.8 - 1))
    assert r.corrected.value == pytest.approx(0.30)
    lo, hi = r.corrected.ci95  # type: ignore[misc]
    assert lo < 0.30 < hi
    # the calibration's uncertainty widens the interval beyond the batch's own
    jlo, jhi = r.judged.ci95  # type: ignore[misc]
    assert (hi - lo) > (jhi - jlo)


def test_errors_that_go_together_by_case_widen_the_interval() -> None:
    # The same totals (90/100 passes seen, 80/100 fails seen): spread evenly over 10 cases, or
    # all of the judge's errors in two cases. Resampling cases sees the second as less sure.
    even = corrected_pass_rate(410, 1000, _cases(10, 9, 1, 8, 2))
    lumped = corrected_pass_rate(410, 1000, _cases(8, 10, 0, 10, 0) + _cases(2, 5, 5, 0, 10))
    assert even.corrected.value == pytest.approx(lumped.corrected.value)
    width = [r.corrected.ci95[1] - r.corrected.ci95[0] for r in (even, lumped)]  # type: ignore[index]
    assert width[1] > 1.2 * width[0]


def test_below_the_false_pass_rate_the_estimate_is_clipped_with_an_open_interval() -> None:
    # judged 5% with specificity 0.8: the raw estimator is (0.05 + 0.8 - 1) / 0.7 < 0
    r = corrected_pass_rate(5, 100, _cases(10, 9, 1, 8, 2))
    assert r.corrected.value == 0.0
    lo, hi = r.corrected.ci95  # type: ignore[misc]
    assert lo == 0.0 and 0.0 < hi < 0.2  # not [0, 0]
    assert r.note is not None and "below 1 - specificity" in r.note and "clipped to 0" in r.note
    # above the sensitivity: clipped to 1, the interval open below
    r = corrected_pass_rate(100, 100, _cases(10, 9, 1, 9, 1))
    assert r.corrected.value == 1.0
    lo, hi = r.corrected.ci95  # type: ignore[misc]
    assert 0.8 < lo < 1.0 and hi == 1.0
    assert r.note is not None and "clipped to 1" in r.note


def test_a_judge_no_better_than_chance_gets_no_number() -> None:
    r = corrected_pass_rate(50, 100, _cases(4, 5, 5, 5, 5))
    assert r.corrected.value is None
    assert "no better than chance" in (r.corrected.undefined_reason or "")
    assert r.judged.value == pytest.approx(0.5)  # the judged rate is still reported


def test_a_judge_barely_above_chance_is_undefined_not_100_percent() -> None:
    # J = 0.51 + 0.506 - 1 = 0.016 over 10 cases: the draws of J fall <= 0 far more than 2.5%
    # of the time, so there is no corrected rate (the old estimator printed "100%")
    r = corrected_pass_rate(
        90, 100, [ErrorCounts(51, 49, 51, 49)] * 9 + [ErrorCounts(0, 0, 55, 53)]
    )
    assert r.corrected.value is None and r.corrected.ci95 is None
    reason = r.corrected.undefined_reason or ""
    assert "cannot tell the judge from chance" in reason and "of 4000 draws" in reason


def test_a_calibration_without_failures_cannot_measure_specificity() -> None:
    r = corrected_pass_rate(50, 100, _cases(5, 4, 1, 0, 0))
    assert r.corrected.value is None
    assert "specificity" in (r.corrected.undefined_reason or "")


def test_failures_from_one_case_only_are_not_enough() -> None:
    # every item the experts failed comes from one case: never an item-level fallback
    cases = _cases(5, 9, 1, 0, 0) + [ErrorCounts(0, 0, 40, 2)]
    r = corrected_pass_rate(50, 100, cases)
    assert r.corrected.value is None
    assert "1 calibration case" in (r.corrected.undefined_reason or "")


def test_a_tiny_calibration_gets_no_corrected_rate_and_says_why() -> None:
    # two cases, three items each: J <= 0 in far more than 2.5% of the draws
    r = corrected_pass_rate(60, 100, [ErrorCounts(1, 0, 1, 0), ErrorCounts(1, 1, 1, 1)])
    assert r.corrected.value is None and r.corrected.ci95 is None
    assert "cannot tell the judge from chance" in (r.corrected.undefined_reason or "")


def test_no_items_judged() -> None:
    r = corrected_pass_rate(0, 0, _cases(10, 10, 1, 10, 1))
    assert r.corrected.value is None and r.judged.value is None


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        corrected_pass_rate(5, 3, _cases(2, 1, 1, 1, 1))
    with pytest.raises(ValueError):
        ErrorCounts(-1, 0, 0, 0)


@pytest.mark.parametrize(
    ("truth", "se", "sp", "per_case", "n"),
    [(0.3, 0.85, 0.9, 10, 500), (0.1, 0.9, 0.8, 6, 300)],
)
def test_the_interval_covers_the_true_rate(
    truth: float, se: float, sp: float, per_case: int, n: int
) -> None:
    """Simulated calibrations of 10 cases (each case with its own error rates around se and
    sp) and batches: the 95% interval holds the true pass rate in at least 90% of 100 runs.
    The benchmark (`bench_trials_coverage.py`) measures it with more runs."""
    rng = np.random.default_rng(7)
    hits = runs = 0
    for r in range(100):
        cases = []
        for _ in range(10):
            s, p = rng.beta(se * 20, (1 - se) * 20), rng.beta(sp * 20, (1 - sp) * 20)
            tp, tn = rng.binomial(per_case, s), rng.binomial(per_case, p)
            cases.append(ErrorCounts(tp, per_case - tp, tn, per_case - tn))
        passes = rng.random(n) < truth
        u = rng.random(n)
        judged_pass = int(np.where(passes, u < se, u < 1 - sp).sum())
        res = corrected_pass_rate(judged_pass, n, cases, draws=1000, seed=r)
        if res.corrected.ci95 is None:
            continue
        runs += 1
        lo, hi = res.corrected.ci95
        hits += lo <= truth <= hi
    assert runs >= 95
    assert hits / runs >= 0.90
