"""Vectorized percentile-bootstrap confidence intervals for the agreement statistics.

One ``(n_resamples, n_units)`` index matrix is drawn with ``numpy.random.default_rng(seed)``
(:func:`bootstrap_indices` returns it whole); a unit is an item, or a cluster of items (e.g.
all transcripts of one case) when ``clusters=`` is given. Nothing loops over resamples in
Python; the matrix is processed in blocks of consecutive rows of about 2**17 indices each (one
block for small data), which keeps memory flat and the working set in cache:

* two raters, item level: a block's confusion tables come from a single ``np.bincount`` over
  the combined index ``b*K*K + x*K + y``;
* clusters, Fleiss and Krippendorff: each unit's additive sufficient statistics are summed per
  resample with one matrix product ``W @ S``, where ``W[b, u]`` counts how often unit ``u`` was
  drawn in resample ``b`` (itself one ``np.bincount``).

Resamples on which the statistic is undefined are dropped and counted in ``n_dropped``; when
more than ``max_undefined_fraction`` of them are undefined, the interval is :class:`Undefined`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibrant.agreement.ci import score_floor, z_value
from calibrant.agreement.encode import MISSING, check_codes
from calibrant.agreement.multirater import (
    AlphaLevel,
    category_counts,
    fleiss_from_sums,
    fleiss_unit_stats,
    krippendorff_from_sums,
    krippendorff_unit_stats,
)
from calibrant.agreement.pairwise import (
    PairwiseStatistic,
    disagreement_parts,
    statistic_from_tables,
    undefined_reason,
)
from calibrant.agreement.resample import (
    BootstrapResult,
    IntervalMethod,
    check_options,
    cluster_index,
    cluster_stats,
    finish_result,
    index_blocks,
    row_blocks,
    undefined_result,
    unit_weights_sum,
)
from calibrant.agreement.undefined import Undefined

__all__ = [
    "bootstrap_fleiss",
    "jackknife_tables",
    "table_floor",
    "bootstrap_krippendorff",
    "bootstrap_pairwise",
    "resample_tables",
]

Float64Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
SumsStatistic = Callable[[Float64Array], tuple[Float64Array, BoolArray]]


def _paired_codes(
    x: ArrayLike, y: ArrayLike, *, k: int, clusters: ArrayLike | None
) -> tuple[NDArray[np.int64], NDArray[np.int64] | None, int | None]:
    """Combined codes ``x*K + y`` of the items rated by both, and their cluster ids if any."""
    a = check_codes(x, k=k)
    b = check_codes(y, k=k)
    if a.shape != b.shape:
        raise ValueError(f"the two raters' arrays differ in length: {a.size} vs {b.size}")
    keep = (a != MISSING) & (b != MISSING)
    codes = a[keep] * k + b[keep]
    if clusters is None:
        return codes, None, None
    cl = np.asarray(clusters, dtype=object)
    if cl.shape != keep.shape:
        raise ValueError(f"clusters has {cl.size} entries, expected one per item ({keep.size})")
    ids, n_clusters = cluster_index(cl[keep])
    return codes, ids, n_clusters


def _tables_from_blocks(
    codes: NDArray[np.int64],
    blocks: Iterable[NDArray[np.int64]],
    *,
    k: int,
    cluster_ids: NDArray[np.int64] | None,
    n_clusters: int | None,
) -> NDArray[np.int64]:
    """All resampled confusion tables ``(B, K, K)`` from blocks of the index matrix."""
    kk = k * k
    if cluster_ids is None or n_clusters is None:
        parts = []
        for block in blocks:
            rows = block.shape[0]
            flat = codes[block]  # combined code x*K + y of every drawn item
            flat += (np.arange(rows, dtype=np.int64) * kk)[:, None]  # + b*K*K
            parts.append(np.bincount(flat.ravel(), minlength=rows * kk).reshape(rows, k, k))
        if not parts:
            return np.zeros((0, k, k), dtype=np.int64)
        return np.concatenate(parts, axis=0)
    per_cluster = np.bincount(cluster_ids * kk + codes, minlength=n_clusters * kk)
    per_cluster_f = per_cluster.reshape(n_clusters, kk).astype(np.float64)
    summed = unit_weights_sum(blocks, per_cluster_f)
    out: NDArray[np.int64] = np.rint(summed).astype(np.int64).reshape(-1, k, k)
    return out


def jackknife_tables(
    codes: NDArray[np.int64],
    *,
    k: int,
    cluster_ids: NDArray[np.int64] | None,
    n_clusters: int | None,
) -> NDArray[np.int64]:
    """Leave-one-unit-out confusion tables ``(units, K, K)``: the whole table minus one item
    (or minus one cluster's items)."""
    kk = k * k
    total = np.bincount(codes, minlength=kk)
    if cluster_ids is None or n_clusters is None:
        per_unit = np.zeros((codes.size, kk), dtype=np.int64)
        per_unit[np.arange(codes.size), codes] = 1
    else:
        per_unit = np.bincount(cluster_ids * kk + codes, minlength=n_clusters * kk).reshape(
            n_clusters, kk
        )
    out: NDArray[np.int64] = (total[None, :] - per_unit).reshape(-1, k, k)
    return out


def table_floor(
    table: NDArray[np.int64], *, statistic: PairwiseStatistic, confidence: float
) -> tuple[float, float] | None:
    """The Wilson score floor of one table's interval (see :mod:`calibrant.agreement.ci`)."""
    parts = disagreement_parts(table, statistic=statistic)
    if parts is None:
        return None
    n = float(table.sum())
    disagreeing = n - float(np.trace(table))
    weight = parts[0] * n / disagreeing if disagreeing > 0 else 1.0
    z = z_value(confidence)
    shrunk = disagreement_parts(table, statistic=statistic, prior=z * z)
    return score_floor(
        disagreeing / n,
        parts[1],
        n,
        confidence=confidence,
        expected_high=None if shrunk is None else shrunk[1],
        weight=weight,
    )


def resample_tables(
    x: ArrayLike,
    y: ArrayLike,
    *,
    k: int,
    indices: ArrayLike,
    clusters: ArrayLike | None = None,
) -> NDArray[np.int64]:
    """All resampled K x K confusion tables, shape ``(B, K, K)``, for a given index matrix.

    Without ``clusters``, ``indices`` (B, n) indexes the n items rated by both raters (in their
    original order). With ``clusters``, ``indices`` (B, G) indexes clusters numbered by
    :func:`cluster_index` over those items, and each resample takes all items of the drawn
    clusters. :func:`bootstrap_pairwise` uses exactly this with :func:`bootstrap_indices`.
    """
    codes, ids, n_clusters = _paired_codes(x, y, k=k, clusters=clusters)
    idx = np.asarray(indices, dtype=np.int64)
    units = codes.size if n_clusters is None else n_clusters
    if idx.ndim != 2 or (idx.size and (idx.min() < 0 or idx.max() >= units)):
        raise ValueError(f"indices must be a 2-D array of unit indices in 0..{units - 1}")
    return _tables_from_blocks(codes, row_blocks(idx), k=k, cluster_ids=ids, n_clusters=n_clusters)


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
    method: IntervalMethod = "bca",
) -> BootstrapResult:
    """Two-rater statistic with a bootstrap CI over items (or clusters of items).

    Only items rated by both raters are used (their count is ``n``). ``statistic`` is one of
    ``"percent_agreement"``, ``"cohen_kappa"``, ``"weighted_kappa_linear"``,
    ``"weighted_kappa_quadratic"``, ``"gwet_ac1"``. ``clusters`` gives one cluster id per item
    (same length as ``x``); whole clusters are then resampled with replacement.
    ``method="bca"`` (default) gives the interval of :mod:`calibrant.agreement.ci` (BCa, a
    cluster jackknife t with clusters, united with a Wilson score floor); ``"percentile"`` the
    plain percentile interval.
    """
    check_options(
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
    )
    codes, ids, n_clusters = _paired_codes(x, y, k=k, clusters=clusters)
    n = int(codes.size)
    if n == 0:
        reason = undefined_reason(np.zeros((k, k), dtype=np.int64), statistic=statistic)
        return undefined_result(
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
    units = n if n_clusters is None else n_clusters
    blocks = index_blocks(units, n_resamples=n_resamples, seed=seed)
    tables = _tables_from_blocks(codes, blocks, k=k, cluster_ids=ids, n_clusters=n_clusters)
    values, defined = statistic_from_tables(tables, statistic=statistic)
    jk = statistic_from_tables(
        jackknife_tables(codes, k=k, cluster_ids=ids, n_clusters=n_clusters), statistic=statistic
    )
    return finish_result(
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
        method=method,
        jackknife=jk,
        floor=table_floor(table, statistic=statistic, confidence=confidence),
        bounds=(0.0, 1.0) if statistic == "percent_agreement" else (-1.0, 1.0),
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
    method: IntervalMethod = "bca",
) -> BootstrapResult:
    n = int(unit_stats.shape[0])
    if n == 0:
        return undefined_result(
            statistic,
            reasons[0],
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
            clustered=clusters is not None,
        )
    point, ok = from_sums(unit_stats.sum(axis=0))
    estimate: float | Undefined = float(point) if bool(ok) else Undefined(reasons[1])
    stats, n_clusters = cluster_stats(unit_stats, clusters=clusters, keep=keep)
    blocks = index_blocks(stats.shape[0], n_resamples=n_resamples, seed=seed)
    values, defined = from_sums(unit_weights_sum(blocks, stats))
    jackknife = from_sums(stats.sum(axis=0)[None, :] - stats)
    return finish_result(
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
        method=method,
        jackknife=jackknife,
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
    method: IntervalMethod = "bca",
) -> BootstrapResult:
    """Fleiss' kappa of a ``(raters, items)`` code matrix with a bootstrap CI (``method``).

    Items with at least two ratings are the resampled units (``n``); ``clusters`` gives one
    cluster id per item (column) to resample whole clusters instead.
    """
    check_options(
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
    )
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
        method=method,
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
    method: IntervalMethod = "bca",
) -> BootstrapResult:
    """Krippendorff's alpha of a ``(raters, items)`` code matrix with a bootstrap CI over items.

    Items with at least two ratings (pairable values) are the resampled units (``n``). This is
    a plain item-level (or cluster-level) bootstrap, not Krippendorff's own resampling of
    coincidences.
    """
    check_options(
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
    )
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
        method=method,
    )
