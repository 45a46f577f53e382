"""Interval methods that stay honest at small n, near the boundary and with few clusters.

Every agreement statistic here is a smooth function of additive per-unit sufficient statistics
(a unit is an item, or a cluster of items). Given the point estimate, the bootstrap values and
the leave-one-unit-out (jackknife) values, :func:`honest_interval` returns:

* items: the **BCa** bootstrap interval (bias-corrected and accelerated; the acceleration comes
  from the jackknife), which corrects the skew of kappa near 1 that the plain percentile
  interval ignores;
* clusters: the wider of BCa and a **cluster jackknife t interval**, ``estimate ± t(G-1) * SE``,
  which keeps its coverage with about 10 clusters where any bootstrap of 10 units is too narrow;
* both: united with a **score floor** (:func:`score_floor`): every statistic here has the form
  ``1 - D_o / D_e`` (observed over chance disagreement), and a Wilson score interval for the
  observed disagreement ``D_o`` maps to an interval for the statistic. It keeps the interval
  open when the sample shows no disagreement at all, where every resampling interval collapses
  to ``[1, 1]``.

The union of two intervals covers at least as often as either; the method string names what was
used. The coverage is measured by ``benchmarks/bench_coverage.py``.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibrant.agreement.undefined import Undefined

__all__ = [
    "z_value",
    "bca_interval",
    "cluster_t_interval",
    "honest_interval",
    "score_floor",
    "wilson",
]

Float64Array = NDArray[np.float64]
Interval = tuple[float, float]

_NORMAL = NormalDist()


def z_value(confidence: float) -> float:
    """The two-sided normal quantile, e.g. 1.96 for 0.95."""
    return _NORMAL.inv_cdf(0.5 + confidence / 2)


def wilson(successes: float, n: float, *, confidence: float) -> Interval:
    """Wilson score interval for ``successes / n`` (``successes`` may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    z = z_value(confidence)
    p = min(max(successes / n, 0.0), 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def score_floor(
    observed: float,
    expected: float,
    n: float,
    *,
    confidence: float,
    expected_high: float | None = None,
    weight: float = 1.0,
) -> Interval | None:
    """Interval for ``1 - D_o / D_e`` from a Wilson interval for the disagreement rate.

    ``observed`` is the share of the ``n`` items on which the raters disagree (at all) and
    ``weight`` the mean disagreement weight of those items, scaled to [0, 1] (1 for unweighted
    statistics; 1, the most conservative, when no item disagrees), so ``D_o = observed *
    weight``. ``expected`` is the chance disagreement ``D_e``. Chance disagreement is itself
    estimated: the lower bound divides by the smaller and the upper bound by the larger of
    ``expected`` and ``expected_high`` (``D_e`` from marginals shrunk toward even use of the
    categories). ``None`` when ``D_e`` is 0 (undefined).
    """
    high = expected if expected_high is None else max(expected, expected_high)
    low = expected if expected_high is None else min(expected, expected_high)
    if low <= 0 or n <= 0:
        return None
    lo_r, hi_r = wilson(observed * n, n, confidence=confidence)
    return (1.0 - hi_r * weight / low, 1.0 - lo_r * weight / high)


def bca_interval(
    point: float,
    values: ArrayLike,
    jackknife: ArrayLike,
    *,
    confidence: float,
) -> Interval:
    """BCa interval from the defined bootstrap ``values`` and defined ``jackknife`` values."""
    v = np.sort(np.asarray(values, dtype=np.float64))
    b = v.size
    below = np.count_nonzero(v < point) + 0.5 * np.count_nonzero(v == point)
    prop = min(max(below / b, 1.0 / (b + 1)), b / (b + 1.0))
    z0 = _NORMAL.inv_cdf(prop)
    jk = np.asarray(jackknife, dtype=np.float64)
    accel = 0.0
    if jk.size >= 2:
        dev = jk.mean() - jk
        denom = float((dev**2).sum()) ** 1.5
        if denom > 0:
            accel = float((dev**3).sum()) / (6.0 * denom)
    tail = (1.0 - confidence) / 2.0
    out = []
    for q in (tail, 1.0 - tail):
        zq = _NORMAL.inv_cdf(q)
        shifted = z0 + (z0 + zq) / max(1.0 - accel * (z0 + zq), 1e-12)
        out.append(float(np.quantile(v, _NORMAL.cdf(shifted))))
    return (out[0], out[1])


def cluster_t_interval(point: float, jackknife: ArrayLike, *, confidence: float) -> Interval | None:
    """``point ± t(G-1) * SE_jackknife`` over ``G`` clusters; None with fewer than 2 clusters."""
    jk = np.asarray(jackknife, dtype=np.float64)
    g = jk.size
    if g < 2:
        return None
    from scipy import stats as sps  # only when clusters are resampled (a slow import)

    se = math.sqrt((g - 1) / g * float(((jk - jk.mean()) ** 2).sum()))
    t = float(sps.t.ppf(0.5 + confidence / 2, g - 1))
    return (point - t * se, point + t * se)


def _union(a: Interval, b: Interval | None) -> Interval:
    return a if b is None else (min(a[0], b[0]), max(a[1], b[1]))


def honest_interval(
    point: float,
    values: ArrayLike,
    defined: ArrayLike,
    jackknife: ArrayLike,
    jackknife_defined: ArrayLike,
    *,
    confidence: float,
    clustered: bool,
    floor: Interval | None,
    bounds: Interval = (-1.0, 1.0),
    max_undefined_fraction: float = 0.5,
) -> tuple[Interval | Undefined, int, str]:
    """``(ci, n_dropped, method)``: BCa (and cluster t) united with the score floor.

    The interval is :class:`Undefined` when more than ``max_undefined_fraction`` of the
    resamples are undefined. It is clipped to the statistic's ``bounds``.
    """
    vals = np.asarray(values, dtype=np.float64)
    ok = np.asarray(defined, dtype=bool)
    total = int(ok.size)
    dropped = total - int(ok.sum())
    if dropped == total:
        return Undefined(f"all {total} bootstrap resamples are undefined"), dropped, "bca"
    if dropped > max_undefined_fraction * total:
        reason = (
            f"{dropped} of {total} bootstrap resamples are undefined "
            f"(more than {max_undefined_fraction:.0%})"
        )
        return Undefined(reason), dropped, "bca"
    jk = np.asarray(jackknife, dtype=np.float64)[np.asarray(jackknife_defined, dtype=bool)]
    if clustered and jk.size < 2:
        # every resample of one case is that case again: no interval, and no item-level
        # stand-in (its items are not independent)
        g = int(np.asarray(jackknife).size)
        reason = (
            f"only {g} case(s) to resample ({jk.size} with a defined leave-one-case-out value):"
            " a case-clustered interval needs at least 2, and the items of one case are not "
            "independent, so no item-level interval stands in"
        )
        return Undefined(reason), dropped, "cluster bca"
    ci = bca_interval(point, vals[ok], jk, confidence=confidence)
    method = "bca"
    if clustered:
        ci = _union(ci, cluster_t_interval(point, jk, confidence=confidence))
        method = "cluster bca ∪ cluster jackknife t(G-1)"
    if floor is not None:
        ci = _union(ci, floor)
        method += " ∪ Wilson score floor"
    lo, hi = max(bounds[0], ci[0]), min(bounds[1], ci[1])
    return (float(lo), float(hi)), dropped, method
