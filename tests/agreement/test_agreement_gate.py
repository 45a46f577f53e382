"""The release gate follows one rule, written once in the code and once in the README."""

from __future__ import annotations

import re

import pytest

from calibrant.agreement import BootstrapResult, Undefined
from calibrant.agreement.gate import GATE_RULE, GateSettings, release_gate
from tests.conftest import ROOT


def _result(estimate: float | Undefined, ci: tuple[float, float] | Undefined, n: int = 100):
    return BootstrapResult(
        statistic="cohen_kappa",
        estimate=estimate,
        ci=ci,
        confidence=0.95,
        n=n,
        n_clusters=None,
        n_resamples=1000,
        n_dropped=0,
        seed=0,
    )


def test_pass_needs_the_whole_interval_above_the_ceiling_margin() -> None:
    # experts 0.80 [0.75, 0.85]; judge 0.85 [0.70, 0.95]. Today: margin 0.75 = 0.80 - 0.05,
    # and the judge's *estimate* 0.85 clears it -> PASS, although its interval reaches 0.70.
    judge = _result(0.85, (0.70, 0.95))
    ceiling = _result(0.80, (0.75, 0.85))
    d = release_gate(judge, ceiling, coverage=1.0, settings=GateSettings())
    assert d.status == "UNDECIDED"
    assert "0.70 < the ceiling margin 0.75" in d.reasons[-1]
    # the same judge with its whole interval above both bars passes
    ok = release_gate(_result(0.9, (0.80, 0.97)), ceiling, coverage=1.0, settings=GateSettings())
    assert ok.status == "PASS" and ok.ceiling_margin == pytest.approx(0.75)


def test_fail_when_the_whole_interval_is_below_a_bar() -> None:
    ceiling = _result(0.9, (0.85, 0.95))
    d = release_gate(_result(0.7, (0.62, 0.8)), ceiling, coverage=1.0, settings=GateSettings())
    assert d.status == "FAIL" and "0.80 < the ceiling margin 0.85" in d.reasons[-1]


@pytest.mark.parametrize(
    "ceiling",
    [
        None,
        _result(Undefined("both experts used only 'pass'"), Undefined("estimate undefined")),
        _result(0.8, Undefined("600 of 1000 bootstrap resamples are undefined")),
    ],
)
def test_undefined_ceiling_is_undecided(ceiling: BootstrapResult | None) -> None:
    # Today: "gate uses the absolute threshold only" and the judge below PASSes.
    judge = _result(0.95, (0.9, 1.0))
    d = release_gate(judge, ceiling, coverage=1.0, settings=GateSettings())
    assert d.status == "UNDECIDED" and "expert ceiling undefined" in d.reasons[-1]
    assert d.ceiling_margin is None
    off = release_gate(judge, ceiling, coverage=1.0, settings=GateSettings(use_ceiling=False))
    assert off.status == "PASS"


def test_too_few_items_is_undecided_with_the_reason() -> None:
    judge = _result(1.0, (1.0, 1.0), n=4)
    d = release_gate(judge, _result(1.0, (1.0, 1.0)), coverage=1.0, settings=GateSettings())
    assert d.status == "UNDECIDED"
    assert "only 4 item(s)" in d.reasons[0] and "--min-items" in d.reasons[0]
    assert d.to_dict()["min_items"] == 20 and d.to_dict()["n"] == 4
    assert d.to_dict()["rule"] == GATE_RULE


def test_the_readme_states_the_same_rule() -> None:
    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text())
    assert GATE_RULE in readme
