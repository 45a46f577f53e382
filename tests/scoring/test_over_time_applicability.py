"""agreement-over-time gates a window as calibrate gates a gold set, applicability included
(issue 31, point 6): a judge that never says not_applicable is not PASSed in a window, and one
that tells applicability as the experts do is not held back by it."""

from __future__ import annotations

import random

from calibrant.files import load_rubric
from calibrant.scoring.over_time import AuditedItem, window_criterion
from tests.conftest import ROOT


def _window(*, never_na: bool) -> list[AuditedItem]:
    rng = random.Random(3)
    items = []
    for n in range(90):  # 30 cases of 3 items, two experts, about half not applicable
        truth = "not_applicable" if rng.random() < 0.5 else rng.choice(["pass", "fail"])
        a = truth if rng.random() < 0.95 else rng.choice(["pass", "fail", "not_applicable"])
        b = truth if rng.random() < 0.95 else rng.choice(["pass", "fail", "not_applicable"])
        judge = truth if rng.random() < 0.95 else rng.choice(["pass", "fail", "not_applicable"])
        if never_na and judge == "not_applicable":
            judge = "pass"
        items.append(
            AuditedItem(f"case-{n // 3}", f"i{n}", truth, judge, False, {"a": a, "b": b}, 0.5)
        )
    return items


def test_a_window_fails_a_judge_that_never_says_not_applicable() -> None:
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    c = next(x for x in rubric.criteria if x.id == "reports_access_problem")
    assert c.not_applicable_when
    never = window_criterion(c, _window(never_na=True), n_resamples=300).gate
    assert never.status == "FAIL", never.reasons
    assert "applicability (applies / not_applicable): D's upper bound" in never.reasons[0]
    assert never.applicability_checked is True and never.applicability_n_cases == 30
    honest = window_criterion(c, _window(never_na=False), n_resamples=300).gate
    # a judge that tells applicability as the experts do is not held back by it (here the
    # quality comparison, on ~45 applicable items, decides)
    assert honest.applicability_difference_lower_bound > -0.1
    assert not any("applicability (applies" in r for r in honest.reasons)
    assert honest.status != "FAIL"
