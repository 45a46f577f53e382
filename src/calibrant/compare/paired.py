"""Two judges on the same labeled items: which agrees better with the experts, and how sure.

Both judges are measured against the same reference labels (the experts' consensus) on the same
items, so the comparison is paired: every bootstrap draw takes the same **cases** (all their
items) for both judges and the interval is of the difference itself, not of two separate kappas
(:mod:`calibrant.agreement.familywise`: BCa over cases ∪ cluster jackknife t with G - 1 df).
Beside it, an exact McNemar test on per-item correctness counts the items only one of the two
judges got right (a description: it treats items as independent, and decides nothing).

The decision (:data:`DECISION_RULE`) is taken over the whole family of criteria at once, by
Holm's rule, so that two equal judges are called different on any criterion at most ``alpha``
of the time; no decision below ``min_cases`` cases. An undecided comparison says how many cases
in all would likely settle it (:func:`~calibrant.agreement.familywise.cases_needed`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import binomtest

from ..agreement.encode import MISSING, check_codes
from ..agreement.familywise import (
    DEFAULT_ALPHA,
    CaseEstimate,
    SumsStatistic,
    case_estimate,
    cases_needed,
    holm,
)
from ..agreement.pairwise import PairwiseStatistic, statistic_from_tables, undefined_reason
from ..agreement.resample import bootstrap_indices, cluster_index
from ..agreement.undefined import Undefined
from ..contracts.reports.compare import McNemar as McNemarPart
from ..contracts.reports.trial_parts import PairedFigures

__all__ = [
    "DECISION_RULE",
    "MIN_CASES",
    "Decision",
    "McNemar",
    "PairedComparison",
    "PairedEstimate",
    "compare_paired",
    "decide_family",
    "mcnemar_exact",
    "paired_estimate",
]

Decision = Literal["B better", "B worse", "undecided"]

MIN_CASES = 6
"""No "B better/worse" on fewer cases (see benchmarks/results/compare.md for why 6)."""

DECISION_RULE = (
    "B better (worse) on a criterion only when its kappa(B) - kappa(A) interval over whole cases "
    "lies above (below) zero at Holm's family-wise level (95% across all criteria together: the "
    "first criterion decided needs the 1 - 0.05/m interval, m criteria), and only with at least "
    "min_cases cases; overall B worse if worse on any criterion"
)


@dataclass(frozen=True)
class McNemar:
    """Items only A got right (`a_only`), only B got right (`b_only`), exact two-sided p."""

    a_only: int
    b_only: int
    p_value: float

    def part(self) -> McNemarPart:
        """The test as the comparison report quotes it."""
        return McNemarPart(a_only_right=self.a_only, b_only_right=self.b_only, p_value=self.p_value)


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


def _point(
    ref: np.ndarray, judge: np.ndarray, k: int, statistic: PairwiseStatistic
) -> float | None:
    table = np.bincount(ref * k + judge, minlength=k * k).reshape(k, k)
    value, ok = statistic_from_tables(table, statistic=statistic)
    return float(value) if bool(ok) else None


@dataclass(frozen=True)
class PairedEstimate:
    """kappa of each judge against the reference and their difference B - A over cases."""

    statistic: str
    n: int
    n_cases: int
    kappa_a: float | None
    kappa_b: float | None
    estimate: CaseEstimate | None  # None when a kappa is undefined
    mcnemar: McNemar
    reason: str | None  # why there is no difference

    @property
    def difference(self) -> float | None:
        if self.kappa_a is None or self.kappa_b is None:
            return None
        return self.kappa_b - self.kappa_a


@dataclass(frozen=True)
class PairedComparison:
    """The paired estimate and the family-wise call on it."""

    paired: PairedEstimate
    ci95: tuple[float, float] | None
    decision: Decision
    familywise_confidence: float | None
    familywise_ci: tuple[float, float] | None
    cases_needed: int | None
    reason: str | None  # why a figure is missing, the call undecided, or no plan is given

    # the figures of the estimate, for readers of the old flat shape
    @property
    def n(self) -> int:
        return self.paired.n

    @property
    def difference(self) -> float | None:
        return self.paired.difference

    @property
    def kappa_a(self) -> float | None:
        return self.paired.kappa_a

    @property
    def kappa_b(self) -> float | None:
        return self.paired.kappa_b

    @property
    def mcnemar(self) -> McNemar:
        return self.paired.mcnemar

    def figures(self) -> PairedFigures:
        """The estimate and the call, as the comparison report quotes them per criterion."""
        p = self.paired
        return PairedFigures(
            statistic=p.statistic,
            n=p.n,
            n_cases=p.n_cases,
            kappa_a=p.kappa_a,
            kappa_b=p.kappa_b,
            difference=p.difference,
            ci95=list(self.ci95) if self.ci95 else None,
            familywise_confidence=self.familywise_confidence,
            familywise_ci=list(self.familywise_ci) if self.familywise_ci else None,
            mcnemar=p.mcnemar.part(),
            decision=self.decision,
            cases_needed=self.cases_needed,
            reason=self.reason,
        )


def _kappa_difference(k: int, statistic: PairwiseStatistic) -> SumsStatistic:
    """kappa(B) - kappa(A) from summed per-case tables (A's K*K cells, then B's)."""
    kk = k * k

    def diff(sums: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        tables = np.rint(sums).astype(np.int64)
        va, oka = statistic_from_tables(tables[:, :kk].reshape(-1, k, k), statistic=statistic)
        vb, okb = statistic_from_tables(tables[:, kk:].reshape(-1, k, k), statistic=statistic)
        return vb - va, oka & okb

    return diff


def paired_estimate(
    reference: ArrayLike,
    a: ArrayLike,
    b: ArrayLike,
    *,
    k: int,
    statistic: PairwiseStatistic = "cohen_kappa",
    clusters: ArrayLike | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
) -> PairedEstimate:
    """kappa(B) - kappa(A) on the items where the reference and both judges have a label.

    Codes are integers 0..k-1 on the criterion's scale (-1 = missing). `clusters` gives each
    item's case; whole cases are resampled together and counted. Without it every item is its
    own case (only right when the items are truly independent).
    """
    ref, ja, jb = (check_codes(v, k=k) for v in (reference, a, b))
    if not ref.shape == ja.shape == jb.shape:
        raise ValueError("reference, a and b must have one code per item")
    keep = (ref != MISSING) & (ja != MISSING) & (jb != MISSING)
    if clusters is None:
        ids, g = np.arange(int(keep.sum()), dtype=np.int64), int(keep.sum())
    else:
        cl = np.asarray(clusters, dtype=object)
        if cl.shape != keep.shape:
            raise ValueError("clusters must have one id per item")
        ids, g = cluster_index(cl[keep])
    ref, ja, jb = ref[keep], ja[keep], jb[keep]
    n = int(ref.size)
    test = mcnemar_exact(ja == ref, jb == ref)
    kappa_a, kappa_b = _point(ref, ja, k, statistic), _point(ref, jb, k, statistic)
    if kappa_a is None or kappa_b is None:
        table = np.bincount(ref * k + (ja if kappa_a is None else jb), minlength=k * k)
        which = "A" if kappa_a is None else "B"
        reason = f"{statistic} of {which} is undefined: " + undefined_reason(
            table.reshape(k, k), statistic=statistic
        )
        return PairedEstimate(statistic, n, g, kappa_a, kappa_b, None, test, reason)
    kk = k * k
    per_case = np.zeros((g, 2 * kk))
    np.add.at(per_case, (ids, ref * k + ja), 1.0)
    np.add.at(per_case, (ids, kk + ref * k + jb), 1.0)
    idx = bootstrap_indices(g, n_resamples=n_resamples, seed=seed)
    est = case_estimate(
        per_case,
        _kappa_difference(k, statistic),
        idx,
        bounds=(-2.0, 2.0),
        undefined_reason="a kappa is undefined",
    )
    return PairedEstimate(statistic, n, g, kappa_a, kappa_b, est, test, None)


def decide_family(
    estimates: dict[str, PairedEstimate],
    *,
    alpha: float = DEFAULT_ALPHA,
    min_cases: int = MIN_CASES,
) -> dict[str, PairedComparison]:
    """Every criterion's call by :data:`DECISION_RULE` (Holm over the family at ``alpha``)."""
    usable = {name: p.estimate for name, p in estimates.items() if p.estimate is not None}
    calls = holm(usable, alpha=alpha, min_cases=min_cases)
    m = len(estimates)
    out: dict[str, PairedComparison] = {}
    for name, p in estimates.items():
        call = calls.get(name)
        if p.estimate is None or call is None:
            out[name] = PairedComparison(p, None, "undecided", None, None, None, p.reason)
            continue
        ci95 = None if isinstance(call.ci95, Undefined) else call.ci95
        fci = None if isinstance(call.interval, Undefined) else call.interval
        decision: Decision = {"above": "B better", "below": "B worse"}.get(  # type: ignore[assignment]
            call.direction, "undecided"
        )
        needed, why = None, call.reason
        if decision == "undecided":
            needed, plan = cases_needed(p.estimate, family_size=m, alpha=alpha, min_cases=min_cases)
            why = "; ".join(x for x in (call.reason, plan) if x) or None
        out[name] = PairedComparison(p, ci95, decision, call.confidence, fci, needed, why)
    return out


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
    alpha: float = DEFAULT_ALPHA,
    min_cases: int = MIN_CASES,
) -> PairedComparison:
    """One criterion compared on its own (a family of one): see :func:`paired_estimate`."""
    p = paired_estimate(
        reference,
        a,
        b,
        k=k,
        statistic=statistic,
        clusters=clusters,
        n_resamples=n_resamples,
        seed=seed,
    )
    return decide_family({"criterion": p}, alpha=alpha, min_cases=min_cases)["criterion"]
