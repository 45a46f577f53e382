"""Vectorized percentile-bootstrap confidence intervals for the agreement statistics.

One ``(n_resamples, n_units)`` index matrix is drawn with ``numpy.random.default_rng(seed)``
(:func:`bootstrap_indices`); a unit is an item, or a cluster of items (e.g. all transcripts of
one case) when ``clusters=`` is given. No Python loop runs over resamples:

* two raters, item level: all confusion tables come from a single ``np.bincount`` over the
  combined index ``b*K*K + x*K + y``;
* clusters, Fleiss and Krippendorff: each unit's additive sufficient statistics are summed per
  resample with one matrix product ``W @ S``, where ``W[b, u]`` counts how often unit ``u`` was
  drawn in resample ``b`` (itself one ``np.bincount``).

Resamples on which the statistic is undefined are dropped and counted in ``n_dropped``; when
more than ``max_undefined_fraction`` of them are undefined, the interval is :class:`Undefined`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibrant.agreement.encode import MISSING, check_codes
from calibrant.agreement.multirater import (
    AlphaLevel,
    category_counts,
    fleiss_from_sums,
    fleiss_unit_stats,
    krippendorff_from_sums,
    krippendorff_unit_stats,
)
from calibrant.agreement.pairwise import PairwiseStatistic, statistic_from_tables, undefined_reason
from calibrant.agreement.undefined import Undefined

__all__ = [
    "BootstrapResult",
    "bootstrap_fleiss",
    "bootstrap_indices",
    "bootstrap_krippendorff",
    "bootstrap_pairwise",
    "cluster_index",
    "percentile_interval",
]

Float64Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
SumsStatistic = Callable[[Float64Array], tuple[Float64Array, BoolArray]]

_BLOCK = 256  # resamples per block when forming the W @ S products (bounds memory)


@dataclass(frozen=True, slots=True)
class BootstrapResult:
    """A point estimate with its percentile bootstrap interval.

    ``n`` is the number of items used (for two raters: items rated by both); ``n_clusters`` the
    number of resampled clusters, or ``None`` for an item-level bootstrap. ``n_dropped`` counts
    resamples on which the statistic was undefined (they are left out of the percentiles).
    """

    statistic: str
    estimate: float | Undefined
    ci: tuple[float, float] | Undefined
    confidence: float
    n: int
    n_clusters: int | None
    n_resamples: int
    n_dropped: int
    seed: int
    method: str = "percentile"

    @property
    def width(self) -> float | Undefined:
        """Width ``hi - lo`` of the interval, or the interval's :class:`Undefined`."""
        if isinstance(self.ci, Undefined):
            return self.ci
        return self.ci[1] - self.ci[0]

    def to_dict(self) -> dict[str, object]:
        """Plain-Python (JSON-ready) view; undefined values become ``None`` plus a reason."""
        est, ci = self.estimate, self.ci
        return {
            "statistic": self.statistic,
            "estimate": None if isinstance(est, Undefined) else est,
            "estimate_undefined_reason": est.reason if isinstance(est, Undefined) else None,
            "ci": None if isinstance(ci, Undefined) else [ci[0], ci[1]],
            "ci_undefined_reason": ci.reason if isinstance(ci, Undefined) else None,
            "confidence": self.confidence,
            "n": self.n,
            "n_clusters": self.n_clusters,
            "n_resamples": self.n_resamples,
            "n_dropped": self.n_dropped,
            "seed": self.seed,
            "method": self.method,
        }


def _check_options(n_resamples: int, seed: int, confidence: float, max_undefined: float) -> None:
    if not isinstance(seed, Integral) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if not isinstance(n_resamples, Integral) or isinstance(n_resamples, bool) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive int, got {n_resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if not 0.0 <= max_undefined <= 1.0:
        raise ValueError(f"max_undefined_fraction must be in [0, 1], got {max_undefined!r}")


def bootstrap_indices(n_units: int, *, n_resamples: int, seed: int) -> NDArray[np.int64]:
    """The ``(n_resamples, n_units)`` matrix of unit indices drawn with replacement.

    Exactly what the bootstrap functions draw internally for the same ``seed``: rows are
    resamples, ``numpy.random.default_rng(seed).integers(0, n_units, size=(B, n_units))``.
    """
    if n_units < 1:
        raise ValueError("cannot resample from zero units")
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_units, size=(n_resamples, n_units), dtype=np.int64)


def cluster_index(clusters: Sequence[Hashable] | ArrayLike) -> tuple[NDArray[np.int64], int]:
    """Number clusters ``0..G-1`` in order of first appearance; returns ``(ids, G)``."""
    seen: dict[Hashable, int] = {}
    ids = [seen.setdefault(c, len(seen)) for c in np.asarray(clusters, dtype=object).tolist()]
    return np.asarray(ids, dtype=np.int64), len(seen)


