"""Two-rater agreement: percent agreement, confusion matrix, Cohen's (weighted) kappa, Gwet's AC1.

All functions take two 1-D arrays of integer codes ``0..K-1`` (``-1`` = missing) and the scale
size ``k``. Only items where *both* ratings are present are used. Every statistic is computed
from the K x K confusion matrix, and the ``*_from_tables`` functions evaluate it for a whole
stack of tables at once, which is what the vectorized bootstrap uses.

Undefined statistics come back as :class:`~calibrant.agreement.undefined.Undefined`.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibrant.agreement.encode import MISSING, check_codes
from calibrant.agreement.undefined import Undefined

__all__ = [
    "PairwiseStatistic",
    "Weights",
    "cohen_kappa",
    "confusion_matrix",
    "disagreement_parts",
    "gwet_ac1",
    "kappa_from_tables",
    "ac1_from_tables",
    "pair_codes",
    "percent_agreement",
    "percent_agreement_from_tables",
    "statistic_from_tables",
    "weighted_kappa",
]

Weights = Literal["linear", "quadratic"]
PairwiseStatistic = Literal[
    "percent_agreement",
    "cohen_kappa",
    "weighted_kappa_linear",
    "weighted_kappa_quadratic",
    "gwet_ac1",
]

Float64Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def pair_codes(
    x: ArrayLike, y: ArrayLike, *, k: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Validate two code arrays and keep only the items where both raters gave a rating."""
    a = check_codes(x, k=k)
    b = check_codes(y, k=k)
    if a.shape != b.shape:
        raise ValueError(f"the two raters' arrays differ in length: {a.size} vs {b.size}")
    both = (a != MISSING) & (b != MISSING)
    return a[both], b[both]


def confusion_matrix(x: ArrayLike, y: ArrayLike, *, k: int) -> NDArray[np.int64]:
    """K x K counts; row = code of the first rater, column = code of the second.

    Rows and columns follow the scale's order ``0..K-1`` even for categories nobody used.
    Items where either rating is missing are left out.
    """
    a, b = pair_codes(x, y, k=k)
    return np.bincount(a * k + b, minlength=k * k).reshape(k, k)


def _disagreement_weights(k: int, weights: Weights | None) -> NDArray[np.int64]:
    """Integer disagreement weights: 1 off the diagonal, ``|i-j|`` or ``(i-j)**2``."""
    diff: NDArray[np.int64] = np.subtract.outer(np.arange(k), np.arange(k)).astype(np.int64)
    if weights is None:
        unit: NDArray[np.int64] = (diff != 0).astype(np.int64)
        return unit
    if weights == "linear":
        return np.abs(diff)
    if weights == "quadratic":
        return diff * diff
    raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")


def _as_stack(tables: ArrayLike) -> NDArray[np.int64]:
    arr = np.asarray(tables)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]:
        raise ValueError(f"expected (..., K, K) confusion tables, got shape {arr.shape}")
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64, copy=False)
    out: NDArray[np.int64] = np.rint(arr).astype(np.int64)
    return out


def kappa_from_tables(
    tables: ArrayLike, *, weights: Weights | None = None
) -> tuple[Float64Array, BoolArray]:
    """Cohen's kappa (optionally linear/quadratic weighted) for a stack of confusion tables.

    ``tables`` has shape ``(..., K, K)``. Returns ``(values, defined)`` with the leading shape;
    ``values`` is 0.0 wherever ``defined`` is False (fewer than 2 items, or zero expected
    disagreement). Uses kappa = 1 - n * sum(w * O) / sum(w * r c^T) with integer weights, so
    the definedness test is exact and one rational kappa is always one double: a resample with
    the sample's table ties the point estimate exactly, which the BCa interval counts on.
    ``sklearn.metrics.cohen_kappa_score`` sums floats instead and differs in the last bit on
    about one table in five; ``tests/agreement/test_agreement_sklearn.py`` checks every
    resample against it.
    """
    t = _as_stack(tables)
    w = _disagreement_weights(t.shape[-1], weights)
    n = t.sum(axis=(-2, -1))
    rows = t.sum(axis=-1)
    cols = t.sum(axis=-2)
    observed = np.einsum("...ij,ij->...", t, w)
    expected = np.einsum("...i,...i->...", rows @ w, cols)
    defined = (n >= 2) & (expected > 0)
    safe = np.where(defined, expected, 1)
    values = np.where(defined, 1.0 - n.astype(np.float64) * observed / safe, 0.0)
    return values.astype(np.float64), np.asarray(defined, dtype=np.bool_)


