"""The release gate for one criterion: PASS, FAIL or UNDECIDED, with the reasons.

The one rule (the README states it in the same words, from :data:`GATE_RULE`):

* **UNDECIDED** when the judge has fewer than ``min_items`` paired items, when the judge's
  statistic or its interval is undefined, or when the experts' ceiling is used and is undefined
  (there is no silent fallback to the absolute bar alone);
* **FAIL** when coverage is below ``min_coverage``, or the judge's whole interval lies below a
  bar (its upper bound is under ``min_lower`` or under the ceiling margin);
* **PASS** only when coverage reaches ``min_coverage`` and the judge's whole interval clears
  every bar: its lower bound is at or above ``min_lower`` and at or above the ceiling margin
  (the lower bound of the experts' ceiling CI: what the experts demonstrably reach; with the
  asymmetric intervals near 1 it replaces "estimate minus half-width");
* **UNDECIDED** otherwise: the interval straddles a bar, and more items settle it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .resample import BootstrapResult
from .undefined import Undefined

__all__ = ["GATE_RULE", "GateSettings", "GateDecision", "release_gate"]

Status = Literal["PASS", "FAIL", "UNDECIDED"]

_TOL = 1e-9  # equal bounds from identical tables must compare equal despite rounding

GATE_RULE = (
    "PASS only when the judge has at least min_items paired items, its coverage reaches "
    "min_coverage and its whole confidence interval clears every bar: lower bound >= min_lower "
    "and >= the ceiling margin (the lower bound of the experts' own agreement CI). FAIL when "
    "coverage is below min_coverage or the whole interval is below a bar. UNDECIDED "
    "otherwise, including too few items, an undefined judge statistic or interval, and an "
    "undefined ceiling."
)


@dataclass(frozen=True)
class GateSettings:
    """Thresholds of the gate (all configurable)."""

    min_lower: float = 0.6
    min_coverage: float = 0.8
    use_ceiling: bool = True
    min_items: int = 20


@dataclass(frozen=True)
class GateDecision:
    status: Status
    reasons: tuple[str, ...]
    ceiling_margin: float | None  # lower bound of the experts' ceiling CI
    n: int = 0  # the judge's paired items
    min_items: int = 20

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "reasons": list(self.reasons),
            "ceiling_margin": self.ceiling_margin,
            "n": self.n,
            "min_items": self.min_items,
            "rule": GATE_RULE,
        }


def _ceiling_margin(ceiling: BootstrapResult | None) -> float | str:
    """The ceiling margin, or the reason it is undefined."""
    if ceiling is None:
        return "fewer than two experts labelled this criterion: no expert pair"
    if isinstance(ceiling.estimate, Undefined):
        return ceiling.estimate.reason
    if isinstance(ceiling.ci, Undefined):
        return ceiling.ci.reason
    return ceiling.ci[0]


def release_gate(
    judge: BootstrapResult,
    ceiling: BootstrapResult | None,
    *,
    coverage: float,
    settings: GateSettings,
) -> GateDecision:
    """Decide the gate for one criterion by :data:`GATE_RULE`."""
    margin: float | None = None
    n = judge.n

    def decide(status: Status, *reasons: str) -> GateDecision:
        return GateDecision(status, reasons, margin, n=n, min_items=settings.min_items)

    if n < settings.min_items:
        return decide(
            "UNDECIDED",
            f"only {n} item(s) rated by both the judge and the reference, below the minimum of "
            f"{settings.min_items} (--min-items): too few to decide",
        )
    ceiling_undefined: str | None = None
    if settings.use_ceiling:
        got = _ceiling_margin(ceiling)
        if isinstance(got, str):
            ceiling_undefined = (
                f"expert ceiling undefined ({got}); the gate does not fall back to the absolute "
                "bar alone (use --no-ceiling to gate on it deliberately)"
            )
        else:
            margin = got
    if coverage < settings.min_coverage:
        return decide(
            "FAIL",
            f"the judge gave a usable label on {coverage:.0%} of items, "
            f"below {settings.min_coverage:.0%}",
        )
    if isinstance(judge.estimate, Undefined):
        return decide("UNDECIDED", f"judge agreement undefined: {judge.estimate.reason}")
    if isinstance(judge.ci, Undefined):
        return decide("UNDECIDED", f"judge interval undefined: {judge.ci.reason}")
    lo, hi = judge.ci
    bars = [(settings.min_lower, f"the bar {settings.min_lower}")]
    if margin is not None:
        bars.append((margin, f"the ceiling margin {margin:.2f}"))
    below = [f"CI upper bound {hi:.2f} < {name}" for bar, name in bars if hi < bar]
    if below:
        return decide("FAIL", "; ".join(below))
    if ceiling_undefined is not None:
        return decide("UNDECIDED", ceiling_undefined)
    short = [f"CI lower bound {lo:.2f} < {name}" for bar, name in bars if lo < bar - _TOL]
    if short:
        return decide("UNDECIDED", "; ".join(short) + " while the CI reaches it: more items needed")
    return decide(
        "PASS", "CI lower bound " + f"{lo:.2f} ≥ " + " and ≥ ".join(name for _, name in bars)
    )