def percentile_interval(
    values: ArrayLike,
    defined: ArrayLike,
    *,
    confidence: float = 0.95,
    max_undefined_fraction: float = 0.5,
) -> tuple[tuple[float, float] | Undefined, int]:
    """Percentile interval of the defined resample values; returns ``(ci, n_dropped)``.

    The interval is :class:`Undefined` when more than ``max_undefined_fraction`` of the
    resamples are undefined (or none is defined).
    """
    vals = np.asarray(values, dtype=np.float64)
    ok = np.asarray(defined, dtype=bool)
    total = int(ok.size)
    dropped = total - int(ok.sum())
    if dropped == total:
        return Undefined(f"all {total} bootstrap resamples are undefined"), dropped
    if dropped > max_undefined_fraction * total:
        return (
            Undefined(
                f"{dropped} of {total} bootstrap resamples are undefined "
                f"(more than {max_undefined_fraction:.0%})"
            ),
            dropped,
        )
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(vals[ok], [tail, 1.0 - tail])
    return (float(lo), float(hi)), dropped


def _unit_weights_sum(indices: NDArray[np.int64], unit_stats: Float64Array) -> Float64Array:
    """``W @ S`` with ``W[b, u]`` = times unit ``u`` appears in row ``b`` of ``indices``."""
    n_res, _ = indices.shape
    n_units = unit_stats.shape[0]
    out = np.empty((n_res, unit_stats.shape[1]), dtype=np.float64)
    for start in range(0, n_res, _BLOCK):  # blocks of resamples, for memory only
        block = indices[start : start + _BLOCK]
        rows = block.shape[0]
        flat = block + (np.arange(rows, dtype=np.int64) * n_units)[:, None]
        weights = np.bincount(flat.ravel(), minlength=rows * n_units).reshape(rows, n_units)
        out[start : start + rows] = weights.astype(np.float64) @ unit_stats
    return out


def _cluster_stats(
    unit_stats: Float64Array, clusters: ArrayLike | None, keep: BoolArray
) -> tuple[Float64Array, int | None]:
    if clusters is None:
        return unit_stats, None
    cl = np.asarray(clusters, dtype=object)
    if cl.shape != keep.shape:
        raise ValueError(f"clusters has {cl.size} entries, expected one per item ({keep.size})")
    ids, n_clusters = cluster_index(cl[keep])
    summed = np.zeros((n_clusters, unit_stats.shape[1]), dtype=np.float64)
    np.add.at(summed, ids, unit_stats)
    return summed, n_clusters


def _finish(
    statistic: str,
    estimate: float | Undefined,
    values: Float64Array,
    defined: BoolArray,
    *,
    n: int,
    n_clusters: int | None,
    n_resamples: int,
    seed: int,
    confidence: float,
    max_undefined_fraction: float,
) -> BootstrapResult:
    ci, dropped = percentile_interval(
        values, defined, confidence=confidence, max_undefined_fraction=max_undefined_fraction
    )
    if isinstance(estimate, Undefined):
        ci = Undefined(f"point estimate is undefined: {estimate.reason}")
    return BootstrapResult(
        statistic=statistic,
        estimate=estimate,
        ci=ci,
        confidence=float(confidence),
        n=n,
        n_clusters=n_clusters,
        n_resamples=int(n_resamples),
        n_dropped=dropped,
        seed=int(seed),
    )


def _no_units(
    statistic: str, reason: str, *, n_resamples: int, seed: int, confidence: float, clustered: bool
) -> BootstrapResult:
    return BootstrapResult(
        statistic=statistic,
        estimate=Undefined(reason),
        ci=Undefined(f"point estimate is undefined: {reason}"),
        confidence=float(confidence),
        n=0,
        n_clusters=0 if clustered else None,
        n_resamples=int(n_resamples),
        n_dropped=int(n_resamples),
        seed=int(seed),
    )


