"""A judged pass rate corrected by the judge's measured error rates (Rogan–Gladen).

A judge that passes 70% of a batch does not mean 70% of the batch passes: the judge misses some
failures and rejects some good replies. Its calibration against the experts' consensus measured
how often it does each — sensitivity (it passes what the experts passed) and specificity (it fails
what the experts failed) — and the Rogan–Gladen estimator undoes that:

    corrected = (judged + specificity - 1) / (sensitivity + specificity - 1)

The interval carries both uncertainties, the batch's and the calibration's: each of the three
proportions is drawn from its Jeffreys posterior, the estimator is applied to every draw, and the
percentile interval of the draws is reported. When the judge is not better than chance
(sensitivity + specificity <= 1) the correction does not exist, and when the calibration is too
small to tell, the interval does not either; both are reported as undefined with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..agreement.intervals import Figure, proportion

if TYPE_CHECKING:  # imported when a correction is computed, not when `score` starts
    import numpy as np

__all__ = ["ErrorCounts", "CorrectedRate", "corrected_pass_rate"]


@dataclass(frozen=True)
class ErrorCounts:
    """The judge against the experts' consensus on one binary criterion, from a calibration.

    true_pass: both passed; false_fail: the experts passed, the judge failed;
    true_fail: both failed; false_pass: the experts failed, the judge passed.
    """

    true_pass: int
    false_fail: int
    true_fail: int
    false_pass: int

    def __post_init__(self) -> None:
        if min(self.true_pass, self.false_fail, self.true_fail, self.false_pass) < 0:
            raise ValueError("error counts cannot be negative")

    @property
    def sensitivity(self) -> Figure:
        return proportion(self.true_pass, self.true_pass + self.false_fail)

    @property
    def specificity(self) -> Figure:
        return proportion(self.true_fail, self.true_fail + self.false_pass)


@dataclass(frozen=True)
class CorrectedRate:
    """The pass rate as judged and as corrected, each with n and a 95% interval."""

    judged: Figure
    corrected: Figure
    sensitivity: Figure
    specificity: Figure

    def as_json(self) -> dict[str, object]:
        return {
            "judged": self.judged.as_json(),
            "corrected": self.corrected.as_json(),
            "sensitivity": self.sensitivity.as_json(),
            "specificity": self.specificity.as_json(),
        }


def _jeffreys(rng: np.random.Generator, k: int, n: int, draws: int) -> np.ndarray:
    return rng.beta(k + 0.5, n - k + 0.5, size=draws)


def corrected_pass_rate(
    passed: int,
    judged: int,
    errors: ErrorCounts,
    *,
    draws: int = 20_000,
    seed: int = 0,
) -> CorrectedRate:
    """`passed` of `judged` items got a pass from the judge; correct that by `errors`."""
    if not 0 <= passed <= judged:
        raise ValueError(f"passed ({passed}) must be between 0 and judged ({judged})")
    apparent = proportion(passed, judged)
    se, sp = errors.sensitivity, errors.specificity
    method = f"Rogan-Gladen, Jeffreys draws (n={draws}, seed={seed})"

    def undefined(reason: str) -> CorrectedRate:
        return CorrectedRate(apparent, Figure(None, judged, None, method, reason), se, sp)

    if judged == 0:
        return undefined("no item was judged")
    if se.value is None:
        return undefined("the calibration has no item the experts passed (sensitivity unknown)")
    if sp.value is None:
        return undefined("the calibration has no item the experts failed (specificity unknown)")
    youden = se.value + sp.value - 1
    if youden <= 0:
        return undefined(
            f"the judge is no better than chance on this criterion "
            f"(sensitivity {se.value:.2f} + specificity {sp.value:.2f} <= 1)"
        )
    point = min(1.0, max(0.0, (passed / judged + sp.value - 1) / youden))

    import numpy as np

    rng = np.random.default_rng(seed)
    p = _jeffreys(rng, passed, judged, draws)
    se_d = _jeffreys(rng, errors.true_pass, se.n, draws)
    sp_d = _jeffreys(rng, errors.true_fail, sp.n, draws)
    j = se_d + sp_d - 1
    usable = j > 0
    share_unusable = 1 - usable.mean()
    if share_unusable > 0.025:
        return CorrectedRate(
            apparent,
            Figure(
                point,
                judged,
                None,
                method,
                f"no interval: the calibration is too small to tell the judge from chance "
                f"(sensitivity + specificity <= 1 in {share_unusable:.0%} of draws)",
            ),
            se,
            sp,
        )
    values = np.clip((p[usable] + sp_d[usable] - 1) / j[usable], 0.0, 1.0)
    lo, hi = np.percentile(values, [2.5, 97.5])
    return CorrectedRate(apparent, Figure(point, judged, (float(lo), float(hi)), method), se, sp)
