"""The drift monitor's e-processes hold their level (exactly, and in a seeded simulation), fire
on a degraded judge within a bounded number of windows, tell a changed judge from a changed
product, keep their state through JSON, and refuse a bad window in one line."""

from __future__ import annotations

import copy
import itertools
import json
import math
import random
from dataclasses import replace

import pytest

from calibrant.errors import InputError
from calibrant.monitor import (
    Case,
    CriterionBaseline,
    KappaEProcess,
    Monitor,
    MonitorSettings,
    ShiftEProcess,
    Window,
    anchor_kappa,
    anchor_reference,
    case_weighted_kappa,
    window_statistic,
)
from calibrant.monitor.eprocess import CaseCodes, agreement_weights

# A population of cases: (probability, judge codes, expert codes). Items of one case share
# labels more than chance would (the case effect the e-process must not treat as independence).
BINARY: list[tuple[float, CaseCodes]] = [
    (0.30, ((1, 1, 1), (1, 1, 0))),
    (0.25, ((0,), (0,))),
    (0.20, ((0, 1), (0, 0))),
    (0.15, ((1, 0, 1, 1), (1, 0, 1, 1))),
    (0.10, ((1,), (0,))),
]
ORDINAL: list[tuple[float, CaseCodes]] = [
    (0.4, ((2, 2), (2, 1))),
    (0.3, ((0,), (0,))),
    (0.2, ((1, 0, 2), (1, 1, 2))),
    (0.1, ((2,), (0,))),
]


def _population_kappa(
    pop: list[tuple[float, CaseCodes]], w: tuple[tuple[float, ...], ...]
) -> tuple[float, float]:
    """(case-weighted kappa, chance agreement p_e) of the population, from its definition."""
    k = len(w)
    p_o = sum(p * sum(w[j][e] for j, e in zip(*c, strict=True)) / len(c[0]) for p, c in pop)
    a = [sum(p * c[0].count(i) / len(c[0]) for p, c in pop) for i in range(k)]
    b = [sum(p * c[1].count(i) / len(c[1]) for p, c in pop) for i in range(k)]
    p_e = sum(a[i] * w[i][j] * b[j] for i in range(k) for j in range(k))
    return (p_o - p_e) / (1 - p_e), p_e


@pytest.mark.parametrize(("pop", "k", "ordinal"), [(BINARY, 2, False), (ORDINAL, 3, True)])
def test_the_pair_statistic_is_exactly_unbiased_so_every_bet_is_a_fair_or_losing_one(
    pop: list[tuple[float, CaseCodes]], k: int, ordinal: bool
) -> None:
    """E[T] over two independent cases, enumerated exactly, is (1 - p_e)(κ - κ0): at κ0 = κ a
    bet 1 - λT has mean exactly 1 (a martingale), above it less than 1 (a supermartingale)."""
    w = agreement_weights(k, ordinal=ordinal)
    kappa, p_e = _population_kappa(pop, w)
    for kappa0 in (kappa - 0.2, kappa, min(kappa + 0.3, 0.95)):
        expected = sum(
            p1 * p2 * window_statistic([c1, c2], kappa0, w)
            for (p1, c1), (p2, c2) in itertools.product(pop, repeat=2)
        )
        assert expected == pytest.approx((1 - p_e) * (kappa - kappa0), abs=1e-12)
    # a bet on T at the boundary: mean factor exactly 1 for any λ within the cap
    mean_factor = sum(
        p1 * p2 * (1 - 1.5 * window_statistic([c1, c2], kappa, w))
        for (p1, c1), (p2, c2) in itertools.product(pop, repeat=2)
    )
    assert mean_factor == pytest.approx(1.0, abs=1e-12)


