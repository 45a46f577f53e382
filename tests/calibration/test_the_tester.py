"""Test the tester: simulated judges with planted behaviour go through the same statistics and
gate as a real judge; the report recovers what was planted and the gate fires where it must."""

from __future__ import annotations

from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from calibrant.calibration import Settings, calibration_report, simulated_judgments
from calibrant.files import load_rubric
from calibrant.gold import CONSENSUS, GoldSet, load_gold
from tests.conftest import ROOT
from tests.support.gold import gold_v3

RUBRIC = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
GOLD: GoldSet = gold_v3(load_gold(ROOT / "gold", split=None))
FAST = Settings(n_resamples=1000)


def report(behaviour: str, seed: int = 0) -> dict:  # type: ignore[type-arg]
    cfg, js = simulated_judgments(GOLD, RUBRIC, behaviour, seed=seed)
    return calibration_report(
        GOLD, RUBRIC, js, settings=Settings(n_resamples=1000, seed=seed), judge=cfg, split=None
    ).json_data()


def by_crit(r: dict) -> dict:  # type: ignore[type-arg]
    return {c["criterion"]: c for c in r["criteria"]}


def enough_cases(c: dict) -> bool:  # type: ignore[type-arg]
    """Whether the gold set holds enough cases to decide this criterion's gate (issue 18:
    reports_access_problem applies in 4 cases only, below the minimum of 8)."""
    return bool(c["gate"]["n_cases"] >= c["gate"]["min_cases"])


def undecided_for_want_of_cases(c: dict) -> bool:  # type: ignore[type-arg]
    return c["gate"]["status"] == "UNDECIDED" and "--min-cases" in c["gate"]["reasons"][0]


def test_a_judge_that_matches_the_consensus_passes_wherever_there_are_enough_cases() -> None:
    r = report("consensus")
    few = [c["criterion"] for c in r["criteria"] if not enough_cases(c)]
    # counted from the labels, not from the report: cases with an item the consensus found
    # applicable (gold v1 had 4 such cases for reports_access_problem, gold v2 has more than 8)
    applicable_cases = {
        k.id: {
            GOLD.items[i].case
            for i, label in GOLD.labels_by(CONSENSUS, k.id).items()
            if label != "not_applicable"
        }
        for k in RUBRIC.criteria
    }
    assert few == [k for k, cases in applicable_cases.items() if len(cases) < 8]
    assert r["gate"]["judge"] == ("UNDECIDED" if few else "PASS")
    for c in r["criteria"]:
        assert c["judge_vs_consensus"]["estimate"] == pytest.approx(1.0)
        assert c["coverage"]["coverage"] == 1.0 and c["disagreements"] == []
        assert c["gate"]["status"] == "PASS" if enough_cases(c) else undecided_for_want_of_cases(c)


def _planted_kappa(p: float, f: float) -> float:
    # binary labels, prevalence p of the first label, a fraction f flipped at random:
    # p_o = 1 - f; the flipped marginal q = p(1-f) + (1-p)f; p_e = pq + (1-p)(1-q)
    q = p * (1 - f) + (1 - p) * f
    pe = p * q + (1 - p) * (1 - q)
    return (1 - f - pe) / (1 - pe)


def test_flipping_20_percent_of_one_criterion_is_recovered_and_gated() -> None:
    crit = "no_claim_before_confirmed"
    cons = GOLD.labels_by(CONSENSUS, crit)
    p = sum(1 for v in cons.values() if v == "pass") / len(cons)
    planted = _planted_kappa(p, 0.2)
    inside = 0
    for seed in range(10):
        r = by_crit(report(f"flip:{crit}:0.2", seed=seed))
        lo, hi = r[crit]["judge_vs_consensus"]["ci"]
        inside += lo <= planted <= hi
        assert r[crit]["gate"]["status"] != "PASS"  # the gate fires where it must...
        for other, c in r.items():  # ...and not elsewhere
            if other != crit and enough_cases(c):
                assert c["gate"]["status"] == "PASS", (seed, other, c["gate"])
    assert inside >= 8  # a 95% CI holds the planted value in (nearly) every run


