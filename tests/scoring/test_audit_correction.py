"""Outside audit of the corrected pass rate's promises (issue 18): undefined with its reason
when the calibration cannot tell the judge from chance, never a zero-width interval, clipped
estimates said so, calibration cases (not items) as the unit."""

from __future__ import annotations

import pytest

from calibrant.scoring import ErrorCounts, corrected_pass_rate

PERFECT = [ErrorCounts(true_pass=5, false_fail=0, true_fail=5, false_pass=0)] * 10


@pytest.mark.parametrize(("passed", "judged"), [(500, 500), (0, 500), (1, 1), (0, 1), (7, 9)])
def test_a_perfect_calibration_never_gives_a_zero_width_interval(passed: int, judged: int) -> None:
    r = corrected_pass_rate(passed, judged, PERFECT)
    c = r.corrected
    assert c.value is not None and c.ci95 is not None
    lo, hi = c.ci95
    assert 0.0 <= lo <= c.value <= hi <= 1.0
    assert hi - lo > 0.001  # never "[100%, 100%]" nor "[0%, 0%]"


def test_a_rate_below_the_false_pass_rate_is_clipped_to_zero_and_says_so() -> None:
    # specificity 0.8 in every case: a judged rate of 10% is below 1 - specificity (20%)
    cal = [ErrorCounts(true_pass=8, false_fail=2, true_fail=8, false_pass=2)] * 12
    r = corrected_pass_rate(30, 300, cal)
    assert r.corrected.value == 0.0
    assert r.note is not None and "clipped to 0" in r.note
    assert r.corrected.ci95 is not None and r.corrected.ci95[1] > 0.0


def test_a_judge_near_chance_gets_no_corrected_rate() -> None:
    # J = 26/50 + 25/50 - 1 = 0.02 on 10 cases: above 0, but the draws cannot tell it from 0
    cal = [ErrorCounts(true_pass=26, false_fail=24, true_fail=25, false_pass=25)] * 10
    r = corrected_pass_rate(50, 100, cal)
    assert r.corrected.value is None and r.corrected.ci95 is None
    assert "cannot tell the judge from chance" in (r.corrected.undefined_reason or "")
    assert r.judged.value == pytest.approx(0.5)  # the judged rate is still given


def test_one_calibration_case_of_many_items_gives_no_correction() -> None:
    one = [ErrorCounts(true_pass=500, false_fail=1, true_fail=500, false_pass=1)]
    r = corrected_pass_rate(50, 100, one)
    assert r.corrected.value is None
    assert "at least 2 cases" in (r.corrected.undefined_reason or "")


def test_empty_calibration_cases_do_not_count_as_cases() -> None:
    # a case whose items were all not_applicable holds no pass/fail count: still one real case
    cal = [ErrorCounts(50, 1, 50, 1)] + [ErrorCounts(0, 0, 0, 0)] * 9
    r = corrected_pass_rate(50, 100, cal)
    assert r.corrected.value is None


def test_more_calibration_cases_never_narrow_less_than_the_same_items_in_fewer_cases() -> None:
    # the same 100 items, errors lumped into 2 cases against spread over 10: the lumped
    # calibration knows less, so its interval is at least as wide
    lumped = [ErrorCounts(25, 0, 25, 0), ErrorCounts(20, 5, 20, 5)]
    spread = [ErrorCounts(5, 0, 5, 0)] * 5 + [ErrorCounts(4, 1, 4, 1)] * 5
    a = corrected_pass_rate(300, 500, lumped).corrected
    b = corrected_pass_rate(300, 500, spread).corrected
    assert a.ci95 is not None and b.ci95 is not None
    assert a.ci95[1] - a.ci95[0] >= b.ci95[1] - b.ci95[0]
