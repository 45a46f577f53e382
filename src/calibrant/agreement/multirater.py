"""Agreement among many raters: Fleiss' kappa and Krippendorff's alpha (nominal / ordinal).

Input is a reliability-data matrix of integer codes, shape ``(raters, items)``, with ``-1``
for a missing rating. Both statistics are written as sums of per-item "sufficient statistics"
(:func:`fleiss_unit_stats`, :func:`krippendorff_unit_stats`) followed by a function of those
sums (:func:`fleiss_from_sums`, :func:`krippendorff_from_sums`). Because the sums are additive
over items, the bootstrap evaluates all resamples with one matrix product.

Unequal numbers of ratings per item (Fleiss): only items with at least two ratings are used;
each item's observed agreement is
``P_i = sum_k n_ik (n_ik - 1) / (m_i (m_i - 1))`` with ``m_i`` its own number of ratings,
``P_bar`` is the plain mean of ``P_i`` over those items, and the category proportions
``p_k`` are pooled over all their ratings (``sum_i n_ik / sum_i m_i``);
``P_e = sum_k p_k**2``. With the same number of ratings on every item this is exactly
Fleiss (1971) as implemented in ``statsmodels``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibrant.agreement.encode import MISSING, check_codes
from calibrant.agreement.undefined import Undefined

__all__ = [
    "AlphaLevel",
    "category_counts",
    "fleiss_from_sums",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "fleiss_unit_stats",
    "krippendorff_alpha",
    "krippendorff_from_sums",
    "krippendorff_unit_stats",
]

AlphaLevel = Literal["nominal", "ordinal"]
Float64Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def category_counts(data: ArrayLike, *, k: int) -> NDArray[np.int64]:
    """Per-item category counts, shape ``(items, K)``, from a ``(raters, items)`` code matrix."""
    mat = check_codes(data, k=k, ndim=2)
    n_items = mat.shape[1]
    item_index = np.broadcast_to(np.arange(n_items), mat.shape)
    present = mat != MISSING
    flat = item_index[present] * k + mat[present]
    return np.bincount(flat, minlength=n_items * k).reshape(n_items, k)


def _check_counts(counts: ArrayLike) -> NDArray[np.int64]:
    arr = np.asarray(counts)
    if arr.ndim != 2 or arr.shape[1] < 1:
        raise ValueError(f"expected an (items, K) table of counts, got shape {arr.shape}")
    if arr.size and (arr.dtype.kind not in "iuf" or np.any(arr < 0) or np.any(arr != np.rint(arr))):
        raise ValueError("counts must be non-negative whole numbers")
    out: NDArray[np.int64] = np.rint(arr).astype(np.int64)
    return out


# ---------------------------------------------------------------------------------- Fleiss


def fleiss_unit_stats(counts: ArrayLike) -> Float64Array:
    """Per-item sufficient statistics for Fleiss' kappa: columns ``[P_i, 1, n_i1..n_iK]``.

    Only items with at least two ratings are kept (rows for the others are dropped).
    """
    c = _check_counts(counts)
    m = c.sum(axis=1)
    c = c[m >= 2]
    m = m[m >= 2].astype(np.float64)
    p_i = (c * (c - 1)).sum(axis=1) / (m * (m - 1))
    out: Float64Array = np.column_stack([p_i, np.ones(c.shape[0]), c.astype(np.float64)])
    return out


def fleiss_from_sums(sums: ArrayLike) -> tuple[Float64Array, BoolArray]:
    """Fleiss' kappa from (stacks of) summed :func:`fleiss_unit_stats` rows, shape ``(..., 2+K)``.

    Returns ``(values, defined)``; undefined when no item has 2 ratings or when every rating
    falls in one category (P_e = 1).
    """
    s = np.asarray(sums, dtype=np.float64)
    n_units = s[..., 1]
    totals = np.rint(s[..., 2:])
    n_ratings = totals.sum(axis=-1)
    defined = (n_units > 0) & (totals.max(axis=-1, initial=0.0) < n_ratings)
    safe_units = np.where(defined, n_units, 1.0)
    safe_ratings = np.where(defined, n_ratings, 1.0)
    p_bar = s[..., 0] / safe_units
    p_e = ((totals / safe_ratings[..., None]) ** 2).sum(axis=-1)
    values = np.where(defined, (p_bar - p_e) / np.where(defined, 1.0 - p_e, 1.0), 0.0)
    return values.astype(np.float64), np.asarray(defined, dtype=np.bool_)


def _fleiss_reason(stats: Float64Array) -> str:
    if stats.shape[0] == 0:
        return "no item has 2 or more ratings"
    return "expected agreement P_e = 1: every rating is in the same category"


def fleiss_kappa_from_counts(counts: ArrayLike) -> float | Undefined:
    """Fleiss' kappa from an ``(items, K)`` table of category counts.

    Handles unequal numbers of ratings per item as described in the module docstring.
    """
    stats = fleiss_unit_stats(counts)
    values, defined = fleiss_from_sums(stats.sum(axis=0))
    if not bool(defined):
        return Undefined(_fleiss_reason(stats))
    return float(values)


def fleiss_kappa(data: ArrayLike, *, k: int) -> float | Undefined:
    """Fleiss' kappa for a ``(raters, items)`` code matrix (``-1`` = missing).

    Items with fewer than 2 ratings are ignored; items may have different numbers of ratings
    (see the module docstring for how that is handled). Nominal statistic.
    """
    return fleiss_kappa_from_counts(category_counts(data, k=k))


# --------------------------------------------------------------------------- Krippendorff


def krippendorff_unit_stats(counts: ArrayLike) -> Float64Array:
    """Per-item sufficient statistics for alpha: ``[n_u1..n_uK, o_u (K*K, row-major)]``.

    ``o_u = (n_u n_u^T - diag(n_u)) / (m_u - 1)`` is the item's contribution to the
    coincidence matrix. Items with fewer than 2 ratings (no pairable value) are dropped.
    """
    c = _check_counts(counts)
    k = c.shape[1]
    m = c.sum(axis=1)
    c = c[m >= 2].astype(np.float64)
    m = m[m >= 2].astype(np.float64)
    pairs = c[:, :, None] * c[:, None, :] - c[:, :, None] * np.eye(k)[None, :, :]
    coincidence = pairs / (m - 1.0)[:, None, None]
    return np.concatenate([c, coincidence.reshape(c.shape[0], k * k)], axis=1)


def _ordinal_delta2(n_c: Float64Array) -> Float64Array:
    """Squared ordinal distances (..., K, K) from pairable-value marginals ``n_c`` (..., K)."""
    k = n_c.shape[-1]
    i, j = np.indices((k, k))
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    cum = np.cumsum(n_c, axis=-1)
    between = cum[..., hi] - cum[..., lo] + n_c[..., lo]
    result: Float64Array = (between - (n_c[..., i] + n_c[..., j]) / 2.0) ** 2
    return result


def krippendorff_from_sums(
    sums: ArrayLike, *, k: int, level: AlphaLevel = "nominal"
) -> tuple[Float64Array, BoolArray]:
    """Krippendorff's alpha from summed :func:`krippendorff_unit_stats` rows, shape (..., K+K*K).

    alpha = 1 - (n - 1) * sum(o * d2) / sum(n_c n_k d2), where ``o`` is the coincidence matrix,
    ``n_c`` its marginals and ``n`` the number of pairable values. Undefined when there is no
    pairable value or when all pairable values are in one category (D_e = 0).
    """
    s = np.asarray(sums, dtype=np.float64)
    if s.shape[-1] != k + k * k:
        raise ValueError(f"expected {k + k * k} summed statistics, got {s.shape[-1]}")
    n_c = s[..., :k]
    o = s[..., k:].reshape(*s.shape[:-1], k, k)
    n = np.rint(n_c).sum(axis=-1)
    used = (np.rint(n_c) > 0).sum(axis=-1)
    defined = (n >= 2) & (used >= 2)
    if level == "nominal":
        d2 = np.broadcast_to(1.0 - np.eye(k), o.shape)
    elif level == "ordinal":
        d2 = _ordinal_delta2(n_c)
    else:
        raise ValueError(f"level must be 'nominal' or 'ordinal', got {level!r}")
    observed = (o * d2).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * d2).sum(axis=(-2, -1))
    safe = np.where(defined, expected, 1.0)
    values = np.where(defined, 1.0 - (n - 1.0) * observed / safe, 0.0)
    return values.astype(np.float64), np.asarray(defined, dtype=np.bool_)


def krippendorff_alpha(
    data: ArrayLike, *, k: int, level: AlphaLevel = "nominal"
) -> float | Undefined:
    """Krippendorff's alpha for a ``(raters, items)`` code matrix with ``-1`` for missing.

    ``level="ordinal"`` uses the ordinal metric on codes in scale order (rank-based, so only
    the order of the categories matters). Items with a single rating contribute nothing.
    Undefined when no item has 2 ratings or all pairable values fall in one category.
    """
    stats = krippendorff_unit_stats(category_counts(data, k=k))
    values, defined = krippendorff_from_sums(stats.sum(axis=0), k=k, level=level)
    if not bool(defined):
        if stats.shape[0] == 0:
            return Undefined("no pairable values: no item has 2 or more ratings")
        return Undefined("expected disagreement D_e = 0: all pairable values are in one category")
    return float(values)