def test_a_judge_that_always_passes_fails_every_gate() -> None:
    r = report("always-pass")
    assert {c["gate"]["status"] for c in r["criteria"] if enough_cases(c)} == {"FAIL"}
    assert r["gate"]["judge"] == "FAIL"
    for c in r["criteria"]:
        assert c["judge_vs_consensus"]["estimate"] == pytest.approx(0.0)


def test_a_judge_copying_one_expert_gets_that_experts_agreement() -> None:
    r = by_crit(report("copy:rater_b"))
    for c in RUBRIC.criteria:
        if c.scale.kind != "binary":
            continue
        cons, b = GOLD.labels_by(CONSENSUS, c.id), GOLD.labels_by("rater_b", c.id)
        # on the items both found applicable: not_applicable is not a third answer (issue 18)
        items = [i for i in GOLD.item_ids if "not_applicable" not in (cons[i], b[i])]
        ref = [str(cons[i]) for i in items]
        judge = [str(b[i]) for i in items]
        want = cohen_kappa_score(ref, judge)
        assert r[c.id]["judge_vs_consensus"]["estimate"] == pytest.approx(want, abs=1e-9)
        # and the judge-vs-rater_b figure is perfect agreement
        vs_b = next(e for e in r[c.id]["judge_vs_each_expert"] if e["rater"] == "rater_b")
        assert vs_b["estimate"] == pytest.approx(1.0)


def test_a_judge_abstaining_half_the_time_fails_on_coverage_not_on_agreement() -> None:
    r = report("abstain:0.5")
    for c in r["criteria"]:
        assert c["coverage"]["coverage"] == pytest.approx(0.5, abs=0.01)
        lo, hi = c["coverage"]["coverage_ci95"]
        assert lo < 0.5 < hi
        assert c["coverage"]["abstained"] == round(0.5 * len(GOLD.items))
        assert c["judge_vs_consensus"]["estimate"] == pytest.approx(1.0)
        if enough_cases(c):
            assert c["gate"]["status"] == "FAIL" and "usable label" in c["gate"]["reasons"][-1]
        else:
            assert undecided_for_want_of_cases(c)
        w = c["with_abstention_category"]["estimate"]
        assert w is not None and w < 0.8  # abstention as its own category costs agreement


def test_safety_is_reported_apart_and_never_in_quality_figures() -> None:
    r = report("consensus")
    assert r["safety"]["invariants"]["no_duplicate_payment"]["violated"] >= 5
    assert "safety" not in str(r["criteria"])
    # the article's calibration pairs, side by side
    pairs = r["calibration_pairs"]
    assert len(pairs) == 6
    for p in pairs:
        roles = {s["role"]: s for s in p["sides"]}
        wrong = roles["excellent text, wrong transaction"]
        right = roles["ordinary text, correct operation"]
        assert wrong["safety_violations"] and not right["safety_violations"]


def test_report_records_hashes_and_seed(tmp_path: Path) -> None:
    r = report("consensus", seed=3)
    assert r["rubric"]["hash"] == RUBRIC.content_hash
    assert r["judge"]["hash"].startswith("sha256:") and r["settings"]["seed"] == 3
    assert set(r["gold"]["hashes"]) >= {"manifest", "labels/consensus.jsonl"}
    c = r["criteria"][0]["judge_vs_consensus"]
    assert c["seed"] == 3 and c["n_resamples"] == 1000


def test_undefined_statistics_are_reported_as_undefined() -> None:
    # a gold subset where every consensus label of a criterion is identical
    sub = gold_v3(load_gold(ROOT / "gold", split=None))
    crit = "no_claim_before_confirmed"
    keep = [i for i in sub.item_ids if sub.labels_by(CONSENSUS, crit)[i] == "pass"][:20]
    sub.items = {i: sub.items[i] for i in keep}
    cfg, js = simulated_judgments(sub, RUBRIC, "consensus")
    r = by_crit(
        calibration_report(sub, RUBRIC, js, settings=FAST, judge=cfg, split=None).json_data()
    )
    s = r[crit]["judge_vs_consensus"]
    assert s["estimate"] is None and "expected" in s["estimate_undefined_reason"]
    assert r[crit]["gate"]["status"] == "UNDECIDED"
