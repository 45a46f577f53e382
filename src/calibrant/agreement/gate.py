"""The release gate for one criterion: PASS, FAIL or UNDECIDED, with the reasons.

PASS when the judge's agreement with the consensus has a CI lower bound at or above
`min_lower`, the judge answered enough items (`min_coverage`), and the judge is not below the
experts' own agreement (the ceiling) minus the ceiling's CI half-width. FAIL when the judge's
CI upper bound is below `min_lower` or below that ceiling margin, or coverage is too low.
UNDECIDED otherwise — the interval straddles a threshold, or a statistic is undefined: more
items, not a coin flip, settle it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .resample import BootstrapResult
from .undefined import Undefined

__all__ = ["GateSettings", "GateDecision", "release_gate"]

Status = Literal["PASS", "FAIL", "UNDECIDED"]


@dataclass(frozen=True)
class GateSettings:
    """Thresholds of the gate (all configurable)."""

    min_lower: float = 0.6
    min_coverage: float = 0.8
    use_ceiling: bool = True


@dataclass(frozen=True)
class GateDecision:
    status: Status
    reasons: tuple[str, ...]
    ceiling_margin: float | None  # ceiling point minus its CI half-width

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "reasons": list(self.reasons),
            "ceiling_margin": self.ceiling_margin,
        }


def release_gate(
    judge: BootstrapResult,
    ceiling: BootstrapResult | None,
    *,
    coverage: float,
    settings: GateSettings,
) -> GateDecision:
    """Decide the gate for one criterion."""
    reasons: list[str] = []
    margin: float | None = None
    if (
        settings.use_ceiling
        and ceiling is not None
        and not isinstance(ceiling.estimate, Undefined)
        and not isinstance(ceiling.ci, Undefined)
    ):
        half = (ceiling.ci[1] - ceiling.ci[0]) / 2
        margin = ceiling.estimate - half
    elif settings.use_ceiling:
        why = (
            "no expert pair"
            if ceiling is None
            else (
                ceiling.estimate.reason
                if isinstance(ceiling.estimate, Undefined)
                else ceiling.ci.reason
                if isinstance(ceiling.ci, Undefined)
                else ""
            )
        )
        reasons.append(f"expert ceiling undefined ({why}); gate uses the absolute threshold only")
    if coverage < settings.min_coverage:
        return GateDecision(
            "FAIL",
            (
                *reasons,
                f"the judge gave a usable label on "
                f"{coverage:.0%} of items, below {settings.min_coverage:.0%}",
            ),
            margin,
        )
    if isinstance(judge.estimate, Undefined):
        return GateDecision(
            "UNDECIDED", (*reasons, f"judge agreement undefined: {judge.estimate.reason}"), margin
        )
    if isinstance(judge.ci, Undefined):
        return GateDecision(
            "UNDECIDED", (*reasons, f"judge interval undefined: {judge.ci.reason}"), margin
        )
    lo, hi = judge.ci
    if hi < settings.min_lower:
        return GateDecision(
            "FAIL", (*reasons, f"CI upper bound {hi:.2f} < {settings.min_lower}"), margin
        )
    if margin is not None and hi < margin:
        return GateDecision(
            "FAIL",
            (
                *reasons,
                f"CI upper bound {hi:.2f} is below the expert "
                f"ceiling minus its half-width ({margin:.2f})",
            ),
            margin,
        )
    ok_lower = lo >= settings.min_lower
    ok_ceiling = margin is None or judge.estimate >= margin
    if ok_lower and ok_ceiling:
        return GateDecision(
            "PASS",
            (
                *reasons,
                f"CI lower bound {lo:.2f} ≥ {settings.min_lower}"
                + (
                    ""
                    if margin is None
                    else f" and {judge.estimate:.2f} ≥ ceiling margin {margin:.2f}"
                ),
            ),
            margin,
        )
    short: list[str] = []
    if not ok_lower:
        short.append(f"CI lower bound {lo:.2f} < {settings.min_lower}")
    if not ok_ceiling:
        short.append(f"{judge.estimate:.2f} below the ceiling margin {margin:.2f}")
    return GateDecision(
        "UNDECIDED",
        (*reasons, "; ".join(short) + " while the CI reaches the thresholds: more items needed"),
        margin,
    )
