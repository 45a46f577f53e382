"""Outside audit of `compare`'s promises (issue 18), with planted judges on the shipped gold
set: equal judges are never called different, a clear difference is found over enough cases,
fewer than --min-cases cases decide nothing, and "cases needed" counts cases."""

from __future__ import annotations

import copy
from typing import Any

from calibrant.calibration import Settings, simulated_judgments
from calibrant.calibration.compare_judges import compare_judges
from calibrant.gold import GoldSet
from tests.reports.support import GOLD, RUBRIC

FAST = Settings(n_resamples=400)


def _compare(gold: GoldSet, a: str, b: str, **kw: Any) -> dict[str, Any]:
    cfg_a, ja = simulated_judgments(gold, RUBRIC, a)
    cfg_b, jb = simulated_judgments(gold, RUBRIC, b)
    cfg_b = cfg_b.model_copy(update={"model": "planted/b"})
    return compare_judges(
        gold,
        RUBRIC,
        judge_a=cfg_a,
        judge_b=cfg_b,
        judgments_a=ja,
        judgments_b=jb,
        settings=FAST,
        split=None,
        **kw,
    ).json_data()


def _cases(k: int) -> GoldSet:
    keep = sorted({m.case for m in GOLD.items.values()})[:k]
    g = copy.copy(GOLD)
    g.items = {i: m for i, m in GOLD.items.items() if m.case in keep}
    return g


def test_identical_judges_are_never_called_different() -> None:
    r = _compare(GOLD, "consensus", "consensus")
    assert {c["decision"] for c in r["criteria"]} == {"undecided"}
    assert r["overall"] == "undecided"


def test_a_constant_judge_against_a_perfect_one_is_found_worse_over_33_cases() -> None:
    r = _compare(GOLD, "consensus", "always-pass")
    decided = {c["criterion"]: c["decision"] for c in r["criteria"]}
    assert "B better" not in decided.values()
    assert sum(d == "B worse" for d in decided.values()) >= 3, decided


def test_below_the_minimum_of_cases_even_a_huge_difference_decides_nothing() -> None:
    g = _cases(4)
    r = _compare(g, "consensus", "always-pass")
    for c in r["criteria"]:
        assert c["decision"] == "undecided", c
        assert c["n_cases"] <= 4
    # with the minimum lowered to what the set has, the same data may decide
    low = _compare(g, "consensus", "always-pass", min_cases=2)
    assert {c["decision"] for c in low["criteria"]} <= {"undecided", "B worse"}


def test_cases_needed_is_a_count_of_cases_above_what_was_used() -> None:
    r = _compare(_cases(8), "consensus", "flip:overall_clarity:0.3")
    for c in r["criteria"]:
        if c["decision"] == "undecided" and c["cases_needed"] is not None:
            assert isinstance(c["cases_needed"], int)
            assert c["cases_needed"] > c["n_cases"]
