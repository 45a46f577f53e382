"""Issue 18 through the calibration report a user reads: no decision on one case, pass/fail
judged apart from applicability, per-label rates and the always-one-label baseline in every
format, and stored reports of the previous version still rendering."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score

from calibrant.calibration import Settings, calibration_report, simulated_judgments
from calibrant.calibration.noise import apply_run_to_run, run_to_run_section
from calibrant.contracts import Label, Rubric
from calibrant.gold import CONSENSUS, GoldSet
from calibrant.store import make_engine
from calibrant.store.runs import Runs
from tests.reports.support import GOLD, RUBRIC, build, build_report, every_format

FAST = Settings(n_resamples=400)
CRITERIA = [c.id for c in RUBRIC.criteria]


def _by(r: dict[str, Any]) -> dict[str, Any]:
    return {c["criterion"]: c for c in r["criteria"]}


def test_one_case_never_passes_and_its_intervals_are_undefined() -> None:
    g = copy.copy(GOLD)
    g.items = {i: m.model_copy(update={"case": "one_case"}) for i, m in GOLD.items.items()}
    r = build("consensus", gold=g)
    assert {c["gate"]["status"] for c in r["criteria"]} == {"UNDECIDED"}
    for c in r["criteria"]:
        assert c["gate"]["n_cases"] == 1 and "only 1 case(s)" in c["gate"]["reasons"][0]
        judge = c["judge_vs_consensus"]
        assert (
            judge["ci"] is None
            and "case-clustered interval needs at least 2" in (judge["ci_undefined_reason"])
        )
        assert c["gate_comparison"]["difference"]["ci"] is None
    assert "undefined" in every_format(r)["markdown"]


def _rubric_with_na(crit: str) -> Rubric:
    doc = RUBRIC.model_dump(mode="json")
    for c in doc["criteria"]:
        if c["id"] == crit:
            c["not_applicable_when"] = "The conversation never reached the customer."
    return Rubric.model_validate(doc)


def _na_gold(crit: str) -> GoldSet:
    g = copy.copy(GOLD)
    na = set(GOLD.item_ids[::3])  # every third item, in every case

    def swap(labels: list[Label]) -> list[Label]:
        return [
            x.model_copy(update={"label": "not_applicable"})
            if x.criterion == crit and x.item in na
            else x
            for x in labels
        ]

    g.consensus = swap(GOLD.consensus)
    g.experts = {r: swap(v) for r, v in GOLD.experts.items()}
    return g


def test_a_judge_that_only_spots_applicability_does_not_pass() -> None:
    crit = "explains_next_step"
    rubric, gold = _rubric_with_na(crit), _na_gold(crit)
    cfg, js = simulated_judgments(gold, rubric, "consensus")
    rng = random.Random(1)
    cons = gold.labels_by(CONSENSUS, crit)
    for i, j in js.items():  # applicability exactly right, pass/fail a coin toss
        if cons[i] != "not_applicable":
            label = rng.choice(["pass", "fail"])
            crits = [
                x.model_copy(update={"label": label}) if x.criterion == crit else x
                for x in j.criteria
            ]
            js[i] = j.model_copy(update={"criteria": crits})
    r = calibration_report(gold, rubric, js, settings=FAST, judge=cfg, split=None).json_data()
    c = _by(r)[crit]
    items = gold.item_ids
    judge = [js[i].label(crit) for i in items]
    # the old statistic, kappa over pass / fail / not_applicable, credits the applicability
    three = cohen_kappa_score([str(cons[i]) for i in items], [str(v) for v in judge])
    assert three > 0.3
    assert c["gate"]["status"] != "PASS" and c["gate"]["n_cases"] >= 8
    assert c["gate_comparison"]["judge_side"]["estimate"] < 0.3
    assert c["judge_vs_consensus"]["n"] == len(items) - len(items[::3])
    app = c["not_applicable"]["judge_vs_experts"]
    assert app["judge_side"]["estimate"] > 0.9 and app["judge_side"]["ci"] is not None
    assert app["n_cases"] >= 8 and app["judge_side"]["n_clusters"] >= 8
    text = every_format(r)["markdown"]
    assert "Applicability (applies / not_applicable), Cohen's κ: judge side" in text
    assert "outside pass/fail" in text


def test_per_label_rates_and_the_baseline_in_every_format() -> None:
    r = build("always-pass")
    c = _by(r)["no_claim_before_confirmed"]
    rates = {x["label"]: x for x in c["per_label"]}
    cons = GOLD.labels_by(CONSENSUS, "no_claim_before_confirmed")
    share = sum(v == "pass" for v in cons.values()) / len(cons)
    assert rates["pass"]["always_agreement"]["estimate"] == pytest.approx(share)
    assert rates["pass"]["sensitivity"]["estimate"] == 1.0  # it always says pass
    assert rates["pass"]["specificity"]["estimate"] == 0.0
    assert rates["fail"]["sensitivity"]["estimate"] == 0.0
    for x in rates.values():
        for key in ("sensitivity", "specificity", "always_agreement"):
            lo, hi = x[key]["ci"]
            assert lo <= x[key]["estimate"] <= hi and x[key]["n_clusters"] >= 8
    sentence = c["baseline_sentence"]
    assert f"A judge that always says 'pass' would agree with the consensus on {share:.0%}" in (
        sentence
    )
    assert "'fail' sensitivity 0%" in sentence and "its κ is 0 by construction" in sentence
    for fmt, text in every_format(r).items():
        assert "always says 'pass'" in text, fmt
        assert "judge side (mean" in text or fmt == "json", fmt


def _previous_version(r: dict[str, Any]) -> dict[str, Any]:
    """A report as the previous version stored it: none of issue 18's keys."""
    old = copy.deepcopy(r)
    for key in ("min_cases", "min_expert_cases", "margin", "gate_confidence"):
        old["settings"].pop(key)
    old.pop("run_to_run", None)
    for c in old["criteria"]:
        for key in ("gate_comparison", "per_label", "baseline_sentence"):
            c.pop(key)
        for key in ("n_cases", "n_expert_cases", "min_cases", "min_expert_cases", "margin"):
            c["gate"].pop(key)
        c["gate"].pop("run_to_run", None)
        c["gate"]["ceiling_margin"] = 0.5
    return old