def test_the_shift_rule_reads_a_lower_bound_of_the_likelihood_ratio_over_the_reference_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After the reference windows, every share p of the reference's interval has its own test
    martingale ``M^p`` (one factor ``Σ_k x_k q_k / p_k`` per case, mean exactly 1 for cases
    whose expected shares are p). The rule reads a lower bound of ``min_p log M^p`` from 33
    points of the interval (log M^p is convex in p): replayed with 2001 points, the minimum is
    never below it, and the bound is within 0.05 of it."""
    from calibrant.monitor import shift

    population = [(1,), (1, 1, 0), (0,), (0, 0), (1, 1)]
    weights = [0.3, 0.2, 0.2, 0.1, 0.2]
    rng = random.Random(4)
    windows = [rng.choices(population, weights, k=30) for _ in range(3)]
    windows += [rng.choices(population, [0.1, 0.2, 0.3, 0.3, 0.1], k=30) for _ in range(5)]

    def run() -> ShiftEProcess:
        process = ShiftEProcess(2, 0.025, reference_windows=3)
        for w in windows:
            process.update(w)
        return process

    coarse = run()
    assert coarse.ready and coarse.windows == 5 and coarse.reference_cases == 90
    monkeypatch.setattr(shift, "GRID", 2001)
    dense = run()
    assert dense.bounds == coarse.bounds
    assert coarse.log_e <= min(dense.grid_log[0]) + 1e-9
    assert coarse.log_e >= min(dense.grid_log[0]) - 0.05
    # one case's factor at share p has mean 1 over cases whose expected share is p
    for p, q in ((0.3, 0.5), (0.62, 0.2), (0.9, 0.95)):
        two = [(p, 1.0), (1 - p, 0.0)]  # a case all pass with probability p, else all fail
        mean = sum(w * ((1 - x) * (1 - q) / (1 - p) + x * q / p) for w, x in two)
        assert mean == pytest.approx(1.0, abs=1e-12)


def _draw(rng: random.Random, pop: list[tuple[float, CaseCodes]], n: int) -> list[CaseCodes]:
    return rng.choices([c for _, c in pop], weights=[p for p, _ in pop], k=n)


def test_the_shift_factor_has_mean_one_under_the_baseline() -> None:
    """Each share p of the reference interval has its own test martingale: for cases whose
    expected judged share of the tested label is p, one more case's factor has mean exactly 1,
    whatever the recent windows held (enumerated over a population of three case kinds)."""
    process = ShiftEProcess(2, 0.025, reference_windows=2)
    process.update([(1,), (0, 1), (0,), (1, 1)] * 5)
    process.update([(0,), (1,), (1, 0)] * 5)
    assert process.ready
    checked = 0
    for seen in ([], [(1,)] * 7, [(0, 0)] * 30):
        state = ShiftEProcess.from_dict(process.state().json_data())
        if seen:
            state.update(seen)
        for g, p in enumerate(state._points(0)):
            if not 0.1 <= p <= 0.9:
                continue
            population = [(p - 0.1, (1,)), (0.2, (0, 1)), (0.9 - p, (0,))]
            assert sum(w * sum(c) / len(c) for w, c in population) == pytest.approx(p)
            mean = 0.0
            for w, c in population:
                trial = ShiftEProcess.from_dict(state.state().json_data())
                trial.update([c])
                mean += w * math.exp(trial.grid_log[0][g] - state.grid_log[0][g])
            assert mean == pytest.approx(1.0, abs=1e-12)
            checked += 1
    assert checked >= 3 * 20  # most of the interval's 33 points, in each of the three states


def test_at_the_null_boundary_the_alarm_rate_over_many_looks_stays_within_alpha() -> None:
    """A seeded simulation: a judge exactly at the bar, 40 weekly looks of 6-12 cases, 300
    runs. Ville's bound says at most 5% ever alarm; a rolling test would alarm in most runs."""
    w = agreement_weights(2, ordinal=False)
    kappa, _ = _population_kappa(BINARY, w)
    rng = random.Random(7)
    alarms = 0
    for _ in range(300):
        process = KappaEProcess(kappa, 2)
        for _ in range(40):
            process.update(_draw(rng, BINARY, rng.randint(6, 12)))
            if process.e_value >= 20:
                alarms += 1
                break
    assert alarms / 300 <= 0.06  # the bound is 0.05; 0.06 leaves room for 300 runs' noise


def _baseline(anchor_kappa: float | None = 0.8) -> dict[str, CriterionBaseline]:
    return {
        "tone": CriterionBaseline(("fail", "pass"), (0.4, 0.6), anchor_kappa=anchor_kappa),
        "accuracy": CriterionBaseline(("poor", "fair", "good"), (0.2, 0.3, 0.5), ordinal=True),
    }


def _window(
    rng: random.Random,
    name: str,
    *,
    judge_skill: float = 0.9,
    pass_rate: float = 0.6,
    anchor_skill: float | None = None,
) -> Window:
    """A window of 8 audited cases, 30 scored ones and 20 anchor cases on 'tone'."""

    def case(i: int, skill: float, rate: float) -> Case:
        expert = tuple("pass" if rng.random() < rate else "fail" for _ in range(rng.randint(1, 4)))
        judge = tuple(
            e if rng.random() < skill else ("pass" if rng.random() < 0.6 else "fail")
            for e in expert
        )
        return Case(f"c{i}", judge, expert)

    skill = judge_skill if anchor_skill is None else anchor_skill
    return Window(
        name,
        audit={"tone": [case(i, judge_skill, pass_rate) for i in range(8)]},
        scored={"tone": [case(i, judge_skill, pass_rate) for i in range(30)]},
        anchors={"tone": [case(i, skill, 0.6) for i in range(20)]},
    )


