"""Mean pairwise agreement of three or more raters, with one joint bootstrap.

The experts' ceiling must be measured with the judge's own statistic: with three or more
experts it is the mean over expert pairs of that pairwise statistic (e.g. linear-weighted
kappa on an ordinal criterion), not a different many-rater statistic such as nominal Fleiss'
kappa. Every resample draws the same items (or clusters) for all pairs, so the interval
accounts for the pairs sharing their items.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibrant.agreement.bootstrap import table_floor
from calibrant.agreement.encode import MISSING, check_codes
from calibrant.agreement.pairwise import PairwiseStatistic, statistic_from_tables
from calibrant.agreement.resample import (
    BootstrapResult,
    IntervalMethod,
    check_options,
    cluster_stats,
    finish_result,
    index_blocks,
    undefined_result,
    unit_weights_sum,
)
from calibrant.agreement.undefined import Undefined

__all__ = [
    "bootstrap_mean_pairwise",
    "mean_floor",
    "mean_of_defined",
    "pair_onehots",
    "pair_tables",
]

Float64Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.int64]


def mean_of_defined(values: Float64Array, defined: BoolArray) -> tuple[Float64Array, BoolArray]:
    """Mean over the last axis of the defined values; defined where at least one pair is."""
    count = defined.sum(axis=-1)
    total = np.where(defined, values, 0.0).sum(axis=-1)
    ok = count > 0
    return np.where(ok, total / np.where(ok, count, 1), 0.0), ok


def pair_onehots(
    pairs: Sequence[tuple[IntArray, IntArray]], *, n_items: int, k: int
) -> Float64Array:
    """One-hot per item and pair, ``(items, pairs * K*K)``: column ``p*K*K + a*K + b`` is 1 when
    pair ``p`` rated the item ``a`` and ``b``; an item one of the pair's raters left unrated adds
    nothing. Summed over (resampled) items, a row holds every pair's confusion table."""
    kk = k * k
    stats = np.zeros((n_items, len(pairs) * kk), dtype=np.float64)
    for p, (a, b) in enumerate(pairs):
        both = np.flatnonzero((a != MISSING) & (b != MISSING))
        stats[both, p * kk + a[both] * k + b[both]] = 1.0
    return stats


def pair_tables(sums: Float64Array, *, n_pairs: int, k: int) -> IntArray:
    """The ``(..., pairs, K, K)`` confusion tables held in summed one-hot rows."""
    tables: IntArray = np.rint(sums).astype(np.int64).reshape(*sums.shape[:-1], n_pairs, k, k)
    return tables


def mean_floor(floors: Sequence[tuple[float, float] | None]) -> tuple[float, float] | None:
    """The mean of the pairs' score floors; None when there is none or one pair has none."""
    lows = [f[0] for f in floors if f is not None]
    highs = [f[1] for f in floors if f is not None]
    if not floors or len(lows) < len(floors):
        return None
    return float(np.mean(lows)), float(np.mean(highs))


def bootstrap_mean_pairwise(
    data: ArrayLike,
    *,
    k: int,
    seed: int,
    statistic: PairwiseStatistic = "cohen_kappa",
    n_resamples: int = 2000,
    confidence: float = 0.95,
    clusters: ArrayLike | None = None,
    max_undefined_fraction: float = 0.5,
    method: IntervalMethod = "bca",
) -> BootstrapResult:
    """Mean over all rater pairs of a two-rater ``statistic`` for a ``(raters, items)`` code
    matrix, with a joint bootstrap CI over items (or ``clusters`` of items).

    A pair whose statistic is undefined (e.g. both used one label) is left out of the mean and
    the reason names it; the mean is undefined when no pair is defined. ``n`` counts the items
    that at least one pair rated.
    """
    check_options(
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
    )
    matrix = np.vstack([check_codes(row, k=k) for row in np.asarray(data)])
    n_raters = matrix.shape[0]
    pairs = [(a, b) for a in range(n_raters) for b in range(a + 1, n_raters)]
    name = f"mean_pairwise_{statistic}"
    if not pairs:
        return undefined_result(
            name,
            "fewer than two raters: no pair",
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
            clustered=clusters is not None,
        )
    stats = pair_onehots([(matrix[a], matrix[b]) for a, b in pairs], n_items=matrix.shape[1], k=k)
    keep = stats.sum(axis=1) > 0
    n = int(keep.sum())
    if n == 0:
        return undefined_result(
            name,
            "no item was rated by two of the raters",
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
            clustered=clusters is not None,
        )
    units, n_clusters = cluster_stats(stats[keep], clusters=clusters, keep=keep)

    def from_sums(sums: Float64Array) -> tuple[Float64Array, BoolArray]:
        tables = pair_tables(sums, n_pairs=len(pairs), k=k)
        values, defined = statistic_from_tables(tables, statistic=statistic)
        return mean_of_defined(values, defined)

    total = units.sum(axis=0)
    point_tables = pair_tables(total, n_pairs=len(pairs), k=k)
    pair_values, pair_defined = statistic_from_tables(point_tables, statistic=statistic)
    estimate: float | Undefined
    if not pair_defined.any():
        estimate = Undefined(f"{statistic} is undefined for every pair of raters")
    else:
        estimate = float(pair_values[pair_defined].mean())
    blocks = index_blocks(units.shape[0], n_resamples=n_resamples, seed=seed)
    values, defined = from_sums(unit_weights_sum(blocks, units))
    jackknife = from_sums(total[None, :] - units)
    floor = mean_floor(
        [
            table_floor(point_tables[p], statistic=statistic, confidence=confidence)
            for p in range(len(pairs))
            if pair_defined[p]
        ]
    )
    return finish_result(
        name,
        estimate,
        values,
        defined,
        n=n,
        n_clusters=n_clusters,
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
        method=method,
        jackknife=jackknife,
        floor=floor,
    )
