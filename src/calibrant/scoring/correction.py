"""A judged pass rate corrected by the judge's measured error rates (Rogan–Gladen).

A judge that passes 70% of a batch does not mean 70% of the batch passes: the judge misses some
failures and rejects some good replies. Its calibration against the experts' consensus measured
how often it does each — sensitivity (it passes what the experts passed) and specificity (it fails
what the experts failed) — and the Rogan–Gladen estimator undoes that:

    corrected = (judged + specificity - 1) / (sensitivity + specificity - 1)

The unit of the calibration is the case: its items come in cases, and the judge's errors on the
items of one case go together. So the calibration's uncertainty is drawn **by case**: each draw
resamples the calibration's cases with replacement, sums their error counts, and draws
sensitivity and specificity from their Jeffreys posteriors given those sums (so a draw is never
certain, even when the judge made no error). ``J = sensitivity + specificity - 1`` is the
judge's skill: the correction is **undefined** (with the reason) when J <= 0 at the point
estimate or in more than 2.5% of the draws, and when the items the experts passed, or failed,
come from fewer than 2 cases.

The 95% interval is the union of

* the posterior interval of the batch's true pass rate on [0, 1] (uniform prior; the batch's
  judged passes are binomial given the rate and each draw's sensitivity and specificity; the
  posterior mixes the draws), which is never a single point and stays honest when the judged
  rate falls below ``1 - specificity`` (the estimator is then clipped to 0, and said so);
* the cluster jackknife t interval, ``estimate ± t(G-1) * SE`` (leave-one-case-out for the
  calibration, binomial for the batch), which keeps coverage with about 10 cases.

Coverage and the undefined rate are measured by ``benchmarks/bench_trials_coverage.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..agreement.clustered import clustered_proportion
from ..agreement.intervals import Figure, proportion
from ..contracts.reports.audit import CorrectedRate as CorrectedRatePart
from ..contracts.reports.base import Figure as FigurePart

if TYPE_CHECKING:  # imported when a correction is computed, not when `score` starts
    import numpy as np

__all__ = ["ErrorCounts", "CorrectedRate", "corrected_pass_rate", "MAX_UNSKILLED_DRAWS"]

MAX_UNSKILLED_DRAWS = 0.025  # share of draws with J <= 0 beyond which there is no correction
GRID = 401  # points of the posterior's grid on [0, 1] (the CDF is interpolated)


@dataclass(frozen=True)
class ErrorCounts:
    """The judge against the experts' consensus on one binary criterion, in one calibration
    case (or summed over cases).

    true_pass: both passed; false_fail: the experts passed, the judge failed;
    true_fail: both failed; false_pass: the experts failed, the judge passed. Counts may be
    fractional: an audit's items weighted by 1 / inclusion probability.
    """

    true_pass: float
    false_fail: float
    true_fail: float
    false_pass: float

    def __post_init__(self) -> None:
        if min(self.true_pass, self.false_fail, self.true_fail, self.false_pass) < 0:
            raise ValueError("error counts cannot be negative")

    @property
    def passed(self) -> float:
        """Items the experts passed."""
        return self.true_pass + self.false_fail

    @property
    def failed(self) -> float:
        """Items the experts failed."""
        return self.true_fail + self.false_pass

    @property
    def sensitivity(self) -> Figure:
        return proportion(round(self.true_pass), round(self.passed))  # weighted: rounded

    @property
    def specificity(self) -> Figure:
        return proportion(round(self.true_fail), round(self.failed))


@dataclass(frozen=True)
class CorrectedRate:
    """The pass rate as judged and as corrected, each with n and a 95% interval; `note` says
    when the estimate was clipped to [0, 1]."""

    judged: Figure
    corrected: Figure
    sensitivity: Figure
    specificity: Figure
    note: str | None = None

    def typed(self) -> CorrectedRatePart:
        """This rate as the report part (`agreement-over-time`'s pass_rate_corrected)."""
        return CorrectedRatePart(
            judged=_figure(self.judged),
            corrected=_figure(self.corrected),
            sensitivity=_figure(self.sensitivity),
            specificity=_figure(self.specificity),
            note=self.note,
        )


def _figure(f: Figure) -> FigurePart:
    return f.as_figure()


def corrected_pass_rate(
    passed: int,
    judged: int,
    by_case: Sequence[ErrorCounts],
    *,
    draws: int = 4000,
    seed: int = 0,
) -> CorrectedRate:
    """`passed` of `judged` items got a pass from the judge; correct that by the judge's errors
    in each calibration case (`by_case`, one entry per case)."""
    if not 0 <= passed <= judged:
        raise ValueError(f"passed ({passed}) must be between 0 and judged ({judged})")
    cases = [c for c in by_case if c.passed or c.failed]
    apparent = proportion(passed, judged)
    se = clustered_proportion([c.true_pass for c in cases], [c.passed for c in cases], seed=seed)
    sp = clustered_proportion([c.true_fail for c in cases], [c.failed for c in cases], seed=seed)
    g = len(cases)
    method = (
        f"Rogan-Gladen; interval: posterior on [0, 1] with the calibration's {g} cases "
        f"resampled ({draws} draws, Jeffreys within each, seed={seed}) ∪ cluster jackknife "
        "t(G-1)"
    )

    def undefined(reason: str) -> CorrectedRate:
        return CorrectedRate(apparent, Figure(None, judged, None, method, reason), se, sp)

    if judged == 0:
        return undefined("no item was judged")
    if se.value is None:
        return undefined("the calibration has no item the experts passed (sensitivity unknown)")
    if sp.value is None:
        return undefined("the calibration has no item the experts failed (specificity unknown)")
    for name, owners in (
        ("passed", sum(1 for c in cases if c.passed)),
        ("failed", sum(1 for c in cases if c.failed)),
    ):
        if owners < 2:
            return undefined(
                f"the items the experts {name} come from {owners} calibration case: the judge's "
                "errors cannot be measured by case (at least 2 cases needed)"
            )
    youden = se.value + sp.value - 1
    if youden <= 0:
        return undefined(
            f"the judge is no better than chance on this criterion "
            f"(sensitivity {se.value:.2f} + specificity {sp.value:.2f} <= 1)"
        )
    import numpy as np

    counts = np.asarray(
        [[c.true_pass, c.false_fail, c.true_fail, c.false_pass] for c in cases], dtype=np.float64
    )
    rng = np.random.default_rng(seed)
    sums = counts[rng.integers(0, g, size=(draws, g))].sum(axis=1)
    se_d = rng.beta(sums[:, 0] + 0.5, sums[:, 1] + 0.5)
    sp_d = rng.beta(sums[:, 2] + 0.5, sums[:, 3] + 0.5)
    j = se_d + sp_d - 1
    unskilled = float(np.mean(j <= 0))
    if unskilled > MAX_UNSKILLED_DRAWS:
        return undefined(
            f"the calibration cannot tell the judge from chance: sensitivity + specificity "
            f"<= 1 in {unskilled:.1%} of {draws} draws resampling its {g} cases (more than "
            f"{MAX_UNSKILLED_DRAWS:.1%})"
        )
    rate = passed / judged
    raw = (rate + sp.value - 1) / youden
    point = min(1.0, max(0.0, raw))
    ok = j > 0
    lo, hi = _posterior_interval(passed, judged, se_d[ok], sp_d[ok])
    t_ci = _jackknife_t(raw, rate, judged, counts, youden)
    if t_ci is not None:
        lo, hi = min(lo, t_ci[0]), max(hi, t_ci[1])
    lo, hi = max(0.0, min(lo, point)), min(1.0, max(hi, point))
    note = None
    if raw < 0:
        note = (
            f"the judged rate {rate:.1%} is below 1 - specificity ({1 - sp.value:.1%}): the "
            f"estimator gives {raw:.1%}, clipped to 0; the interval is the posterior's for a "
            "rate in [0, 1]"
        )
    elif raw > 1:
        note = (
            f"the judged rate {rate:.1%} is above the sensitivity ({se.value:.1%}): the "
            f"estimator gives {raw:.1%}, clipped to 1; the interval is the posterior's for a "
            "rate in [0, 1]"
        )
    return CorrectedRate(apparent, Figure(point, judged, (lo, hi), method), se, sp, note)


def _posterior_interval(
    passed: int, judged: int, se: np.ndarray, sp: np.ndarray
) -> tuple[float, float]:
    """The 95% equal-tailed interval of the true rate's posterior (uniform prior on [0, 1]),
    mixing the likelihood of the batch over the draws of sensitivity and specificity."""
    import numpy as np

    grid = np.linspace(0.0, 1.0, GRID)
    logs = []
    for start in range(0, se.size, 1000):
        s, p = se[start : start + 1000, None], sp[start : start + 1000, None]
        q = np.clip(grid[None, :] * s + (1 - grid[None, :]) * (1 - p), 1e-300, 1 - 1e-16)
        loglik = passed * np.log(q) + (judged - passed) * np.log1p(-q)
        top = loglik.max(axis=1, keepdims=True)  # each draw weighs its marginal likelihood
        logs.append((top[:, 0], np.exp(loglik - top)))
    best = max(float(t.max()) for t, _ in logs)
    density = sum((np.exp(t - best)[:, None] * w).sum(axis=0) for t, w in logs)
    mass = (density[1:] + density[:-1]) / 2
    cdf = np.concatenate([[0.0], np.cumsum(mass)])
    cdf /= cdf[-1]
    lo, hi = (float(np.interp(q, cdf, grid)) for q in (0.025, 0.975))
    step = 1.0 / (GRID - 1)
    if hi - lo < step:  # never a single point
        lo, hi = max(0.0, lo - step), min(1.0, hi + step)
    return lo, hi


def _jackknife_t(
    raw: float, rate: float, judged: int, counts: np.ndarray, youden: float
) -> tuple[float, float] | None:
    """``raw ± t(G-1) * SE``: leave-one-case-out for the calibration, binomial for the batch;
    None when leaving a case out leaves sensitivity or specificity unmeasured or J <= 0."""
    import numpy as np
    from scipy import stats as sps

    g = counts.shape[0]
    rest = counts.sum(axis=0) - counts
    pos, neg = rest[:, 0] + rest[:, 1], rest[:, 2] + rest[:, 3]
    if np.any(pos == 0) or np.any(neg == 0):
        return None
    j = rest[:, 0] / pos + rest[:, 2] / neg - 1
    if np.any(j <= 0):
        return None
    loo = (rate + rest[:, 2] / neg - 1) / j
    var = (g - 1) / g * float(((loo - loo.mean()) ** 2).sum())
    var += rate * (1 - rate) / judged / youden**2
    half = float(sps.t.ppf(0.975, g - 1)) * math.sqrt(var)
    return raw - half, raw + half
