"""Bootstrap building blocks: the index matrix, cluster numbering, percentile intervals.

:class:`BootstrapResult` is what every bootstrap function returns. The ``(B, n_units)`` index
matrix comes from one ``numpy.random.default_rng(seed)`` generator. It is drawn in blocks of
consecutive rows (:func:`index_blocks`) so that a large matrix never sits in memory whole and
each block stays cache-sized; :func:`bootstrap_indices` stacks the very same blocks, so it
returns exactly the matrix the bootstrap functions use. :func:`unit_weights_sum` turns the
blocks into per-resample sums of additive per-unit statistics with one ``np.bincount`` and one
matrix product per block.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibrant.agreement.ci import honest_interval
from calibrant.agreement.undefined import Undefined
from calibrant.contracts.reports.stats import Estimate

__all__ = [
    "BootstrapResult",
    "IntervalMethod",
    "bootstrap_indices",
    "check_options",
    "cluster_index",
    "cluster_stats",
    "finish_result",
    "index_blocks",
    "percentile_interval",
    "row_blocks",
    "undefined_result",
    "unit_weights_sum",
]

Float64Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

IntervalMethod = Literal["bca", "percentile"]

_BLOCK_ELEMENTS = 1 << 17  # indices per block of rows (~1 MiB of int64): cache-friendly


@dataclass(frozen=True, slots=True)
class BootstrapResult:
    """A point estimate with its bootstrap interval (``method`` names how it was made).

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

    def as_estimate(self) -> Estimate:
        """The report part: undefined values become null, each with its reason beside it."""
        est, ci = self.estimate, self.ci
        return Estimate(
            statistic=self.statistic,
            estimate=None if isinstance(est, Undefined) else est,
            estimate_undefined_reason=est.reason if isinstance(est, Undefined) else None,
            ci=None if isinstance(ci, Undefined) else [ci[0], ci[1]],
            ci_undefined_reason=ci.reason if isinstance(ci, Undefined) else None,
            confidence=self.confidence,
            n=self.n,
            n_clusters=self.n_clusters,
            n_resamples=self.n_resamples,
            n_dropped=self.n_dropped,
            seed=self.seed,
            method=self.method,
        )


def check_options(
    *, n_resamples: int, seed: int, confidence: float, max_undefined_fraction: float
) -> None:
    """Validate the common bootstrap options; raises ``TypeError`` / ``ValueError``."""
    max_undefined = max_undefined_fraction
    if not isinstance(seed, Integral) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if not isinstance(n_resamples, Integral) or isinstance(n_resamples, bool) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive int, got {n_resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if not 0.0 <= max_undefined <= 1.0:
        raise ValueError(f"max_undefined_fraction must be in [0, 1], got {max_undefined!r}")


def index_blocks(n_units: int, *, n_resamples: int, seed: int) -> Iterator[NDArray[np.int64]]:
    """Yield the bootstrap index matrix as consecutive blocks of rows (resamples).

    All blocks come from one ``numpy.random.default_rng(seed)``; row ``b`` holds the
    ``n_units`` unit indices, drawn with replacement, of resample ``b``.
    """
    if n_units < 1:
        raise ValueError("cannot resample from zero units")
    rng = np.random.default_rng(seed)
    rows = max(1, _BLOCK_ELEMENTS // n_units)
    for start in range(0, n_resamples, rows):
        size = (min(rows, n_resamples - start), n_units)
        yield rng.integers(0, n_units, size=size, dtype=np.int64)


def bootstrap_indices(n_units: int, *, n_resamples: int, seed: int) -> NDArray[np.int64]:
    """The whole ``(n_resamples, n_units)`` index matrix that the bootstrap uses for ``seed``.

    Stacks :func:`index_blocks`, so row ``b`` is exactly resample ``b`` of
    :func:`~calibrant.agreement.bootstrap_pairwise` (and the other bootstrap functions) called
    with the same seed and unit count (items, or clusters when ``clusters=`` is given). It is
    also what ``numpy.random.default_rng(seed).integers(0, n_units, size=(n_resamples,
    n_units))`` draws in one go: int64 draws do not depend on how the rows are split.
    """
    blocks = list(index_blocks(n_units, n_resamples=n_resamples, seed=seed))
    if not blocks:
        return np.empty((0, n_units), dtype=np.int64)
    return np.concatenate(blocks, axis=0)


def row_blocks(indices: NDArray[np.int64]) -> Iterator[NDArray[np.int64]]:
    """Split a given index matrix into the same cache-sized row blocks as :func:`index_blocks`."""
    rows = max(1, _BLOCK_ELEMENTS // max(1, indices.shape[1]))
    for start in range(0, indices.shape[0], rows):
        yield indices[start : start + rows]


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


def unit_weights_sum(blocks: Iterable[NDArray[np.int64]], unit_stats: Float64Array) -> Float64Array:
    """Stack of ``W @ S`` over index blocks: ``W[b, u]`` = times unit ``u`` is in resample ``b``.

    ``unit_stats`` is ``(n_units, d)``; the result is ``(B, d)``, one row per resample.
    """
    n_units, width = unit_stats.shape
    parts: list[Float64Array] = []
    for block in blocks:
        rows = block.shape[0]
        flat = block + (np.arange(rows, dtype=np.int64) * n_units)[:, None]
        weights = np.bincount(flat.ravel(), minlength=rows * n_units).reshape(rows, n_units)
        parts.append(weights.astype(np.float64) @ unit_stats)
    if not parts:
        return np.empty((0, width), dtype=np.float64)
    return np.concatenate(parts, axis=0)


def cluster_stats(
    unit_stats: Float64Array, *, clusters: ArrayLike | None, keep: BoolArray
) -> tuple[Float64Array, int | None]:
    """Sum per-unit statistics within clusters; returns ``(stats, n_clusters)``.

    ``clusters`` has one id per original item and ``keep`` marks the items that are units (the
    rows of ``unit_stats``). Without clusters the statistics come back unchanged with ``None``.
    """
    if clusters is None:
        return unit_stats, None
    cl = np.asarray(clusters, dtype=object)
    if cl.shape != keep.shape:
        raise ValueError(f"clusters has {cl.size} entries, expected one per item ({keep.size})")
    ids, n_clusters = cluster_index(cl[keep])
    summed = np.zeros((n_clusters, unit_stats.shape[1]), dtype=np.float64)
    np.add.at(summed, ids, unit_stats)
    return summed, n_clusters


def finish_result(
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
    method: IntervalMethod = "percentile",
    jackknife: tuple[Float64Array, BoolArray] | None = None,
    floor: tuple[float, float] | None = None,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> BootstrapResult:
    """Assemble a :class:`BootstrapResult` from the point estimate and resample values.

    ``method="bca"`` needs the ``jackknife`` values (leave one unit out) and uses
    :func:`~calibrant.agreement.ci.honest_interval` (BCa, cluster t, score ``floor``);
    ``"percentile"`` is the plain percentile interval.
    """
    used = "percentile"
    if method == "bca" and jackknife is not None and not isinstance(estimate, Undefined):
        ci, dropped, used = honest_interval(
            estimate,
            values,
            defined,
            jackknife[0],
            jackknife[1],
            confidence=confidence,
            clustered=n_clusters is not None,
            floor=floor,
            bounds=bounds,
            max_undefined_fraction=max_undefined_fraction,
        )
    else:
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
        method=used,
    )


def undefined_result(
    statistic: str, reason: str, *, n_resamples: int, seed: int, confidence: float, clustered: bool
) -> BootstrapResult:
    """Result for data with no unit to resample: estimate and interval both undefined."""
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
