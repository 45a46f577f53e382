"""`benchmarks/bench_gold_power.py` reruns in one command on a gold folder (gold v3 later): it
reads the split through calibrant's loader, simulates experts at their measured kappa and writes
per criterion the power on the split and the cases needed, each rate with its n and interval."""

from __future__ import annotations

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
