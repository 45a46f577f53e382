"""Two judges on the same labeled items: which agrees better with the experts, and how sure.

Both judges are measured against the same reference labels (the experts' consensus) on the same
items, so the comparison is paired: every bootstrap draw takes the same items for both judges and
the interval is of the difference itself, not of two separate kappas. Beside it, an exact McNemar
test on per-item correctness counts the items only one of the two judges got right.

The decision follows one rule: B is better (worse) when the whole 95% interval of
kappa(B) - kappa(A) lies above (below) zero; otherwise it is undecided, and the report says how
many more labeled items would likely settle it if the observed difference held.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import binomtest

from ..agreement.bootstrap import resample_tables
from ..agreement.encode import MISSING, check_codes
from ..agreement.pairwise import PairwiseStatistic, statistic_from_tables, undefined_reason
from ..agreement.resample import bootstrap_indices, cluster_index

__all__ = ["Decision", "McNemar", "PairedComparison", "compare_paired", "mcnemar_exact"]

Decision = Literal["B better", "B worse", "undecided"]


@dataclass(frozen=True)
class McNemar:
    """Items only A got right (`a_only`), only B got right (`b_only`), exact two-sided p."""

    a_only: int
    b_only: int
    p_value: float

    def as_json(self) -> dict[str, object]:
        return {"a_only_right": self.a_only, "b_only_right": self.b_only, "p_value": self.p_value}


def mcnemar_exact(a_right: ArrayLike, b_right: ArrayLike) -> McNemar:
    """Exact McNemar test: under no difference, the discordant items split 50/50."""
    a = np.asarray(a_right, dtype=bool)
    b = np.asarray(b_right, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(f"a_right and b_right differ in length: {a.size} vs {b.size}")
    a_only = int((a & ~b).sum())
    b_only = int((b & ~a).sum())
    discordant = a_only + b_only
    p = 1.0 if discordant == 0 else float(binomtest(a_only, discordant, 0.5).pvalue)
    return McNemar(a_only, b_only, min(1.0, p))


@dataclass(frozen=True)
class PairedComparison:
    """kappa of each judge against the reference, their paired difference (B - A) and the call."""

    statistic: str
    n: int
    kappa_a: float | None
    kappa_b: float | None
    difference: float | None
    ci95: tuple[float, float] | None
    mcnemar: McNemar
    decision: Decision
    more_items: int | None
    reason: str | None  # why a figure is missing or why more items would not settle it

    def as_json(self) -> dict[str, object]:
        return {
            "statistic": self.statistic,
            "n": self.n,
            "kappa_a": self.kappa_a,
            "kappa_b": self.kappa_b,
            "difference": self.difference,
            "ci95": list(self.ci95) if self.ci95 else None,
            "mcnemar": self.mcnemar.as_json(),
            "decision": self.decision,
            "more_items_to_settle": self.more_items,
            "reason": self.reason,
        }


def _point(
    ref: np.ndarray, judge: np.ndarray, k: int, statistic: PairwiseStatistic
) -> float | None:
    table = np.bincount(ref * k + judge, minlength=k * k).reshape(k, k)
    value, ok = statistic_from_tables(table, statistic=statistic)
    return float(value) if bool(ok) else None


def compare_paired(
    reference: ArrayLike,
    a: ArrayLike,
    b: ArrayLike,
    *,
    k: int,
    statistic: PairwiseStatistic = "cohen_kappa",
    clusters: ArrayLike | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
) -> PairedComparison:
    """Compare judges A and B on the items where the reference and both judges have a label.

    Codes are integers 0..k-1 on the criterion's scale (-1 = missing). With `clusters` (one id
    per item, e.g. the case a transcript came from), whole clusters are resampled together.
    """
    ref, ja, jb = (check_codes(v, k=k) for v in (reference, a, b))
    if not ref.shape == ja.shape == jb.shape:
        raise ValueError("reference, a and b must have one code per item")
    keep = (ref != MISSING) & (ja != MISSING) & (jb != MISSING)
    ref, ja, jb = ref[keep], ja[keep], jb[keep]
    n = int(ref.size)
    test = mcnemar_exact(ja == ref, jb == ref)
    kappa_a, kappa_b = _point(ref, ja, k, statistic), _point(ref, jb, k, statistic)

    def result(
        decision: Decision,
        diff: float | None = None,
        ci: tuple[float, float] | None = None,
        *,
        more: int | None = None,
        reason: str | None = None,
    ) -> PairedComparison:
        return PairedComparison(
            statistic, n, kappa_a, kappa_b, diff, ci, test, decision, more, reason
        )

    if kappa_a is None or kappa_b is None:
        table = np.bincount(ref * k + (ja if kappa_a is None else jb), minlength=k * k)
        which = "A" if kappa_a is None else "B"
        return result(
            "undecided",
            reason=f"{statistic} of {which} is undefined: "
            + undefined_reason(table.reshape(k, k), statistic=statistic),
        )
    diff = kappa_b - kappa_a
    if clusters is None:
        units, ids = n, None
    else:
        cl = np.asarray(clusters, dtype=object)
        if cl.shape != keep.shape:
            raise ValueError("clusters must have one id per item")
        ids, units = cluster_index(cl[keep])
    idx = bootstrap_indices(units, n_resamples=n_resamples, seed=seed)
    tables_a = resample_tables(ref, ja, k=k, indices=idx, clusters=ids)
    tables_b = resample_tables(ref, jb, k=k, indices=idx, clusters=ids)
    va, oka = statistic_from_tables(tables_a, statistic=statistic)
    vb, okb = statistic_from_tables(tables_b, statistic=statistic)
    both = oka & okb
    if both.mean() < 0.95:
        return result(
            "undecided",
            diff,
            reason=f"the difference has no interval: {statistic} is undefined in "
            f"{1 - both.mean():.0%} of resamples (too few items or too little variety)",
        )
    lo, hi = (float(x) for x in np.percentile((vb - va)[both], [2.5, 97.5]))
    if lo > 0:
        return result("B better", diff, (lo, hi), more=0)
    if hi < 0:
        return result("B worse", diff, (lo, hi), more=0)
    if diff == 0:
        return result(
            "undecided",
            diff,
            (lo, hi),
            reason="both judges score the same against the reference here; more items would "
            "not settle a difference that was not observed",
        )
    # The interval's half-width shrinks as 1/sqrt(n): how many items make it narrower than the
    # observed difference, if that difference held.
    half = (hi - lo) / 2
    needed = math.ceil(n * (half / abs(diff)) ** 2)
    return result("undecided", diff, (lo, hi), more=max(1, needed - n))