def bootstrap_pairwise(
    x: ArrayLike,
    y: ArrayLike,
    *,
    k: int,
    seed: int,
    statistic: PairwiseStatistic = "cohen_kappa",
    n_resamples: int = 2000,
    confidence: float = 0.95,
    clusters: ArrayLike | None = None,
    max_undefined_fraction: float = 0.5,
) -> BootstrapResult:
    """Two-rater statistic with a percentile bootstrap CI over items (or clusters of items).

    Only items rated by both raters are used (their count is ``n``). ``statistic`` is one of
    ``"percent_agreement"``, ``"cohen_kappa"``, ``"weighted_kappa_linear"``,
    ``"weighted_kappa_quadratic"``, ``"gwet_ac1"``. ``clusters`` gives one cluster id per item
    (same length as ``x``); whole clusters are then resampled with replacement.
    """
    _check_options(n_resamples, seed, confidence, max_undefined_fraction)
    a = check_codes(x, k=k)
    b = check_codes(y, k=k)
    if a.shape != b.shape:
        raise ValueError(f"the two raters' arrays differ in length: {a.size} vs {b.size}")
    keep = (a != MISSING) & (b != MISSING)
    codes = a[keep] * k + b[keep]
    n = int(codes.size)
    if n == 0:
        reason = undefined_reason(np.zeros((k, k), dtype=np.int64), statistic=statistic)
        return _no_units(
            statistic,
            reason,
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
            clustered=clusters is not None,
        )
    table = np.bincount(codes, minlength=k * k).reshape(k, k)
    point, ok = statistic_from_tables(table, statistic=statistic)
    estimate: float | Undefined = (
        float(point) if bool(ok) else Undefined(undefined_reason(table, statistic=statistic))
    )
    n_clusters: int | None = None
    if clusters is None:
        idx = bootstrap_indices(n, n_resamples=n_resamples, seed=seed)
        flat = codes[idx]
        flat += (np.arange(n_resamples, dtype=np.int64) * (k * k))[:, None]
        tables = np.bincount(flat.ravel(), minlength=n_resamples * k * k)
        tables = tables.reshape(n_resamples, k, k)
    else:
        onehot = np.zeros((n, k * k), dtype=np.float64)
        onehot[np.arange(n), codes] = 1.0
        per_cluster, n_clusters = _cluster_stats(onehot, clusters, keep)
        assert n_clusters is not None
        idx = bootstrap_indices(n_clusters, n_resamples=n_resamples, seed=seed)
        tables = np.rint(_unit_weights_sum(idx, per_cluster)).astype(np.int64)
        tables = tables.reshape(n_resamples, k, k)
    values, defined = statistic_from_tables(tables, statistic=statistic)
    return _finish(
        statistic,
        estimate,
        values,
        defined,
        n=n,
        n_clusters=n_clusters,
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
    )


def _bootstrap_units(
    statistic: str,
    unit_stats: Float64Array,
    from_sums: SumsStatistic,
    reasons: tuple[str, str],
    *,
    keep: BoolArray,
    clusters: ArrayLike | None,
    n_resamples: int,
    seed: int,
    confidence: float,
    max_undefined_fraction: float,
) -> BootstrapResult:
    n = int(unit_stats.shape[0])
    if n == 0:
        return _no_units(
            statistic,
            reasons[0],
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
            clustered=clusters is not None,
        )
    point, ok = from_sums(unit_stats.sum(axis=0))
    estimate: float | Undefined = float(point) if bool(ok) else Undefined(reasons[1])
    stats, n_clusters = _cluster_stats(unit_stats, clusters, keep)
    idx = bootstrap_indices(stats.shape[0], n_resamples=n_resamples, seed=seed)
    values, defined = from_sums(_unit_weights_sum(idx, stats))
    return _finish(
        statistic,
        estimate,
        values,
        defined,
        n=n,
        n_clusters=n_clusters,
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
    )


def bootstrap_fleiss(
    data: ArrayLike,
    *,
    k: int,
    seed: int,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    clusters: ArrayLike | None = None,
    max_undefined_fraction: float = 0.5,
) -> BootstrapResult:
    """Fleiss' kappa of a ``(raters, items)`` code matrix with a percentile bootstrap CI.

    Items with at least two ratings are the resampled units (``n``); ``clusters`` gives one
    cluster id per item (column) to resample whole clusters instead.
    """
    _check_options(n_resamples, seed, confidence, max_undefined_fraction)
    counts = category_counts(data, k=k)
    keep = counts.sum(axis=1) >= 2
    return _bootstrap_units(
        "fleiss_kappa",
        fleiss_unit_stats(counts[keep]),
        fleiss_from_sums,
        (
            "no item has 2 or more ratings",
            "expected agreement P_e = 1: every rating is in the same category",
        ),
        keep=keep,
        clusters=clusters,
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
    )


def bootstrap_krippendorff(
    data: ArrayLike,
    *,
    k: int,
    seed: int,
    level: AlphaLevel = "nominal",
    n_resamples: int = 2000,
    confidence: float = 0.95,
    clusters: ArrayLike | None = None,
    max_undefined_fraction: float = 0.5,
) -> BootstrapResult:
    """Krippendorff's alpha of a ``(raters, items)`` code matrix with a bootstrap CI over items.

    Items with at least two ratings (pairable values) are the resampled units (``n``). This is
    a plain item-level (or cluster-level) bootstrap, not Krippendorff's own resampling of
    coincidences.
    """
    _check_options(n_resamples, seed, confidence, max_undefined_fraction)
    counts = category_counts(data, k=k)
    keep = counts.sum(axis=1) >= 2

    def from_sums(sums: Float64Array) -> tuple[Float64Array, BoolArray]:
        return krippendorff_from_sums(sums, k=k, level=level)

    return _bootstrap_units(
        f"krippendorff_alpha_{level}",
        krippendorff_unit_stats(counts[keep]),
        from_sums,
        (
            "no pairable values: no item has 2 or more ratings",
            "expected disagreement D_e = 0: all pairable values are in one category",
        ),
        keep=keep,
        clusters=clusters,
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
    )
