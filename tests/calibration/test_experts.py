"""The report's `experts` section: the judge against each expert and against the consensus,
and a flag when the consensus is close to one expert's echo (issue 9, point 13)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score

from calibrant.calibration.experts import CLOSE_SHARE, MIN_DISAGREEMENTS
from calibrant.contracts import Label
from calibrant.gold import CONSENSUS, GoldSet
from tests.reports.support import GOLD, RUBRIC, build, every_format

CRITERIA = [c.id for c in RUBRIC.criteria]


def _by(r: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["criterion"]: c for c in r["experts"]["criteria"]}


def _follow_counts(gold: GoldSet) -> tuple[int, int, int]:
    """(followed rater_a, followed rater_b, disagreements), from the labels themselves."""
    fa = fb = n = 0
    for c in CRITERIA:
        a, b = gold.labels_by("rater_a", c), gold.labels_by("rater_b", c)
        cons = gold.labels_by(CONSENSUS, c)
        for i in set(a) & set(b):
            if a[i] != b[i]:
                n += 1
                fa += cons[i] == a[i]
                fb += cons[i] == b[i]
    return fa, fb, n


def test_the_judge_is_measured_against_each_expert_and_the_consensus() -> None:
    r = build("copy:rater_a")
    e = _by(r)
    main = {c["criterion"]: c for c in r["criteria"]}
    assert set(e) == set(CRITERIA)
    for crit, c in e.items():
        assert set(c["judge_vs"]) == {"rater_a", "rater_b", CONSENSUS}
        assert c["judge_vs"]["rater_a"]["estimate"] == pytest.approx(1.0)
        assert c["judge_vs"][CONSENSUS]["estimate"] == pytest.approx(
            main[crit]["judge_vs_consensus"]["estimate"]
        )
        for who, s in c["judge_vs"].items():
            # not_applicable is not a third answer beside pass/fail: the pair's statistic uses
            # the items both raters found applicable (issue 18)
            ref, judge = GOLD.labels_by(who, crit), GOLD.labels_by("rater_a", crit)
            applicable = [
                i for i in GOLD.items if "not_applicable" not in (ref.get(i), judge.get(i))
            ]
            assert s["n"] == len(applicable) and s["ci"] is not None
    crit = "separates_done_from_pending"
    a, b = GOLD.labels_by("rater_a", crit), GOLD.labels_by("rater_b", crit)
    items = sorted(GOLD.items)
    want = cohen_kappa_score([a[i] for i in items], [b[i] for i in items])
    assert e[crit]["judge_vs"]["rater_b"]["estimate"] == pytest.approx(want)
    assert want < 0.95  # the two experts do differ here: the per-expert figure says something


def test_the_report_says_when_the_consensus_echoes_one_expert() -> None:
    r = build("consensus")
    fa, fb, n = _follow_counts(GOLD)
    [overall] = r["experts"]["overall"]
    assert overall["n_disagreements"] == n and n >= MIN_DISAGREEMENTS
    assert overall["followed"]["rater_a"] == fa and overall["followed"]["rater_b"] == fb
    top = "rater_a" if fa >= fb else "rater_b"
    assert overall["closest"] == top
    assert overall["close_to_one_expert"] is (max(fa, fb) / n >= CLOSE_SHARE)
    assert overall["closest_share"]["n"] == n and overall["closest_share"]["ci95"] is not None
    if overall["close_to_one_expert"]:
        for fmt, text in every_format(r).items():
            if fmt != "json":
                assert f"the consensus is close to {top}'s labels" in text, fmt
                assert f"disagreed on {n} labels" in text, fmt


def _consensus_following(gold: GoldSet, pattern: str) -> GoldSet:
    """A copy whose consensus, on the experts' disagreements, follows rater_a or rater_b by
    turns ('alternate') or always rater_a ('a')."""
    g = copy.copy(gold)
    cons = []
    turn = 0
    for x in gold.consensus:
        a = gold.labels_by("rater_a", x.criterion).get(x.item)
        b = gold.labels_by("rater_b", x.criterion).get(x.item)
        if a is not None and b is not None and a != b:
            pick = a if pattern == "a" or turn % 2 == 0 else b
            turn += 1
            x = Label(item=x.item, rater=CONSENSUS, criterion=x.criterion, label=pick)
        cons.append(x)
    g.consensus = cons
    return g


def test_a_balanced_adjudication_is_not_flagged_and_a_one_sided_one_is() -> None:
    balanced = build("consensus", gold=_consensus_following(GOLD, "alternate"))
    [o] = balanced["experts"]["overall"]
    assert o["close_to_one_expert"] is False
    assert "does not echo either expert" in every_format(balanced)["markdown"]
    one_sided = build("consensus", gold=_consensus_following(GOLD, "a"))
    [o] = one_sided["experts"]["overall"]
    assert o["close_to_one_expert"] is True and o["closest"] == "rater_a"
    assert o["followed"]["rater_b"] == 0


def test_too_few_disagreements_are_not_flagged_either_way() -> None:
    # rater_b = rater_a except on two items of one criterion: 2 disagreements, no verdict
    crit = "explains_next_step"
    a = GOLD.labels_by("rater_a", crit)
    flip = sorted(a)[:2]
    other = {"pass": "fail", "fail": "pass"}
    g = copy.copy(GOLD)
    g.experts = {
        "rater_a": GOLD.experts["rater_a"],
        "rater_b": [
            Label(
                item=x.item,
                rater="rater_b",
                criterion=x.criterion,
                label=other[x.label] if (x.criterion, x.item in flip) == (crit, True) else x.label,
            )
            for x in GOLD.experts["rater_a"]
        ],
    }
    r = build("consensus", gold=g)
    p = _by(r)[crit]["consensus_followed"][0]
    assert p["n_disagreements"] == 2 and p["close_to_one_expert"] is None
    assert p["explanation"] == f"too few disagreements to tell (n=2, need {MIN_DISAGREEMENTS})"
    [o] = r["experts"]["overall"]
    assert o["n_disagreements"] == 2 and o["close_to_one_expert"] is None
    assert "too few disagreements to tell" in every_format(r)["markdown"]
    quiet = _by(r)["no_claim_before_confirmed"]["consensus_followed"][0]
    assert quiet["n_disagreements"] == 0 and quiet["close_to_one_expert"] is None


def test_experts_who_labeled_different_items_are_not_compared() -> None:
    items = sorted(GOLD.items)
    first, second = set(items[: len(items) // 2]), set(items[len(items) // 2 :])
    g = copy.copy(GOLD)
    g.experts = {
        "rater_a": [x for x in GOLD.experts["rater_a"] if x.item in first],
        "rater_c": [
            Label(item=x.item, rater="rater_c", criterion=x.criterion, label=x.label)
            for x in GOLD.experts["rater_b"]
            if x.item in second
        ],
    }
    r = build("consensus", gold=g)
    [o] = r["experts"]["overall"]
    assert o["n_shared"] == 0 and o["close_to_one_expert"] is None
    for c in r["experts"]["criteria"]:
        assert c["consensus_followed"][0]["explanation"] == (
            "the two experts labeled nothing in common"
        )
        rater_c = {x.item: x.label for x in g.experts["rater_c"] if x.criterion == c["criterion"]}
        judge = GOLD.labels_by(CONSENSUS, c["criterion"])
        both_applicable = [  # not_applicable is outside pass/fail (issue 18)
            i for i in second if "not_applicable" not in (rater_c.get(i), judge.get(i))
        ]
        assert c["judge_vs"]["rater_c"]["n"] == len(both_applicable)
    assert "Adjudication, all criteria" not in every_format(r)["markdown"]
