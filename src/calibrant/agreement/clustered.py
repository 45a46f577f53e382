"""Proportions whose trials come in cases: the unit is the case.

Five trials of one case are not five independent draws: a case the agent cannot handle fails
all five. A proportion over trials grouped in cases (the trials' success rate, a judge's
sensitivity over the items of calibration cases) is the ratio ``sum(successes) /
sum(trials)`` over the ``G`` cases, and its 95% interval resamples cases, with the method of
:mod:`calibrant.agreement.ci`:

* the **BCa** bootstrap over cases (acceleration from the leave-one-case-out jackknife),
* united with the **cluster jackknife t interval**, ``ratio ± t(G-1) * SE``, on the proportion
  scale and on the logit scale (``logit(ratio) ± t(G-1) * SE / (ratio (1 - ratio))``, mapped
  back): near 0 or 1 the sampling distribution of the ratio is skewed, and the logit interval
  reaches further toward 1/2, where the misses are,
* united with a **Wilson score floor at the effective sample size** ``trials / deff``, where the
  design effect ``deff`` is the between-case variance of the ratio over its binomial variance
  (at least 1). When every case gave the same all-or-nothing answer (every trial succeeded, or
  none did) the spread between cases cannot be measured and ``deff`` is the mean number of
  trials per case: the floor counts each case once. This keeps the interval open where every
  resampling interval collapses to a point. The spread is measured only from the cases that
  show the rarer outcome (a failure when most trials succeed): with fewer than
  :data:`MIN_SPREAD_CASES` such cases it cannot be (two cases with one failure each look
  binomial whether the population's failures are spread thin or lumped in a few cases), and
  the floor counts each case once as well.

One case gives the ratio and no interval (an interval needs at least two cases); it never falls
back to an interval over trials. The coverage is measured by
``benchmarks/bench_trials_coverage.py`` (``benchmarks/results/trials_coverage.md``): at least
0.94 at 5, 10, 30 and 100 cases x 5 trials, skewed populations included (mean 0.95 and 0.98,
intra-case correlation up to 0.6), with the misses counted on each side separately.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from .ci import honest_interval, wilson
from .intervals import Figure

__all__ = ["clustered_proportion", "pass_hat_k", "METHOD", "MIN_SPREAD_CASES"]

METHOD = (
    "case bootstrap BCa ∪ cluster jackknife t(G-1), proportion and logit scales ∪ "
    "Wilson floor at trials/deff"
)
MIN_SPREAD_CASES = 5
"""Fewer cases than this showing the rarer outcome: the between-case spread is not measured
and the Wilson floor counts each case once."""


def pass_hat_k(successes: int, trials: int, k: int) -> float | None:
    """The unbiased estimate of the chance that ``k`` fresh trials of a case all succeed, from
    ``successes`` of its ``trials``: ``C(successes, k) / C(trials, k)`` (None when k > trials)."""
    if not 1 <= k <= trials or not 0 <= successes <= trials:
        return None
    return comb(successes, k) / comb(trials, k)


def clustered_proportion(
    successes: Sequence[float],
    trials: Sequence[float],
    *,
    seed: int = 0,
    resamples: int = 2000,
    confidence: float = 0.95,
) -> Figure:
    """``sum(successes) / sum(trials)`` over cases (one entry per case) with a 95% interval that
    resamples cases; ``n`` is the number of trials, ``n_cases`` the number of cases."""
    if len(successes) != len(trials):
        raise ValueError("one success count and one trial count per case")
    pairs = [(float(s), float(t)) for s, t in zip(successes, trials, strict=True) if t > 0]
    g = len(pairs)
    total = sum(t for _, t in pairs)
    n = round(total)
    if g == 0:
        return Figure(None, 0, None, METHOD, "no trials", n_cases=0)
    point = sum(s for s, _ in pairs) / total
    if g == 1:
        return Figure(
            point,
            n,
            None,
            METHOD,
            "no interval: every trial comes from one case (an interval needs at least 2 cases)",
            n_cases=1,
        )
    import numpy as np

    s = np.asarray([p[0] for p in pairs], dtype=np.float64)
    t = np.asarray([p[1] for p in pairs], dtype=np.float64)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, g, size=(resamples, g))
    values = s[idx].sum(axis=1) / t[idx].sum(axis=1)
    jackknife = (s.sum() - s) / (total - t)
    ci, _, _ = honest_interval(
        point,
        values,
        np.ones(resamples, dtype=bool),
        jackknife,
        np.ones(g, dtype=bool),
        confidence=confidence,
        clustered=True,
        floor=_floor(point, s, t, confidence=confidence),
        bounds=(0.0, 1.0),
    )
    assert isinstance(ci, tuple)  # every resample is defined: the interval always is
    logit = _logit_t(point, jackknife, confidence=confidence)
    if logit is not None:
        ci = (min(ci[0], logit[0]), max(ci[1], logit[1]))
    return Figure(point, n, ci, f"{METHOD} (seed={seed})", n_cases=g)


def _floor(point: float, s: object, t: object, *, confidence: float) -> tuple[float, float]:
    """Wilson at the effective sample size ``trials / deff`` (see the module docstring)."""
    import numpy as np

    succ, tri = np.asarray(s, dtype=np.float64), np.asarray(t, dtype=np.float64)
    g, total = succ.size, float(tri.sum())
    binomial = point * (1 - point) / total
    between = g / (g - 1) * float(((succ - point * tri) ** 2).sum()) / total**2
    # cases that show the rarer outcome: only they carry the between-case spread
    showing = min(int(np.count_nonzero(succ > 0)), int(np.count_nonzero(succ < tri)))
    if binomial > 0 and showing >= MIN_SPREAD_CASES:
        deff = max(1.0, between / binomial)
    else:
        deff = total / g  # each case counted once
    effective = total / deff
    return wilson(point * effective, effective, confidence=confidence)


def _logit_t(point: float, jackknife: object, *, confidence: float) -> tuple[float, float] | None:
    """The cluster jackknife t interval on the logit scale (delta method), mapped back; None at
    0 or 1, where the logit is undefined (the Wilson floor covers that case)."""
    import math

    import numpy as np
    from scipy import stats as sps

    if not 0.0 < point < 1.0:
        return None
    jk = np.asarray(jackknife, dtype=np.float64)
    g = jk.size
    se = math.sqrt((g - 1) / g * float(((jk - jk.mean()) ** 2).sum()))
    half = float(sps.t.ppf(0.5 + confidence / 2, g - 1)) * se / (point * (1 - point))
    centre = math.log(point / (1 - point))
    return (1 / (1 + math.exp(-(centre - half))), 1 / (1 + math.exp(-(centre + half))))
