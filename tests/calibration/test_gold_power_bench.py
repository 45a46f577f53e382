"""`benchmarks/bench_gold_power.py` reruns in one command on a gold folder (gold v3 later): it
reads the split through calibrant's loader, simulates experts at their measured kappa and writes
per criterion the power on the split and the cases needed, each rate with its n and interval."""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np

from calibrant.files import load_rubric
from calibrant.gold import load_gold
from tests.conftest import ROOT


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "bench_gold_power", ROOT / "benchmarks" / "bench_gold_power.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_gold_power", module)  # its dataclasses look themselves up
    spec.loader.exec_module(module)
    return module


def test_one_command_writes_power_and_cases_needed_per_criterion(tmp_path: Path) -> None:
    bench = _bench()
    out = tmp_path / "power.md"
    assert bench.main(["--reps", "3", "--resamples", "100", "--out", str(out)]) == 0
    text = out.read_text()
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    held = load_gold(ROOT / "gold", split="heldout")
    cases = len({m.case for m in held.items.values()})
    for c in rubric.criteria:
        assert f"| {c.id} | {cases} (the split) | 3 | " in text
        assert re.search(rf"\*\*{c.id}: cases needed for power ≥ 0.8\*\* \| \*\*\d+|more", text)
    assert re.search(r"\| 0\.\d{3} \[0\.\d{3}, [01]\.\d{3}\] \|", text)  # rate [Wilson CI]
    assert f"split of {cases} cases, {len(held.items)} items" in text


def test_the_simulated_experts_agree_as_the_real_ones_do() -> None:
    bench = _bench()
    gold = load_gold(ROOT / "gold", split=None)
    c = next(
        x
        for x in load_rubric(ROOT / "rubrics" / "refund_communication.yaml").criteria
        if x.id == "reports_access_problem"
    )
    agree = bench.expert_agreement(c, gold)
    st = bench.structure(c, load_gold(ROOT / "gold", split="heldout"))
    st = bench.replace(st, shares=agree["shares"], na_share=agree["na_share"])
    s, a = bench.solve(st, agree["kappa"], agree["applicability_kappa"])
    codes, _, _ = bench.simulate(st, np.random.default_rng(99), 4000, s, a)
    assert abs(bench._kappa(codes[1], codes[2], st.k, False) - agree["kappa"]) < 0.03
    assert abs(bench._applicability_kappa(codes[1], codes[2]) - agree["applicability_kappa"]) < 0.03
    # the experts label only what they labelled in the gold set
    assert ((codes[1:] != bench.UNRATED).sum() > 0) and st.rated.shape[0] == 2


def _plan():  # type: ignore[no-untyped-def]
    _bench()  # the plan imports it by name
    spec = importlib.util.spec_from_file_location(
        "bench_gold_v4_plan", ROOT / "benchmarks" / "bench_gold_v4_plan.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_gold_v4_plan", module)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _access_structure():  # type: ignore[no-untyped-def]
    """reports_access_problem on the held-out split, shares from every item (loaded once)."""
    bench = _bench()
    gold = load_gold(ROOT / "gold", split=None)
    c = next(
        x
        for x in load_rubric(ROOT / "rubrics" / "refund_communication.yaml").criteria
        if x.id == "reports_access_problem"
    )
    agree = bench.expert_agreement(c, gold)
    st = bench.structure(c, load_gold(ROOT / "gold", split="heldout"))
    return bench.replace(st, shares=agree["shares"], na_share=agree["na_share"])


def test_new_cases_follow_their_design() -> None:
    bench = _bench()
    st = _access_structure()
    rng = np.random.default_rng(3)
    split_na = float((st.truth == bench.NA).mean())
    for kind in bench.DESIGNS:
        truth, cases = bench.new_cases(st, rng, bench.Design(kind, 5, 400))
        assert truth.size == 2000 and np.array_equal(cases, np.repeat(np.arange(400), 5))
        na = (truth == bench.NA).reshape(400, 5)
        if kind == "targeted":  # the criterion applies to every new item
            assert not na.any() and set(np.unique(truth)) == {0, 1}
        elif kind == "balanced":  # whole cases not applicable, about half of them
            assert (na.all(axis=1) | ~na.any(axis=1)).all()
            assert 0.4 < na.all(axis=1).mean() < 0.6
        else:  # like the split's cases
            assert abs(na.mean() - split_na) < 0.05 and na.any()