def test_a_judge_answering_at_random_is_caught_within_ten_windows() -> None:
    rng = random.Random(3)
    monitor = Monitor(_baseline())
    fired = None
    for week in range(1, 11):
        status = monitor.update(_window(rng, f"w{week}", judge_skill=0.0)).criteria["tone"]
        if "judge_changed" in status.verdicts and "below_gate" in status.verdicts:
            fired = week
            break
    assert fired is not None, status.typed().json_data()
    assert status.alarm and status.anchors is not None
    assert status.anchors.fired_at is not None and status.agreement.fired_at is not None
    assert any("judge changed" in r for r in status.reasons)


def test_a_stable_judge_raises_nothing_and_a_product_change_is_not_blamed_on_it() -> None:
    rng = random.Random(11)
    monitor = Monitor(_baseline())
    for week in range(1, 11):
        status = monitor.update(_window(rng, f"w{week}")).criteria["tone"]
    assert status.verdicts == ("ok",) and status.agreement.e_value < 20
    for week in range(11, 31):  # customers change: far fewer conversations deserve a pass
        status = monitor.update(_window(rng, f"w{week}", pass_rate=0.15)).criteria["tone"]
    assert "product_changed" in status.verdicts, status.typed().json_data()
    assert "judge_changed" not in status.verdicts
    assert status.judged_shares is not None and status.judged_shares["pass"] < 0.4


def test_state_round_trips_through_json_and_continues_identically() -> None:
    rng = random.Random(5)
    monitor = Monitor(_baseline(), MonitorSettings(alpha=0.01, memory=3))
    for week in range(1, 6):
        monitor.update(_window(rng, f"w{week}", judge_skill=0.5))
    state = json.loads(json.dumps(monitor.state().json_data()))
    again = Monitor.from_dict(state)
    assert again.state().json_data() == monitor.state().json_data()
    assert again.settings == monitor.settings and again.windows == [f"w{i}" for i in range(1, 6)]
    nxt = _window(rng, "w6", judge_skill=0.5)
    assert again.update(nxt).typed().json_data() == monitor.update(nxt).typed().json_data()


def test_an_unknown_label_is_one_clear_error_and_changes_nothing() -> None:
    monitor = Monitor(_baseline())
    monitor.update(_window(random.Random(1), "w1"))
    before = monitor.state().json_data()
    bad = Window(
        "w2",
        scored={"tone": [Case("c1", ("pass",)), Case("c2", ("pass", "maybe"))]},
    )
    with pytest.raises(InputError) as err:
        monitor.update(bad)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg == (
        "window 'w2': field 'scored.tone[1].judge': unknown label 'maybe' for criterion 'tone' "
        "in case 'c2' (item 2); the baseline's labels are fail, pass"
    )
    assert monitor.state().json_data() == before  # checked whole before any state changed
    with pytest.raises(InputError, match=r"audit\.tone\[0\]\.expert.*1 judge label\(s\) and no"):
        monitor.update(Window("w2", audit={"tone": [Case("c1", ("pass",))]}))
    with pytest.raises(InputError, match="criterion 'speed' is not in the baseline"):
        monitor.update(Window("w2", scored={"speed": [Case("c1", ("pass",))]}))
    with pytest.raises(InputError, match="already entered"):
        monitor.update(Window("w1"))


def test_the_released_anchor_kappa_is_the_case_weighted_kappa() -> None:
    w = agreement_weights(2, ordinal=False)
    cases = [c for _, c in BINARY]
    # equal-size cases make it the pooled kappa: two cases of two items each
    same = [((1, 0), (1, 0)), ((1, 1), (1, 0))]
    p_o, p_e = 3 / 4, (3 / 4) * (2 / 4) + (1 / 4) * (2 / 4)
    assert case_weighted_kappa(same, w) == pytest.approx((p_o - p_e) / (1 - p_e))
    assert case_weighted_kappa(cases, w) == pytest.approx(
        _population_kappa([(1 / len(cases), c) for c in cases], w)[0]
    )


