"""The audit design (scoring/audit_sample.py) and the agreement windows (scoring/over_time.py),
as pure functions: the recorded inclusion probabilities weight the sample back to the run
without bias, the allocation keeps every verdict, the per-case cap holds, and the windows' bounds
and kappa are the definitions'."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from calibrant.files import load_rubric
from calibrant.scoring.audit_sample import Scored, draw_sample, stratum_of
from calibrant.scoring.over_time import AuditedItem, window_bounds, window_criterion
from tests.conftest import ROOT

CRITERIA = ("a", "b")


def _run(n_cases: int = 30, seed: int = 0) -> list[Scored]:
    """A score run: cases of 1 to 6 transcripts; 'b' fails rarely."""
    rng = random.Random(seed)
    rows = []
    for case in range(n_cases):
        for _ in range(rng.randint(1, 6)):
            labels = {
                "a": rng.choice(["pass", "fail"]),
                "b": "fail" if rng.random() < 0.1 else "pass",
            }
            outcome = "verdict" if rng.random() > 0.05 else "provider_error"
            rows.append(Scored(len(rows), f"t{len(rows)}", f"case-{case}", outcome, labels))
    return rows


def test_the_inclusion_probabilities_weight_the_sample_back_to_the_run_without_bias() -> None:
    rows = _run()
    truth = sum(1 for r in rows if stratum_of(r, CRITERIA) == "a=fail|b=fail")
    totals, rare = [], []
    for seed in range(3000):
        design = draw_sample(rows, CRITERIA, seed=seed, count=20, per_case=2)
        totals.append(sum(1 / d.inclusion_probability for d in design.items))
        rare.append(
            sum(1 / d.inclusion_probability for d in design.items if d.stratum == "a=fail|b=fail")
        )
    assert sum(totals) / len(totals) == pytest.approx(len(rows), rel=0.02)
    assert sum(rare) / len(rare) == pytest.approx(truth, rel=0.1)


def test_below_one_item_per_stratum_every_item_keeps_its_chance_and_its_weight() -> None:
    rows = _run()
    criteria = ("a", "b", "c")  # 'c' is not labeled: None, one more level per stratum
    rows = [
        Scored(
            r.position,
            r.transcript_id,
            r.case_id,
            r.outcome,
            {**r.labels, "c": str(r.position % 4)},
        )
        for r in rows
    ]
    totals = []
    seen: set[int] = set()
    for seed in range(3000):
        design = draw_sample(rows, criteria, seed=seed, count=5, per_case=2)
        assert design.systematic and len(design.items) == 5
        assert len({s.name for s in design.strata}) > 5
        totals.append(sum(1 / d.inclusion_probability for d in design.items))
        seen.update(d.scored.position for d in design.items)
    assert sum(totals) / len(totals) == pytest.approx(len(rows), rel=0.02)
    assert len(seen) == len(rows)  # no item without a chance


def test_every_verdict_is_drawn_no_case_beyond_its_cap_and_the_seed_repeats_the_sample() -> None:
    rows = _run()
    design = draw_sample(rows, CRITERIA, seed=4, count=12, per_case=2)
    again = draw_sample(rows, CRITERIA, seed=4, count=12, per_case=2)
    assert [d.scored.position for d in design.items] == [d.scored.position for d in again.items]
    assert len(design.items) == 12
    assert {s.name for s in design.strata if s.drawn} == {s.name for s in design.strata if s.kept}
    per_case: dict[str, int] = {}
    for d in design.items:
        per_case[d.scored.case_id] = per_case.get(d.scored.case_id, 0) + 1
    assert max(per_case.values()) <= 2
    everything = draw_sample(rows, CRITERIA, seed=4, rate=1.0, per_case=1)
    assert len(everything.items) == everything.cases == 30  # one per case, every case


@pytest.mark.parametrize(
    ("kind", "start", "end"),
    [
        ("day", datetime(2026, 12, 2, tzinfo=UTC), datetime(2026, 12, 3, tzinfo=UTC)),
        ("week", datetime(2026, 11, 30, tzinfo=UTC), datetime(2026, 12, 7, tzinfo=UTC)),
        ("month", datetime(2026, 12, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC)),
    ],
)
def test_window_bounds(kind: str, start: datetime, end: datetime) -> None:
    assert window_bounds(datetime(2026, 12, 2, 7, 30), kind) == (start, end)


def test_a_window_gives_the_kappa_of_its_labels_and_an_undecided_gate_on_single_experts() -> None:
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    c = next(x for x in rubric.criteria if x.id == "separates_done_from_pending")
    rng = random.Random(1)
    items = []
    for n in range(40):
        judge = rng.choice(["pass", "fail"])
        expert = judge if rng.random() < 0.8 else {"pass": "fail", "fail": "pass"}[judge]
        items.append(
            AuditedItem(f"case-{n // 2}", f"i{n}", expert, judge, True, {"maria": expert}, 0.5)
        )
    pairs = [(it.expert_label, it.judge_label) for it in items]
    po = sum(e == j for e, j in pairs) / 40
    pe = sum(
        sum(e == x for e, _ in pairs) / 40 * (sum(j == x for _, j in pairs) / 40)
        for x in ("pass", "fail")
    )
    out = window_criterion(c, items, n_resamples=200, judged=(30, 50))
    assert out.kappa.estimate == pytest.approx((po - pe) / (1 - pe))
    assert out.n_items == 40 and out.n_cases == 20 and out.n_single_expert == 40
    assert out.gate.status == "UNDECIDED"  # one expert: no expert side to compare with
    assert out.pass_rate_corrected.corrected.value is not None
    passed = sum(1 for it in items if it.expert_label == "pass")
    assert out.pass_rate_audited.value == pytest.approx(passed / 40)  # equal weights
    assert out.pass_rate_audited.n_cases == 20


def test_the_audited_pass_rate_weights_by_inclusion_probability() -> None:
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    c = next(x for x in rubric.criteria if x.id == "separates_done_from_pending")
    # judged fails drawn at 1/2, judged passes at 1/10: the passes stand for five times more
    items = [AuditedItem(f"c{n}", f"i{n}", "fail", "fail", False, {}, 0.5) for n in range(10)] + [
        AuditedItem(f"d{n}", f"j{n}", "pass", "pass", False, {}, 0.1) for n in range(10)
    ]
    out = window_criterion(c, items, n_resamples=200)
    assert out.pass_rate_audited.value == pytest.approx(100 / 120)


def _unequal_audit(probability: dict[str, float | None]) -> list[AuditedItem]:
    """Big cases (drawn at `probability['big']`): the judge right on all 20 items. Small cases
    (`probability['small']`): the judge wrong on half of its 20 items, both ways."""
    items = []
    for n in range(20):
        expert = "pass" if n < 10 else "fail"
        items.append(
            AuditedItem(f"big{n // 2}", f"b{n}", expert, expert, False, {}, probability["big"])
        )
        wrong = {"pass": "fail", "fail": "pass"}[expert]
        judge = wrong if n % 2 else expert
        items.append(
            AuditedItem(f"small{n // 2}", f"s{n}", expert, judge, False, {}, probability["small"])
        )
    return items


def test_the_corrected_rate_weights_the_judges_errors_as_the_audit_was_drawn() -> None:
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    c = next(x for x in rubric.criteria if x.id == "separates_done_from_pending")
    # big cases drawn at 1/10 stand for 10 items each, small ones at 1/2 for 2 each:
    # sensitivity = specificity = (10*10 + 5*2) / (10*10 + 10*2) = 110/120 in the run,
    # while the sample says 15/20. Judged 60 of 100: corrected = (0.6 + 11/12 - 1) / (22/12 - 1)
    # = 0.62 (unweighted: (0.6 + 0.75 - 1) / 0.5 = 0.70).
    out = window_criterion(
        c, _unequal_audit({"big": 0.1, "small": 0.5}), n_resamples=200, judged=(60, 100)
    )
    corrected = out.pass_rate_corrected
    assert corrected is not None and corrected.corrected.ci95 is not None
    assert corrected.corrected.value == pytest.approx(0.62)
    assert corrected.sensitivity.value == pytest.approx(110 / 120)
    lo, hi = corrected.corrected.ci95
    assert lo < 0.62 < hi
    assert "weighted by 1 / inclusion probability" in out.correction


def test_an_audit_from_an_earlier_version_is_corrected_with_equal_weights_and_says_so() -> None:
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    c = next(x for x in rubric.criteria if x.id == "separates_done_from_pending")
    out = window_criterion(
        c, _unequal_audit({"big": None, "small": None}), n_resamples=200, judged=(60, 100)
    )
    assert out.pass_rate_corrected.corrected.value == pytest.approx(0.70)
    assert "40 of 40 audited items have no recorded inclusion probability" in out.correction
    assert "equal weights assumed" in out.correction
    assert out.pass_rate_audited is None  # no design to weigh by: not printed as a number