def test_new_cases_join_the_split_labelled_by_both_experts() -> None:
    bench = _bench()
    st = _access_structure()
    design = bench.Design("targeted", 4, 10)
    codes, truth, cases = bench.simulate(st, np.random.default_rng(1), None, 0.9, 0.9, design)
    n = st.truth.size
    assert codes.shape == (3, n + 40) and truth.size == n + 40
    assert np.array_equal(truth[:n], st.truth)  # the split as it is, then the new cases
    assert np.array_equal(np.unique(cases[n:]), np.arange(st.n_cases, st.n_cases + 10))
    assert (codes[1:, n:] != bench.UNRATED).all()  # both experts label every new item
    assert (truth[n:] != bench.NA).all()


def test_experts_kappa_what_if_sets_the_simulated_agreement() -> None:
    bench = _bench()
    st = _access_structure()
    for target, app in ((0.9, 0.9), (0.7, 0.6)):
        s, a = bench.solve(st, target, app)
        codes, _, _ = bench.simulate(st, np.random.default_rng(8), 4000, s, a)
        assert abs(bench._kappa(codes[1], codes[2], st.k, False) - target) < 0.03
        assert abs(bench._applicability_kappa(codes[1], codes[2]) - app) < 0.03


def test_a_row_stops_early_once_its_interval_excludes_the_target() -> None:
    bench = _bench()
    st = _access_structure()
    s, a = bench.solve(st, 0.5, 0.5)  # experts this loose never get a judge through
    row = bench.power_row(st, 3, s, a, 100, 150, None, None, early_stop=True)
    assert row.reps == bench.BATCH and row.passes == 0
    full = bench.power_row(st, 3, s, a, 100, bench.BATCH + 1, None, None, early_stop=False)
    assert full.reps == bench.BATCH + 1


def test_bad_what_ifs_are_one_line_and_exit_2(capsys) -> None:  # type: ignore[no-untyped-def]
    bench = _bench()
    for argv, says in (
        (["--experts-kappa", "nope=0.9"], "no criterion 'nope'"),
        (["--experts-kappa", "overall_clarity"], "expected CRIT=K"),
        (["--experts-kappa", "overall_clarity=1.2"], "K must be in (0, 1)"),
        (["--applicability-kappa", "overall_clarity=0.9"], "has no not_applicable"),
        (["--items-per-case", "5"], "needs --design"),
    ):
        try:
            bench.main([*argv, "--quick"])
        except SystemExit as e:
            assert e.code == 2
        else:
            raise AssertionError(argv)
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert says in err and argv[0] in err


def test_a_gold_v4_needs_the_larger_of_the_two_criteria() -> None:
    plan = _plan()
    sc = plan.Scenario

    def result(crit: str, kappa: float | None, kind: str, k: int, need: int | None):  # type: ignore[no-untyped-def]
        return {"scenario": sc(crit, kappa, kappa, kind, k), "need": need}

    lines = plan.plans(
        [
            result(plan.SEPARATES, None, "targeted", 3, 160),
            result(plan.ACCESS, None, "targeted", 3, 80),
            result(plan.ACCESS, None, "mixed", 3, None),
            result(plan.SEPARATES, None, "targeted", 5, 60),
            result(plan.ACCESS, None, "targeted", 5, 100),
            {"scenario": sc(plan.ACCESS, 0.9, None, "targeted", 3), "need": 10},  # not joint
        ],
        0.25,
    )
    rows = [x for x in lines if x.startswith("| measured")]
    # cheapest in items first: 160 cases × 3 = 480 items before 100 × 5 = 500; then no answer
    assert rows[0].startswith("| measured | targeted | 3 | **160** (160, 80) | 480 | 120 |")
    assert rows[1].startswith("| measured | targeted | 5 | **100** (60, 100) | 500 | 125 |")
    assert "more than" in rows[2]
    assert any("Cheapest at the measured κ: 160 new targeted cases of 3 items" in x for x in lines)