def ac1_from_tables(tables: ArrayLike) -> tuple[Float64Array, BoolArray]:
    """Gwet's AC1 for a stack of ``(..., K, K)`` tables; see :func:`gwet_ac1`."""
    t = _as_stack(tables)
    k = t.shape[-1]
    n = t.sum(axis=(-2, -1)).astype(np.float64)
    defined = (n >= 2) & (k >= 2)
    safe_n = np.where(defined, n, 1.0)
    p_a = np.trace(t, axis1=-2, axis2=-1) / safe_n
    pi = (t.sum(axis=-1) + t.sum(axis=-2)) / (2.0 * safe_n[..., None])
    p_e = (pi * (1.0 - pi)).sum(axis=-1) / max(k - 1, 1)
    values = np.where(defined, (p_a - p_e) / (1.0 - p_e), 0.0)
    return values.astype(np.float64), np.asarray(defined, dtype=np.bool_)


def percent_agreement_from_tables(tables: ArrayLike) -> tuple[Float64Array, BoolArray]:
    """Share of items on the diagonal for a stack of ``(..., K, K)`` tables."""
    t = _as_stack(tables)
    n = t.sum(axis=(-2, -1))
    defined = n >= 1
    values = np.where(defined, np.trace(t, axis1=-2, axis2=-1) / np.where(defined, n, 1), 0.0)
    return values.astype(np.float64), np.asarray(defined, dtype=np.bool_)


def statistic_from_tables(
    tables: ArrayLike, *, statistic: PairwiseStatistic
) -> tuple[Float64Array, BoolArray]:
    """Dispatch to the vectorized ``*_from_tables`` function named by ``statistic``."""
    if statistic == "percent_agreement":
        return percent_agreement_from_tables(tables)
    if statistic == "cohen_kappa":
        return kappa_from_tables(tables)
    if statistic == "weighted_kappa_linear":
        return kappa_from_tables(tables, weights="linear")
    if statistic == "weighted_kappa_quadratic":
        return kappa_from_tables(tables, weights="quadratic")
    if statistic == "gwet_ac1":
        return ac1_from_tables(tables)
    raise ValueError(f"unknown pairwise statistic {statistic!r}")


def disagreement_parts(
    table: NDArray[np.int64], *, statistic: PairwiseStatistic, prior: float = 0.0
) -> tuple[float, float] | None:
    """``(D_o, D_e)`` of one K x K table, with ``statistic = 1 - D_o / D_e``.

    ``D_o`` is the mean per-item disagreement scaled to [0, 1] (weights divided by the largest
    weight), ``D_e`` the chance disagreement on the same scale; percent agreement has
    ``D_e = 1``. ``prior`` adds that many pseudo-ratings, spread evenly over the K categories,
    to each rater's marginal counts before ``D_e`` is computed (a few labels of a rare category
    make ``D_e`` itself uncertain). ``None`` when the table has no item. The score floor of the
    interval (:func:`calibrant.agreement.ci.score_floor`) is built from these numbers.
    """
    t = np.asarray(table, dtype=np.float64)
    n = float(t.sum())
    k = t.shape[-1]
    if n == 0:
        return None
    rows = (t.sum(axis=1) + prior / k) / (n + prior)
    cols = (t.sum(axis=0) + prior / k) / (n + prior)
    if statistic in ("percent_agreement", "gwet_ac1"):
        d_o = 1.0 - float(np.trace(t)) / n
        if statistic == "percent_agreement":
            return d_o, 1.0
        pi = (rows + cols) / 2.0
        p_e = float((pi * (1.0 - pi)).sum()) / max(k - 1, 1)
        return d_o, 1.0 - p_e
    weights: Weights | None = {
        "cohen_kappa": None,
        "weighted_kappa_linear": "linear",
        "weighted_kappa_quadratic": "quadratic",
    }[statistic]
    w = _disagreement_weights(k, weights).astype(np.float64)
    top = float(w.max()) or 1.0
    d_o = float((w * t).sum()) / (n * top)
    d_e = float(rows @ w @ cols) / top
    return d_o, d_e


