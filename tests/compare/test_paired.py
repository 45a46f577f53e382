"""Two judges on the same labeled items: the paired difference, McNemar, and the decision."""

from __future__ import annotations

import numpy as np
import pytest

from calibrant.compare import compare_paired, decide_family, mcnemar_exact, paired_estimate


def _judge(reference: np.ndarray, accuracy: float, rng: np.random.Generator) -> np.ndarray:
    wrong = rng.random(reference.size) > accuracy
    return np.where(wrong, 1 - reference, reference)


def test_mcnemar_counts_only_the_items_one_judge_got_right() -> None:
    a = [True, True, True, False, False, True]
    b = [True, False, False, True, False, True]
    t = mcnemar_exact(a, b)
    assert (t.a_only, t.b_only) == (2, 1)
    assert t.p_value == pytest.approx(1.0)  # 2 vs 1 discordant: no evidence
    strong = mcnemar_exact([False] * 12 + [True] * 8, [True] * 20)
    assert strong.b_only == 12 and strong.a_only == 0
    assert strong.p_value == pytest.approx(2 * 0.5**12)


def test_a_clearly_better_judge_is_called_better_and_the_reverse_worse() -> None:
    rng = np.random.default_rng(3)
    ref = rng.integers(0, 2, size=300)
    weak, strong = _judge(ref, 0.70, rng), _judge(ref, 0.95, rng)
    up = compare_paired(ref, weak, strong, k=2, seed=1)
    assert up.decision == "B better"
    assert up.difference is not None and up.difference > 0
    assert up.ci95 is not None and up.ci95[0] > 0
    assert up.mcnemar.b_only > up.mcnemar.a_only and up.mcnemar.p_value < 0.001
    down = compare_paired(ref, strong, weak, k=2, seed=1)
    assert down.decision == "B worse"


def test_two_equally_good_judges_stay_undecided_with_a_plan_in_cases_or_why_not() -> None:
    rng = np.random.default_rng(5)
    ref = rng.integers(0, 2, size=60)
    a, b = _judge(ref, 0.85, rng), _judge(ref, 0.85, rng)
    c = compare_paired(ref, a, b, k=2, seed=2, clusters=np.repeat(np.arange(12), 5))
    assert c.decision == "undecided"
    assert c.ci95 is not None and c.ci95[0] < 0 < c.ci95[1]
    assert c.paired.n_cases == 12
    if c.cases_needed is None:
        assert c.reason and ("standard error" in c.reason or "not observed" in c.reason)
    else:
        assert c.cases_needed > 12


def test_the_interval_is_paired_so_a_small_consistent_gain_is_detected() -> None:
    # B fixes 15 of A's errors and breaks none: a paired comparison sees it even though the two
    # kappas' separate intervals would overlap.
    rng = np.random.default_rng(11)
    ref = rng.integers(0, 2, size=200)
    a = _judge(ref, 0.80, rng)
    b = a.copy()
    wrong = np.flatnonzero(a != ref)[:15]
    b[wrong] = ref[wrong]
    c = compare_paired(ref, a, b, k=2, seed=4)
    assert c.decision == "B better"
    assert c.mcnemar.b_only == 15 and c.mcnemar.a_only == 0


def test_identical_judges_are_undecided_and_say_more_cases_would_not_help() -> None:
    ref = np.array([0, 1] * 20)
    a = ref.copy()
    a[:5] = 1 - a[:5]
    c = compare_paired(ref, a, a.copy(), k=2)
    assert c.decision == "undecided"
    assert c.difference == 0 and c.cases_needed is None
    assert "no difference observed" in (c.reason or "")


def test_a_constant_judge_scores_zero_and_loses_to_a_real_one() -> None:
    ref = np.array([0, 1] * 10)
    const = np.ones(20, dtype=int)
    c = compare_paired(ref, ref.copy(), const, k=2)
    assert c.kappa_b == 0.0
    assert c.decision == "B worse"


def test_a_reference_with_one_label_gives_no_kappa_and_says_why() -> None:
    ref = np.ones(20, dtype=int)
    a = np.array([0, 1] * 10)
    c = compare_paired(ref, a, ref.copy(), k=2)
    assert c.kappa_a is None or c.kappa_b is None
    assert c.decision == "undecided"
    assert c.reason and "undefined" in c.reason


