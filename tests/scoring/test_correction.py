"""The judged pass rate corrected by the judge's measured error rates (Rogan–Gladen)."""

from __future__ import annotations

import numpy as np
import pytest

from calibrant.scoring import ErrorCounts, corrected_pass_rate


def test_a_perfect_judge_needs_no_correction() -> None:
    r = corrected_pass_rate(
        30, 100, ErrorCounts(true_pass=50, false_fail=0, true_fail=50, false_pass=0)
    )
    assert r.judged.value == pytest.approx(0.30)
    assert r.corrected.value == pytest.approx(0.30)
    lo, hi = r.corrected.ci95  # type: ignore[misc]
    assert lo < 0.30 < hi


def test_a_lenient_judge_overstates_the_pass_rate_and_the_correction_brings_it_down() -> None:
    # The judge passes 20% of what the experts fail and 90% of what they pass: a true pass
    # rate of 30% is judged 0.3 * 0.9 + 0.7 * 0.2 = 41%.
    errors = ErrorCounts(true_pass=90, false_fail=10, true_fail=80, false_pass=20)
    r = corrected_pass_rate(410, 1000, errors)
    assert r.sensitivity.value == pytest.approx(0.9)
    assert r.specificity.value == pytest.approx(0.8)
    assert r.corrected.value == pytest.approx((0.41 + 0.8 - 1) / (0.9 + 0.8 - 1))
    assert r.corrected.value == pytest.approx(0.30)
    lo, hi = r.corrected.ci95  # type: ignore[misc]
    assert lo < 0.30 < hi
    # the calibration's uncertainty widens the interval beyond the batch's own
    jlo, jhi = r.judged.ci95  # type: ignore[misc]
    assert (hi - lo) > (jhi - jlo)


def test_the_correction_stays_a_proportion() -> None:
    # judged below the judge's false-pass rate: the raw estimator goes negative
    r = corrected_pass_rate(
        5, 100, ErrorCounts(true_pass=45, false_fail=5, true_fail=40, false_pass=10)
    )
    assert r.corrected.value == 0.0
    lo, hi = r.corrected.ci95  # type: ignore[misc]
    assert 0.0 <= lo <= hi <= 1.0


def test_a_judge_no_better_than_chance_gets_no_number() -> None:
    r = corrected_pass_rate(
        50, 100, ErrorCounts(true_pass=5, false_fail=5, true_fail=5, false_pass=5)
    )
    assert r.corrected.value is None
    assert "no better than chance" in (r.corrected.undefined_reason or "")
    assert r.judged.value == pytest.approx(0.5)  # the judged rate is still reported


def test_a_calibration_without_failures_cannot_measure_specificity() -> None:
    r = corrected_pass_rate(
        50, 100, ErrorCounts(true_pass=20, false_fail=2, true_fail=0, false_pass=0)
    )
    assert r.corrected.value is None
    assert "specificity" in (r.corrected.undefined_reason or "")


def test_a_tiny_calibration_gives_a_point_but_says_why_there_is_no_interval() -> None:
    r = corrected_pass_rate(
        60, 100, ErrorCounts(true_pass=2, false_fail=1, true_fail=2, false_pass=1)
    )
    assert r.corrected.value is not None
    assert r.corrected.ci95 is None
    assert "too small" in (r.corrected.undefined_reason or "")


def test_no_items_judged() -> None:
    r = corrected_pass_rate(0, 0, ErrorCounts(10, 1, 10, 1))
    assert r.corrected.value is None and r.judged.value is None


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        corrected_pass_rate(5, 3, ErrorCounts(1, 1, 1, 1))
    with pytest.raises(ValueError):
        ErrorCounts(-1, 0, 0, 0)


@pytest.mark.parametrize(
    ("truth", "se", "sp", "n_pos", "n_neg", "n"),
    [(0.3, 0.85, 0.9, 40, 60, 500), (0.6, 0.75, 0.85, 30, 30, 1000), (0.1, 0.9, 0.8, 20, 40, 300)],
)
def test_the_interval_covers_the_true_rate(
    truth: float, se: float, sp: float, n_pos: int, n_neg: int, n: int
) -> None:
    """Simulated calibrations and batches: the 95% interval holds the true pass rate in at
    least 90% of 200 runs (the binomial SE of a 95% coverage over 200 runs is 1.5 points)."""
    rng = np.random.default_rng(7)
    hits = runs = 0
    for r in range(200):
        tp, tn = rng.binomial(n_pos, se), rng.binomial(n_neg, sp)
        passes = rng.random(n) < truth
        u = rng.random(n)
        judged_pass = int(np.where(passes, u < se, u < 1 - sp).sum())
        res = corrected_pass_rate(
            judged_pass, n, ErrorCounts(tp, n_pos - tp, tn, n_neg - tn), draws=4000, seed=r
        )
        if res.corrected.ci95 is None:
            continue
        runs += 1
        lo, hi = res.corrected.ci95
        hits += lo <= truth <= hi
    assert runs >= 190
    assert hits / runs >= 0.90
