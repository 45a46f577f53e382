"""Issue 9, points 7-10, through the calibration report a user reads: no PASS from a handful of
items, one gate rule, the ceiling measured with the judge's own statistic, and not_applicable
kept outside an ordinal scale."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from calibrant.agreement.gate import GateSettings
from calibrant.calibration import Settings, calibration_report, simulated_judgments
from calibrant.contracts import Label, Rubric
from calibrant.files import load_rubric
from calibrant.gold import CONSENSUS, GoldSet, load_gold
from calibrant.reports.calibration import calibration_markdown
from tests.conftest import ROOT
from tests.support.gold import gold_v3

RUBRIC = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
FAST = Settings(n_resamples=500)


def _gold() -> GoldSet:
    return gold_v3(load_gold(ROOT / "gold", split=None))


def _by_crit(r: dict[str, Any]) -> dict[str, Any]:
    return {c["criterion"]: c for c in r["criteria"]}


def _report(gold: GoldSet, rubric: Rubric = RUBRIC, settings: Settings = FAST) -> dict[str, Any]:
    cfg, js = simulated_judgments(gold, rubric, "consensus")
    r = calibration_report(gold, rubric, js, settings=settings, judge=cfg, split=None)
    return _by_crit(r.json_data())


def _unanimous_subset(gold: GoldSet, crit: str, n: int) -> GoldSet:
    """n items on which both experts and the consensus agree, with both labels present, each
    from a different case (so the cluster bootstrap has n clusters)."""
    a, b = gold.labels_by("rater_a", crit), gold.labels_by("rater_b", crit)
    cons = gold.labels_by(CONSENSUS, crit)
    by_label: dict[Any, list[str]] = {}
    seen_cases: set[str] = set()
    for i in gold.item_ids:
        if a.get(i) == b.get(i) == cons.get(i) and gold.items[i].case not in seen_cases:
            by_label.setdefault(cons[i], []).append(i)
            seen_cases.add(gold.items[i].case)
    labels = sorted(by_label, key=str)
    assert len(labels) >= 2
    keep: list[str] = []
    while len(keep) < n:
        for lab in labels:
            if by_label[lab] and len(keep) < n:
                keep.append(by_label[lab].pop())
    gold.items = {i: gold.items[i] for i in keep}
    return gold


def test_perfect_agreement_on_five_items_does_not_pass() -> None:
    # Today: judge [1, 1], experts [1, 1] on 5 items -> PASS. Five items cannot show that a
    # judge agrees well: below --min-items the gate is UNDECIDED and says why.
    crit = "separates_done_from_pending"
    c = _report(_unanimous_subset(_gold(), crit, 5))[crit]
    assert c["judge_vs_consensus"]["estimate"] == pytest.approx(1.0)
    assert c["gate"]["status"] == "UNDECIDED"
    assert "below the minimum of 20" in c["gate"]["reasons"][0]
    assert c["gate"]["n"] == 5 and c["gate"]["min_items"] == 20
    # ...and the interval itself is honest: not the degenerate [1, 1]
    lo, hi = c["judge_vs_consensus"]["ci"]
    assert hi == pytest.approx(1.0) and lo < 0.6


def test_min_items_is_configurable_and_small_n_still_cannot_pass() -> None:
    crit = "separates_done_from_pending"
    lenient = Settings(n_resamples=500, gate=GateSettings(min_items=2))
    c = _report(_unanimous_subset(_gold(), crit, 5), settings=lenient)[crit]
    assert c["gate"]["min_items"] == 2
    assert c["gate"]["status"] != "PASS"  # the interval, not only the count, keeps it honest


def test_undefined_ceiling_is_undecided_not_a_silent_fallback() -> None:
    # one expert only: no expert pair, the ceiling is undefined. Today the gate falls back to
    # the absolute bar and a perfect judge PASSes; the rule says UNDECIDED.
    gold = _gold()
    gold.experts = {"rater_a": gold.experts["rater_a"]}
    r = _report(gold)
    for c in r.values():
        assert c["gate"]["status"] == "UNDECIDED", c["gate"]
        why = " ".join(c["gate"]["reasons"])
        assert "no expert pair" in why or "--min-cases" in why
        if "--min-cases" not in why:
            assert "does not fall back to the absolute bar" in why
    # gating on the absolute bar is possible, but only deliberately
    no_ceiling = Settings(n_resamples=500, gate=GateSettings(use_ceiling=False))
    got = _report(gold, settings=no_ceiling)
    assert {c["gate"]["status"] for c in got.values() if c["gate"]["n_cases"] >= 8} == {"PASS"}


def _third_expert(gold: GoldSet, crit: str) -> GoldSet:
    """rater_c: rater_a's labels with every 4th item of `crit` moved one level down."""
    levels = [1, 2, 3, 4]
    out = []
    for k, x in enumerate(sorted(gold.experts["rater_a"], key=lambda x: (x.item, x.criterion))):
        label = x.label
        if x.criterion == crit and k % 4 == 0 and label in levels and label != 1:
            label = levels[levels.index(label) - 1]
        out.append(Label(item=x.item, rater="rater_c", criterion=x.criterion, label=label))
    gold.experts["rater_c"] = out
    return gold