def undefined_reason(table: NDArray[np.int64], *, statistic: PairwiseStatistic) -> str:
    """Explain why ``statistic`` is undefined on one K x K table (assumes it is)."""
    n = int(table.sum())
    if n == 0:
        return "no paired items (no item rated by both raters)"
    if statistic == "percent_agreement":
        return "no paired items"
    if n < 2:
        return f"fewer than 2 paired items (n={n})"
    if statistic == "gwet_ac1":
        return "AC1 needs a scale with at least 2 categories"
    used = int(np.count_nonzero(table.sum(axis=0) + table.sum(axis=1)))
    if used <= 1:
        return "expected agreement p_e = 1: both raters used one identical category for every item"
    return "expected disagreement is zero"


def _single(
    x: ArrayLike, y: ArrayLike, *, k: int, statistic: PairwiseStatistic
) -> float | Undefined:
    table = confusion_matrix(x, y, k=k)
    values, defined = statistic_from_tables(table, statistic=statistic)
    if not bool(defined):
        return Undefined(undefined_reason(table, statistic=statistic))
    return float(values)


def percent_agreement(x: ArrayLike, y: ArrayLike, *, k: int) -> float | Undefined:
    """Fraction of paired items with identical codes; undefined when no item is paired."""
    return _single(x, y, k=k, statistic="percent_agreement")


def cohen_kappa(
    x: ArrayLike, y: ArrayLike, *, k: int, weights: Weights | None = None
) -> float | Undefined:
    """Cohen's kappa (p_o - p_e) / (1 - p_e) over items rated by both raters.

    With ``weights="linear"`` or ``"quadratic"`` this is the weighted kappa for an ordinal scale
    (disagreement weights ``|i-j|`` or ``(i-j)**2``, codes taken in scale order). Undefined with
    fewer than 2 paired items, or when the expected disagreement is zero (both raters always
    used the same single category, p_e = 1).
    """
    statistic: PairwiseStatistic
    if weights is None:
        statistic = "cohen_kappa"
    elif weights == "linear":
        statistic = "weighted_kappa_linear"
    elif weights == "quadratic":
        statistic = "weighted_kappa_quadratic"
    else:
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    return _single(x, y, k=k, statistic=statistic)


def weighted_kappa(
    x: ArrayLike, y: ArrayLike, *, k: int, weights: Weights = "linear"
) -> float | Undefined:
    """Weighted Cohen's kappa for ordinal codes (linear by default); see :func:`cohen_kappa`."""
    return cohen_kappa(x, y, k=k, weights=weights)


def gwet_ac1(x: ArrayLike, y: ArrayLike, *, k: int) -> float | Undefined:
    """Gwet's AC1 for two raters on a nominal scale of ``k`` categories.

    p_a = share of paired items in agreement; pi_q = (row_q + col_q) / (2n);
    p_e = sum_q pi_q (1 - pi_q) / (K - 1); AC1 = (p_a - p_e) / (1 - p_e).
    ``k`` is the number of categories on the scale (used or not), which enters p_e.
    Undefined with fewer than 2 paired items or a 1-category scale.
    """
    return _single(x, y, k=k, statistic="gwet_ac1")