def test_the_anchor_kappa_helper_reads_cases_and_refuses_an_unknown_label() -> None:
    b = _baseline()["tone"]
    cases = [Case("g1", ("pass", "fail"), ("pass", "fail")), Case("g2", ("pass",), ("fail",))]
    # p_o = (1 + 0) / 2; judge shares (3/4 pass), expert shares (1/4 pass)
    p_e = 0.75 * 0.25 + 0.25 * 0.75
    assert anchor_kappa(cases, b) == pytest.approx((0.5 - p_e) / (1 - p_e))
    with pytest.raises(ValueError, match="unknown label 'maybe'"):
        anchor_kappa([Case("g1", ("maybe",), ("pass",))], b)


def test_a_lasting_shift_for_500_windows_neither_crashes_nor_overflows_the_report() -> None:
    """Issue 31: a product change that lasts pushes the shift e-process's log past 709, where
    exp() overflows; every later look replays every window, so one crash was every crash. The
    e-values are kept in log space; what is reported is finite, and JSON carries it."""
    rng = random.Random(17)
    monitor = Monitor(_baseline())
    for week in range(1, 501):
        rate = 0.6 if week <= 10 else 0.02  # the reference windows first, then the shift
        status = monitor.update(_window(rng, f"w{week}", pass_rate=rate)).criteria["tone"]
    assert "product_changed" in status.verdicts, status.typed().json_data()
    shift = status.shift
    assert shift is not None and shift.log_e > 709  # past where exp() overflows
    assert math.isfinite(shift.e_value) and shift.e_value >= shift.threshold
    text = json.dumps(status.typed().json_data(), allow_nan=False)  # no inf, no nan
    assert json.loads(text)["shift"]["log_e"] == pytest.approx(shift.log_e)
    again = Monitor.from_dict(json.loads(json.dumps(monitor.state().json_data(), allow_nan=False)))
    assert again.state().json_data() == monitor.state().json_data()


# -- issue 31: baselines that carry their own error ---------------------------------------------


def _traffic(rng: random.Random, n: int, rate: float) -> list[Case]:
    """Scored cases of 1-4 items whose case pass share is drawn around `rate`."""
    out = []
    for i in range(n):
        share = min(max(rng.betavariate(8 * rate + 1e-9, 8 * (1 - rate) + 1e-9), 0.0), 1.0)
        size = rng.randint(1, 4)
        out.append(
            Case(f"s{i}", tuple("pass" if rng.random() < share else "fail" for _ in range(size)))
        )
    return out


def test_with_no_change_the_label_shift_rule_against_its_reference_windows_stays_quiet() -> None:
    """Issue 31 item 2: the old rule took the gold set's judged shares as exact and fired in .82
    of runs with no change at all. Now the first windows of traffic are the reference; 40 runs
    of 120 windows whose traffic never changes (gold shares far from it) raise nothing."""
    fired = 0
    for run in range(40):
        rng = random.Random(100 + run)
        # the gold set's shares say 0.5; traffic passes 0.7 of the time, all along
        m = Monitor({"tone": CriterionBaseline(("fail", "pass"), (0.5, 0.5))})
        for week in range(1, 121):
            s = m.update(Window(f"w{week}", scored={"tone": _traffic(rng, 30, 0.7)})).criteria
            if s["tone"].shift.alarm:
                fired += 1
                break
    assert fired <= 2  # alpha 0.05 over the monitor's life: 2/40 is the most noise allows
    st = s["tone"]
    ref = st.shift_reference
    assert ref is not None and (ref.windows, ref.of, ref.cases) == (4, 4, 120)
    assert ref.shares is not None and set(ref.shares) == {"fail", "pass"}
    assert st.shift.threshold == 40 and st.shift.windows == 116


def test_a_shift_is_unexplained_until_the_anchors_rule_out_a_judge_change() -> None:
    """Item 4: the shift fires while the anchors cannot yet exclude a judge change of the
    tolerance's size: shift_unexplained, never product_changed; once they do, product_changed."""
    rng = random.Random(21)
    m = Monitor(_baseline(anchor_kappa=0.95))
    said = []
    for week in range(1, 41):
        w = _window(rng, f"w{week}", pass_rate=0.6 if week <= 6 else 0.1, anchor_skill=1.0)
        st = m.update(w).criteria["tone"]
        said.append(st.verdicts)
    firsts = [v for v in said if v != ("ok",)]
    assert firsts and firsts[0] == ("shift_unexplained",), said
    assert said[-1] == ("product_changed",), said
    assert (
        any(
            "cannot yet rule out a judge change" in r
            for r in m.update(_window(rng, "w-probe", pass_rate=0.1, anchor_skill=1.0))
            .criteria["tone"]
            .reasons
        )
        is False
    )  # once ruled out, it stays product_changed


