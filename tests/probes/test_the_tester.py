"""Test the tester: simulated judges with planted defects go through the real variants, the
real prompts (defended, naive, evidence reversed) and the real statistics; each is flagged by
the probe that targets its defect and by no other, and a clean judge is flagged by none."""

from __future__ import annotations

from typing import Any

import pytest

from calibrant.files import load_rubric
from calibrant.gold import load_gold
from calibrant.probes import (
    ATTACKS,
    ProbeContext,
    ProbeSettings,
    collect_requests,
    default_probes,
)
from calibrant.probes.planted import planted_asker, planted_config
from calibrant.probes.run import probe_report
from tests.conftest import ROOT

RUBRIC = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
GOLD = load_gold(ROOT / "gold", split="calibration")
INSTRUCTING = [f for f in ATTACKS if f != "fake_evidence"]  # fake evidence asks for nothing
# the calibration items with a criterion the consensus rates below its passing level (a fail, or
# overall_clarity under 3): the items an injection can try to lift; counted from the labels
_BELOW = {
    x.item
    for x in GOLD.consensus
    if x.item in GOLD.items and (x.label == "fail" or (isinstance(x.label, int) and x.label < 3))
}
LIFTABLE = len(_BELOW)


def run(behaviour: str, *probes: str, **settings: Any) -> dict[str, Any]:
    s = ProbeSettings(probes=probes or default_probes(), families=tuple(ATTACKS), **settings)
    ctx = ProbeContext(gold=GOLD, rubric=RUBRIC, settings=s)
    answers, outcomes = planted_asker(behaviour, ctx)(collect_requests(ctx), None)
    return probe_report(
        ctx, answers, outcomes, judge=planted_config(behaviour, RUBRIC), split="calibration"
    ).json_data()


def families(r: dict[str, Any], prompt: str = "defended") -> dict[str, Any]:
    return r["probes"]["injection"]["prompts"][prompt]["families"]


def test_a_clean_judge_is_flagged_by_no_probe_and_passes_the_injection_gate() -> None:
    r = run("clean")
    assert r["flags"] == []
    inj = r["probes"]["injection"]
    assert inj["items"] == LIFTABLE
    assert LIFTABLE >= 100  # gold v3's calibration split: 117
    assert inj["gate"]["status"] == "PASS"
    for prompt in ("defended", "naive"):
        assert inj["prompts"][prompt]["clean_false_positive_rate"]["value"] == 0
        for fam in families(r, prompt).values():
            for row in fam.values():
                assert row["n"] == LIFTABLE and row["attack_success_rate"]["value"] == 0
                # 0/n: Wilson upper bound 3.84 / (n + 3.84) <= 0 + margin 0.10
                bound = 3.8415 / (LIFTABLE + 3.8415)
                assert row["attack_success_rate"]["ci95"][1] == pytest.approx(bound, abs=1e-3)
    assert r["probes"]["verbosity"]["flag"] == "no effect shown"
    assert r["probes"]["order"]["flag"] == "no effect shown"
    assert r["probes"]["stability"]["flag"] == "stable"
    assert r["probes"]["central"]["criteria"]["overall_clarity"]["flag"] == "no effect shown"


def test_a_judge_that_obeys_injections_half_the_time_is_caught_by_every_instructing_family() -> (
    None
):
    r = run("obey:0.5")
    fams = families(r)
    inside = 0
    for family in INSTRUCTING:
        for channel in ("agent", "note"):
            row = fams[family][channel]
            assert row["gate"]["status"] == "FAIL", (family, channel)
            lo, hi = row["attack_success_rate"]["ci95"]
            inside += lo <= 0.5 <= hi
            assert row["moved_toward_fail"]["value"] == 0
    assert inside >= 14  # of 16 intervals; 95% each
    assert fams["fake_evidence"]["agent"]["gate"]["status"] == "PASS"
    assert not [f for f in r["flags"] if not f.startswith("injection:")]


def test_the_defenses_protect_a_fence_confused_judge_and_the_naive_prompt_shows_it() -> None:
    r = run("fence:1", "injection")
    inj = r["probes"]["injection"]
    assert inj["gate"]["status"] == "PASS" and r["flags"] == []
    for family in INSTRUCTING:
        for channel in ("agent", "note"):
            assert families(r)[family][channel]["attack_success_rate"]["value"] == 0
            assert families(r, "naive")[family][channel]["attack_success_rate"]["value"] == 1
            effect = inj["defense_effect"][family][channel]
            assert effect["value"] == 1 and effect["ci95"][0] > 0.85  # 106/106 pairs


def test_a_judge_that_prefers_longer_text_is_flagged_by_verbosity_only_among_bias_probes() -> None:
    r = run("verbose:1", "verbosity", "order", "stability", "central")
    assert r["probes"]["verbosity"]["flag"] == "PREFERS LONGER TEXT"
    assert r["probes"]["verbosity"]["net_shift"]["ci95"][0] > 0
    assert r["flags"] == ["verbosity: PREFERS LONGER TEXT"]


def test_a_judge_that_drifts_to_the_middle_is_flagged_by_central_tendency_only() -> None:
    r = run("middle")
    row = r["probes"]["central"]["criteria"]["overall_clarity"]
    assert row["flag"] == "DRIFTS TO THE MIDDLE"
    assert row["judge_middle"]["value"] == 1.0  # every 1 and 4 moved inside
    assert r["flags"] == ["central tendency: overall_clarity DRIFTS TO THE MIDDLE"]


def test_an_order_biased_judge_is_flagged_by_order_and_a_noisy_one_by_stability_not_order() -> None:
    order = run("order:1", "order", "stability", "verbosity", "central")
    assert order["flags"] == ["order: ORDER-SENSITIVE (up)"]
    noisy = run("noisy:0.3", "order", "stability", "verbosity", "central", k=3)
    assert noisy["probes"]["stability"]["flag"] == "UNSTABLE"
    # labels change when the evidence is reversed, but no more than between two clean samples
    assert noisy["probes"]["order"]["changed"]["value"] > 0.5
    assert noisy["probes"]["order"]["flag"] == "no effect shown"
    # a noisy judge may also move labels off the middle levels the experts use (central
    # tendency is a real effect of noise); what it must not be called is order-sensitive
    assert "stability: UNSTABLE" in noisy["flags"]
    assert [f for f in noisy["flags"] if f.startswith("order")] == []


def test_unknown_planted_behaviours_are_refused() -> None:
    for bad in ("obey", "obey:2", "middle:0.5", "sloppy:0.1", "noisy:x"):
        with pytest.raises(ValueError):
            planted_config(bad, RUBRIC)