def test_a_report_stored_by_the_previous_version_still_renders() -> None:
    out = every_format(_previous_version(build("consensus")))
    for fmt, text in out.items():
        assert "PASS" in text, fmt
    assert "at least 20 items, coverage ≥ 80%, bar 0.6" in out["markdown"]


def test_run_to_run_noise_from_a_stability_run_enters_the_gate(tmp_path: Path) -> None:
    cfg, _ = simulated_judgments(GOLD, RUBRIC, "consensus")
    cfg = cfg.model_copy(update={"temperature": 0.7})
    engine = make_engine(f"sqlite:///{tmp_path / 's.db'}")
    m = build_report("consensus")
    apply_run_to_run(m, run_to_run_section(engine, judge=cfg, rubric=RUBRIC))
    r = m.json_data()
    assert r["run_to_run"]["measured"] is False
    for c in r["criteria"]:  # said plainly, and no gate changes for it
        assert (
            "Run-to-run noise was not measured: the judge samples at temperature 0.7"
            in (c["gate"]["run_to_run"])
        )
    for fmt, text in every_format(r).items():  # said once, on top
        assert text.count("Run-to-run noise was not measured") == 1 or fmt == "json", fmt
    passed = [c["criterion"] for c in r["criteria"] if c["gate"]["status"] == "PASS"]
    assert passed
    # a stability run of the same judge version flags one passing criterion UNSTABLE
    runs = Runs(engine)
    run_id = runs.start("stability", judge=cfg)
    stat = {
        "statistic": "fleiss_kappa",
        "estimate": 0.55,
        "estimate_undefined_reason": None,
        "ci": [0.3, 0.75],
        "ci_undefined_reason": None,
        "confidence": 0.95,
        "n": 108,
        "n_clusters": 36,
        "n_resamples": 2000,
        "n_dropped": 0,
        "seed": 0,
        "method": "percentile",
    }
    differing = {"value": 0.2, "n": 108, "ci95": [0.13, 0.28], "method": "wilson"}
    runs.finish(
        run_id,
        {
            "samples": 3,
            "items": 108,
            "min_self_agreement": 0.8,
            "criteria": [
                {
                    "criterion": c,
                    "self_agreement": stat,
                    "items_with_differing_samples": {**differing, "undefined_reason": None},
                    "flag": "UNSTABLE" if c == passed[0] else "stable",
                }
                for c in CRITERIA
            ],
        },
    )
    m = build_report("consensus")
    apply_run_to_run(m, run_to_run_section(engine, judge=cfg, rubric=RUBRIC))
    r = m.json_data()
    got = _by(r)
    assert got[passed[0]]["gate"]["status"] == "UNDECIDED"
    assert (
        "self-agreement 0.55 [0.30, 0.75] (n=108): UNSTABLE"
        in got[passed[0]]["gate"]["reasons"][-1]
    )
    assert all(got[c]["gate"]["status"] == "PASS" for c in passed[1:])
    assert r["gate"]["criteria"][passed[0]] == "UNDECIDED" and r["gate"]["judge"] != "PASS"