def test_a_judge_change_with_a_shift_is_never_called_a_product_change() -> None:
    """Item 4: a judge that turns lenient moves the label shares and the anchors together: the
    monitor says shift_unexplained, then judge_changed, never product_changed."""
    rng = random.Random(8)
    m = Monitor(_baseline(anchor_kappa=0.9))
    said = []
    for week in range(1, 41):
        if week <= 6:
            w = _window(rng, f"w{week}")
        else:  # the judge now says pass to nearly everything, on traffic and on anchors
            w = _window(rng, f"w{week}", judge_skill=0.3, pass_rate=0.6)
            w = Window(
                w.name,
                audit=w.audit,
                scored={
                    "tone": [Case(c.case, tuple("pass" for _ in c.judge)) for c in w.scored["tone"]]
                },
                anchors={
                    "tone": [
                        Case(c.case, tuple("pass" for _ in c.judge), c.expert)
                        for c in w.anchors["tone"]
                    ]
                },
            )
        said.append(m.update(w).criteria["tone"].verdicts)
    assert all("product_changed" not in v for v in said), said
    assert "judge_changed" in said[-1]


def test_too_small_an_anchor_set_is_refused_and_says_so() -> None:
    """Item 3: below the minimum anchor set the judge-or-product rule does not run: its status
    is absent, a reason says why, and a shift stays shift_unexplained."""
    base = CriterionBaseline(("fail", "pass"), (0.4, 0.6), anchor_kappa=0.9, anchor_cases=8)
    m = Monitor({"tone": base})
    rng = random.Random(2)
    for week in range(1, 31):
        w = _window(rng, f"w{week}", pass_rate=0.6 if week <= 4 else 0.05)
        st = m.update(Window(w.name, scored=w.scored, anchors=w.anchors)).criteria["tone"]
    assert st.anchors is None and st.anchors_held is None
    assert st.verdicts == ("shift_unexplained",)
    assert st.reasons[0] == (
        "anchors not used: the anchor set has 8 case(s), fewer than the minimum 10: the "
        "judge-or-product rule is undecided"
    )
    ok = Monitor({"tone": replace(base, anchor_cases=10)})
    assert ok.update(Window("w1", anchors=w.anchors)).criteria["tone"].anchors is not None


def test_prevalence_alone_lowers_the_bar_and_raises_no_alarm() -> None:
    """Item 5: the product passes .95 instead of .6 with the same judge: kappa falls with the
    prevalence, and rule 1 compares it with what the released judge's own error rates give at
    the new prevalence (the gate's bar lowered by that drop), so it stays quiet and says why. A
    judge that gets worse at that prevalence still fires."""
    # release: sensitivity .9, specificity .9 on 100 gold items, half of them passing
    conf = ((45.0, 5.0), (5.0, 45.0))
    base = CriterionBaseline(("fail", "pass"), (0.5, 0.5), confusion=conf)
    assert base.expected_kappa([0.5, 0.5]) == pytest.approx(0.8)
    low = base.expected_kappa([0.05, 0.95])
    assert low is not None and low < 0.5

    def audit(rng: random.Random, acc: float) -> list[Case]:
        out = []
        for i in range(12):
            e = tuple("pass" if rng.random() < 0.95 else "fail" for _ in range(rng.randint(1, 3)))
            j = tuple(x if rng.random() < acc else ("fail" if x == "pass" else "pass") for x in e)
            out.append(Case(f"a{i}", j, e))
        return out

    rng = random.Random(6)
    same, worse = Monitor({"tone": base}), Monitor({"tone": base})
    for week in range(1, 61):
        st = same.update(Window(f"w{week}", audit={"tone": audit(rng, 0.9)})).criteria["tone"]
        bad = worse.update(Window(f"w{week}", audit={"tone": audit(rng, 0.6)})).criteria["tone"]
    assert st.verdicts == ("ok",) and st.agreement_bar is not None and st.agreement_bar < 0.5
    assert any(r.startswith("prevalence: ") for r in st.reasons)
    assert "below_gate" in bad.verdicts


