"""Per label, one label against the rest: the judge's sensitivity and specificity with the
reference as truth, and the agreement of a judge that always gives that label (the baseline a
kappa is measured against), each with a case-clustered interval.

Each figure is a ratio of sums over items (``hits / reference positives``), so one bootstrap of
per-case sums gives all of them at once; the interval is the one of
:mod:`calibrant.agreement.ci` (BCa ∪ cluster jackknife t with G - 1 df), united with the Wilson
interval of the pooled counts, which keeps it open at 0% and 100%.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibrant.agreement.ci import wilson
from calibrant.agreement.encode import MISSING, check_codes
from calibrant.agreement.resample import (
    BootstrapResult,
    check_options,
    cluster_index,
    finish_result,
    index_blocks,
    undefined_result,
    unit_weights_sum,
)
from calibrant.agreement.undefined import Undefined

__all__ = ["LabelRates", "one_vs_rest"]

Float64Array = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class LabelRates:
    """One label against the rest, on the items both raters labelled.

    ``sensitivity``: share of the reference's items with this label that the judge gave it;
    ``specificity``: share of the reference's other items that the judge did not give it;
    ``always``: share of items whose reference label is this one, which is the percent
    agreement of a judge that always answers it (its kappa is 0 by construction).
    """

    code: int
    sensitivity: BootstrapResult
    specificity: BootstrapResult
    always: BootstrapResult


def one_vs_rest(
    reference: ArrayLike,
    judge: ArrayLike,
    *,
    k: int,
    seed: int,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    clusters: ArrayLike | None = None,
) -> list[LabelRates]:
    """:class:`LabelRates` for every code ``0..k-1`` (see the module docstring)."""
    check_options(
        n_resamples=n_resamples, seed=seed, confidence=confidence, max_undefined_fraction=0.5
    )
    x, y = check_codes(reference, k=k), check_codes(judge, k=k)
    if x.shape != y.shape:
        raise ValueError(f"the two raters' arrays differ in length: {x.size} vs {y.size}")
    both = (x != MISSING) & (y != MISSING)
    xs, ys = x[both], y[both]
    n = int(xs.size)
    names = ("sensitivity", "specificity", "always_agreement")
    if n == 0:
        out = []
        for c in range(k):
            none = [
                undefined_result(
                    name,
                    "no item labelled by both",
                    n_resamples=n_resamples,
                    seed=seed,
                    confidence=confidence,
                    clustered=clusters is not None,
                )
                for name in names
            ]
            out.append(LabelRates(c, none[0], none[1], none[2]))
        return out
    # per item and label: [hit, positive, true negative, negative, positive (again), 1]
    pos = xs[:, None] == np.arange(k)[None, :]
    said = ys[:, None] == np.arange(k)[None, :]
    cols = [pos & said, pos, ~pos & ~said, ~pos, pos, np.ones_like(pos)]
    stats = np.stack(cols, axis=1).astype(np.float64).reshape(n, 6 * k)  # (items, 6, k) flat
    n_clusters: int | None = None
    units = stats
    if clusters is not None:
        cl = np.asarray(clusters, dtype=object)
        if cl.shape != x.shape:
            raise ValueError(f"clusters has {cl.size} entries, expected one per item ({x.size})")
        ids, n_clusters = cluster_index(cl[both])
        units = np.zeros((n_clusters, stats.shape[1]), dtype=np.float64)
        np.add.at(units, ids, stats)
    total = units.sum(axis=0)
    boot = unit_weights_sum(index_blocks(units.shape[0], n_resamples=n_resamples, seed=seed), units)
    jack = total[None, :] - units

    def ratio(sums: Float64Array, which: int, c: int) -> tuple[Float64Array, NDArray[np.bool_]]:
        s = sums.reshape(*sums.shape[:-1], 6, k)
        num, den = s[..., 2 * which, c], s[..., 2 * which + 1, c]
        ok = den > 0
        return np.where(ok, num / np.where(ok, den, 1.0), 0.0), ok

    out = []
    for c in range(k):
        figures = []
        for which, name in enumerate(names):
            value, ok = ratio(total, which, c)
            num, den = total.reshape(6, k)[2 * which, c], total.reshape(6, k)[2 * which + 1, c]
            estimate: float | Undefined = (
                float(value)
                if bool(ok)
                else Undefined(
                    "the reference gave this label to no item"
                    if which == 0
                    else "the reference gave every item this label"
                )
            )
            bv, bd = ratio(boot, which, c)
            figures.append(
                finish_result(
                    name,
                    estimate,
                    bv,
                    bd,
                    n=int(den),
                    n_clusters=n_clusters,
                    n_resamples=n_resamples,
                    seed=seed,
                    confidence=confidence,
                    max_undefined_fraction=0.5,
                    method="bca",
                    jackknife=ratio(jack, which, c),
                    floor=wilson(float(num), float(den), confidence=confidence) if den else None,
                    bounds=(0.0, 1.0),
                )
            )
        out.append(LabelRates(c, figures[0], figures[1], figures[2]))
    return out