def test_ceiling_with_three_experts_uses_the_judges_statistic() -> None:
    # Today: nominal Fleiss' kappa over the three experts, while the judge is measured with
    # linear-weighted kappa: two different statistics compared in the gate.
    crit = "overall_clarity"
    gold = _third_expert(_gold(), crit)
    c = _report(gold)[crit]
    assert c["statistic"] == "weighted_kappa_linear"
    ceiling = c["expert_ceiling"]
    assert ceiling["statistic"] == "mean_pairwise_weighted_kappa_linear"
    assert "mean weighted_kappa_linear over the 3 expert pairs" == c["expert_ceiling_statistic"]
    want = []
    for a, b in (("rater_a", "rater_b"), ("rater_a", "rater_c"), ("rater_b", "rater_c")):
        la, lb = gold.labels_by(a, crit), gold.labels_by(b, crit)
        both = [i for i in gold.item_ids if i in la and i in lb]
        want.append(
            cohen_kappa_score(
                [la[i] for i in both], [lb[i] for i in both], labels=[1, 2, 3, 4], weights="linear"
            )
        )
    assert ceiling["estimate"] == pytest.approx(float(np.mean(want)), abs=1e-12)
    lo, hi = ceiling["ci"]
    assert lo < ceiling["estimate"] < hi and hi - lo < 0.5


def _rubric_with_na_on(crit: str) -> Rubric:
    doc = RUBRIC.model_dump(mode="json")
    for c in doc["criteria"]:
        if c["id"] == crit:
            c["not_applicable_when"] = "The conversation never reached the customer."
    return Rubric.model_validate(doc)


def _with_na(gold: GoldSet, crit: str, items: list[str]) -> GoldSet:
    def swap(labels: list[Label]) -> list[Label]:
        return [
            x.model_copy(update={"label": "not_applicable"})
            if x.criterion == crit and x.item in items
            else x
            for x in labels
        ]

    gold.consensus = swap(gold.consensus)
    gold.experts = {r: swap(v) for r, v in gold.experts.items()}
    return gold


def test_not_applicable_is_not_a_level_of_an_ordinal_scale() -> None:
    # Today not_applicable is appended to the ordinal scale as a fifth level above
    # "Excellent", so weighted kappa counts NA-vs-1 as the largest possible disagreement.
    crit = "overall_clarity"
    rubric = _rubric_with_na_on(crit)
    gold = _gold()
    na_items = gold.item_ids[::9]
    gold = _with_na(gold, crit, na_items)
    cfg, js = simulated_judgments(gold, rubric, "consensus")
    # the judge calls 3 of the NA items "1" (Poor): an applicability error, not a scale distance
    wrong = na_items[:3]
    for i in wrong:
        j = js[i]
        crits = [
            x.model_copy(update={"label": 1}) if x.criterion == crit else x for x in j.criteria
        ]
        js[i] = j.model_copy(update={"criteria": crits})
    full = calibration_report(gold, rubric, js, settings=FAST, judge=cfg, split=None).json_data()
    c = _by_crit(full)[crit]
    assert c["scale"] == ["1", "2", "3", "4"] and c["level"] == "ordinal"
    # the ordered statistic is computed on applicable items only: the judge matches there
    assert c["judge_vs_consensus"]["estimate"] == pytest.approx(1.0)
    na = c["not_applicable"]
    assert na["outside_scale"] is True
    assert na["n_items"] == {"the consensus": len(na_items), "the judge": len(na_items) - 3}
    applicability = na["agreement_on_applicability"]
    assert applicability["estimate"] is not None and applicability["estimate"] < 1.0
    assert applicability["n"] == len(gold.item_ids) and applicability["ci"] is not None
    # the confusion matrix keeps not_applicable as its own row and column
    assert "not_applicable" in c["confusion"]["rows_consensus"]
    # and the Markdown report says so in words
    md = calibration_markdown(full)
    assert "`not_applicable` (its own category, outside the ordered levels)" in md