def test_a_version_1_state_upgrades_its_shift_rule_keeps_the_others() -> None:
    """A monitor state written before issue 31 loads: its shift rule (against the gold shares
    taken as exact) starts again from reference windows, the agreement and anchor rules go on."""
    rng = random.Random(9)
    m = Monitor(_baseline())
    for week in range(1, 4):
        m.update(_window(rng, f"w{week}"))
    state = json.loads(json.dumps(m.state().json_data()))
    old = copy.deepcopy(state)
    old["state_version"] = 1
    for c in old["criteria"].values():
        k = len(c["baseline"]["labels"])
        c["shift"] = {
            "p0": [1 / k] * k,
            "memory": 4,
            "log_e": 9.0,
            "windows": 3,
            "cases": 90,
            "recent": [],
        }
        c["fired"] = {"shift": "w2"}
        for key in ("held", "experts"):
            c.pop(key)
        for key in ("confusion", "anchor_cases", "anchor_scorings"):
            c["baseline"].pop(key)
    for key in ("reference_windows", "min_anchor_cases"):
        old["settings"].pop(key)
    up = Monitor.from_dict(old)
    st = up.update(_window(rng, "w4")).criteria["tone"]
    assert st.verdicts == ("ok",) and not st.shift.alarm
    assert st.shift_reference is not None and st.shift_reference.windows == 1
    assert st.agreement.windows == 4 and st.anchors is not None and st.anchors.windows == 4
    assert (
        Monitor.from_dict(json.loads(json.dumps(up.state().json_data()))).state().json_data()
        == up.state().json_data()
    )


def test_the_reference_interval_covers_the_mean_of_bounded_case_shares() -> None:
    """The interval rule 2 spends alpha/2 on: for case shares in [0, 1] (here the share of
    passes in cases of 1-4 items with a case effect), it holds the true mean in at least
    1 - miss of 2,000 seeded samples of 30 and of 160 cases."""
    from calibrant.monitor.eprocess import kl_interval

    rng = random.Random(12)
    for n, rate in ((30, 0.3), (160, 0.6), (30, 0.95)):
        missed = 0
        for _ in range(2000):
            shares = []
            for _ in range(n):
                p = rng.betavariate(8 * rate, 8 * (1 - rate))
                size = rng.randint(1, 4)
                shares.append(sum(rng.random() < p for _ in range(size)) / size)
            lo, hi = kl_interval(sum(shares) / n, n, 0.05)
            missed += not lo <= rate <= hi
        assert missed / 2000 <= 0.05, (n, rate, missed)
    assert kl_interval(0.0, 10, 0.05)[0] == 0.0 and kl_interval(1.0, 10, 0.05)[1] == 1.0


def test_a_judge_whose_labels_on_the_anchors_move_is_changed_whatever_its_kappa() -> None:
    """Rule 3's second test: the judge's label shares on the anchors against the release
    scorings'. A judge that turns lenient where lenience costs it no kappa on the anchors (its
    kappa there was low at release) is still judge_changed, and the shift is never blamed on the
    product."""
    rng = random.Random(14)
    experts = [tuple("pass" if rng.random() < 0.6 else "fail" for _ in range(3)) for _ in range(20)]

    def scoring(lenient: bool) -> list[Case]:
        out = []
        for i, e in enumerate(experts):
            j = tuple(
                "pass"
                if lenient and rng.random() < 0.8
                else (x if rng.random() < 0.6 else rng.choice(("pass", "fail")))
                for x in e
            )
            out.append(Case(f"g{i}", j, e))
        return out

    base = CriterionBaseline(("fail", "pass"), (0.4, 0.6), anchor_cases=20, anchor_scorings=3)
    release = [c for _ in range(3) for c in scoring(False)]
    base = replace(
        base,
        anchor_kappa=anchor_kappa(release, base),
        anchor_reference=anchor_reference(release, base),
    )
    assert base.anchor_reference is not None and base.anchor_reference[-1] == 60
    m = Monitor({"tone": base})
    said = []
    for week in range(1, 31):
        lenient = week > 6
        anchors = [scoring(lenient)[rng.randrange(20)] for _ in range(30)]
        scored = _traffic(rng, 30, 0.9 if lenient else 0.6)
        st = m.update(Window(f"w{week}", scored={"tone": scored}, anchors={"tone": anchors}))
        said.append(st.criteria["tone"].verdicts)
    last = st.criteria["tone"]
    assert last.anchors_shift is not None and last.anchors_shift.alarm
    assert "judge_changed" in last.verdicts, said
    assert all("product_changed" not in v for v in said), said
    assert any("its label shares on the anchors moved" in r for r in last.reasons)