def test_missing_labels_drop_the_item_for_both_judges() -> None:
    ref = np.array([0, 1, 0, 1, -1, 1, 0, 1, 0, 1])
    a = np.array([0, 1, 0, 1, 1, -1, 0, 1, 0, 1])
    b = np.array([0, 1, 0, 1, 1, 1, 0, 1, 0, 0])
    c = compare_paired(ref, a, b, k=2, n_resamples=200)
    assert c.n == 8


def test_clusters_resample_whole_cases() -> None:
    rng = np.random.default_rng(2)
    ref = rng.integers(0, 2, size=120)
    a, b = _judge(ref, 0.7, rng), _judge(ref, 0.95, rng)
    clusters = np.repeat(np.arange(12), 10)
    flat = compare_paired(ref, a, b, k=2, seed=1)
    grouped = compare_paired(ref, a, b, k=2, seed=1, clusters=clusters)
    assert grouped.difference == pytest.approx(flat.difference)
    assert grouped.ci95 is not None


def test_mismatched_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        compare_paired([0, 1], [0, 1, 1], [0, 1], k=2)
    with pytest.raises(ValueError):
        compare_paired([0, 1], [0, 1], [0, 1], k=2, clusters=[1])


def test_one_case_has_no_interval_and_few_cases_decide_nothing() -> None:
    rng = np.random.default_rng(8)
    ref = rng.integers(0, 2, size=80)
    weak, perfect = _judge(ref, 0.6, rng), ref.copy()
    one = compare_paired(ref, weak, perfect, k=2, clusters=np.zeros(80, dtype=int))
    assert one.decision == "undecided" and one.ci95 is None  # never an item-level interval
    assert one.reason and "1 case(s)" in one.reason
    four = compare_paired(ref, weak, perfect, k=2, clusters=np.repeat(np.arange(4), 20))
    assert four.decision == "undecided" and four.ci95 is not None and four.ci95[0] > 0
    assert four.reason and "below the minimum of 6 cases" in four.reason
    eight = compare_paired(ref, weak, perfect, k=2, clusters=np.repeat(np.arange(8), 10))
    assert eight.decision == "B better"


def test_criteria_are_decided_together_at_the_family_wise_level() -> None:
    rng = np.random.default_rng(21)
    clusters = np.repeat(np.arange(10), 12)
    ref = rng.integers(0, 2, size=120)
    a = _judge(ref, 0.75, rng)
    b = a.copy()
    wrong = np.flatnonzero(a != ref)
    b[wrong[::3]] = ref[wrong[::3]]  # B fixes a third of A's errors
    alone = decide_family({"c": paired_estimate(ref, a, b, k=2, clusters=clusters)})["c"]
    assert alone.decision == "B better" and alone.familywise_confidence == pytest.approx(0.95)
    same = {f"same{j}": paired_estimate(ref, a, a.copy(), k=2, clusters=clusters) for j in range(4)}
    family = decide_family({"c": paired_estimate(ref, a, b, k=2, clusters=clusters), **same})
    # five questions: the first decision needs the 99% interval
    assert family["c"].familywise_confidence == pytest.approx(0.99)
    assert family["c"].familywise_ci is not None and alone.ci95 is not None
    assert family["c"].familywise_ci[0] < alone.ci95[0]


def test_cases_needed_plans_on_an_upper_bound_of_the_spread_between_cases() -> None:
    # 6 cases: the spread between cases is measured on 5 degrees of freedom, and is often far
    # too small; a plan built on it is followed and then does not decide. The plan is built on
    # the spread's one-sided 80% upper bound instead: spread * sqrt(5 / chi2_0.2(5)) = spread *
    # 1.461, so about 1.461^2 = 2.13 times the cases (a little less: t(G-1) shrinks with G).
    from calibrant.agreement.familywise import cases_needed

    rng = np.random.default_rng(11)
    ref = rng.integers(0, 2, size=60)
    a = np.where(rng.random(60) > 0.75, 1 - ref, ref)
    b = np.where(rng.random(60) > 0.9, 1 - ref, ref)
    cases = np.repeat(np.arange(6), 10)
    c = compare_paired(ref, a, b, k=2, seed=1, clusters=cases)
    assert c.decision == "undecided" and c.cases_needed is not None
    estimate = paired_estimate(ref, a, b, k=2, seed=1, clusters=cases).estimate
    assert estimate is not None
    on_estimate, _ = cases_needed(estimate, family_size=1, min_cases=10, spread_confidence=0.0)
    assert on_estimate is not None and 6 < on_estimate < c.cases_needed
    assert 1.8 < c.cases_needed / on_estimate < 2.2
