"""The judge against the experts by the same statistic on both sides, paired by case.

Judge side: the mean over experts ``r`` of ``stat(judge, expert_r)``. Expert side: the mean over
expert pairs of ``stat(expert_r, expert_s)``. Both are pairwise statistics between one rater and
one expert, so a judge exactly as good as one more expert has the same expected value on both
sides (judge-vs-consensus would not be: the consensus is less noisy than any one expert).

One bootstrap draws the same cases for every pair, so the difference ``D = judge side - expert
side`` gets an interval that accounts for both sides sharing their cases (BCa ∪ cluster jackknife
t with G - 1 df, :mod:`calibrant.agreement.ci`). The release gate reads ``D``'s interval at 95%
two-sided and states its false-PASS level as measured (at most 5% one-sided; see
:mod:`calibrant.agreement.gate`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibrant.agreement.bootstrap import table_floor
from calibrant.agreement.encode import MISSING, check_codes
from calibrant.agreement.meanpair import mean_floor, mean_of_defined, pair_onehots, pair_tables
from calibrant.agreement.pairwise import PairwiseStatistic, statistic_from_tables
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
from calibrant.contracts.reports.stats import GateComparison

__all__ = ["PairedComparison", "paired_comparison", "applicability_codes"]

Float64Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """Judge side, expert side and their difference, from one joint bootstrap over cases.

    ``n_cases`` counts the cases holding an item rated by the judge and at least one expert,
    ``n_expert_cases`` those holding an item rated by two experts (``None`` without clusters).
    """

    statistic: str
    judge: BootstrapResult
    experts: BootstrapResult
    difference: BootstrapResult
    n_items: int
    n_cases: int | None
    n_expert_items: int
    n_expert_cases: int | None
    n_experts: int

    def as_comparison(self) -> GateComparison:
        """The report part: judge side, expert side, D and the counts (the gate's confidence,
        margin and note left unset: the caller that knows them adds them)."""
        return GateComparison(
            statistic=self.statistic,
            judge_side=self.judge.as_estimate(),
            expert_side=self.experts.as_estimate(),
            difference=self.difference.as_estimate(),
            n_items=self.n_items,
            n_cases=self.n_cases,
            n_expert_items=self.n_expert_items,
            n_expert_cases=self.n_expert_cases,
            n_experts=self.n_experts,
        )


def applicability_codes(codes: ArrayLike, *, na_code: int) -> IntArray:
    """``0`` applies, ``1`` not applicable, ``-1`` no label: the applicability of coded labels
    whose ``na_code`` means not applicable."""
    c = np.asarray(codes, dtype=np.int64)
    return np.where(c == MISSING, MISSING, np.where(c == na_code, 1, 0)).astype(np.int64)


def _cases(rated: BoolArray, ids: IntArray | None) -> int | None:
    return None if ids is None else int(np.unique(ids[rated]).size)


def paired_comparison(
    judge: ArrayLike,
    experts: ArrayLike,
    *,
    k: int,
    seed: int,
    statistic: PairwiseStatistic = "cohen_kappa",
    n_resamples: int = 2000,
    confidence: float = 0.95,
    clusters: ArrayLike | None = None,
    max_undefined_fraction: float = 0.5,
) -> PairedComparison:
    """Compare ``judge`` (one code per item) with ``experts`` (``(raters, items)`` codes) by
    ``statistic`` on both sides; see the module docstring. Each pair uses the items both of its
    raters rated (``-1`` = no rating). ``clusters`` gives one case id per item."""
    check_options(
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        max_undefined_fraction=max_undefined_fraction,
    )
    y = check_codes(judge, k=k)
    rows = np.atleast_2d(np.asarray(experts))
    e = (
        np.vstack([check_codes(row, k=k) for row in rows])
        if rows.shape[0]
        else np.empty((0, y.size), dtype=np.int64)
    )
    r = e.shape[0]
    pairs = [(y, e[a]) for a in range(r)] + [
        (e[a], e[b]) for a in range(r) for b in range(a + 1, r)
    ]
    kk = k * k
    stats = pair_onehots(pairs, n_items=y.size, k=k)
    ids: IntArray | None = None
    n_clusters: int | None = None
    if clusters is not None:
        cl = np.asarray(clusters, dtype=object)
        if cl.shape != y.shape:
            raise ValueError(f"clusters has {cl.size} entries, expected one per item ({y.size})")
        ids, n_clusters = cluster_index(cl)
    judge_rated = stats[:, : r * kk].sum(axis=1) > 0
    expert_rated = stats[:, r * kk :].sum(axis=1) > 0
    n_j, n_e = int(judge_rated.sum()), int(expert_rated.sum())
    counts = {
        "n_items": n_j,
        "n_cases": _cases(judge_rated, ids),
        "n_expert_items": n_e,
        "n_expert_cases": _cases(expert_rated, ids),
        "n_experts": r,
    }
    names = (
        f"mean_judge_expert_{statistic}",
        f"mean_pairwise_{statistic}",
        f"difference_{statistic}",
    )
    no_pair = "fewer than two experts: no expert pair" if r < 2 else None
    if no_pair is None and not n_e:
        no_pair = "no item rated by two of the experts"
    if not n_j:
        why = "no item rated by the judge and an expert"
        none = [
            undefined_result(
                name,
                why,
                n_resamples=n_resamples,
                seed=seed,
                confidence=confidence,
                clustered=clusters is not None,
            )
            for name in names
        ]
        return PairedComparison(statistic, none[0], none[1], none[2], **counts)
    units = stats
    if ids is not None and n_clusters is not None:
        units = np.zeros((n_clusters, stats.shape[1]), dtype=np.float64)
        np.add.at(units, ids, stats)
    n_pairs = len(pairs)

    def sides(sums: Float64Array) -> tuple[Float64Array, BoolArray, Float64Array, BoolArray]:
        tables = pair_tables(sums, n_pairs=n_pairs, k=k)
        values, defined = statistic_from_tables(tables, statistic=statistic)
        jv, jd = mean_of_defined(values[..., :r], defined[..., :r])
        ev, ed = mean_of_defined(values[..., r:], defined[..., r:])
        return jv, jd, ev, ed

    total = units.sum(axis=0)
    pj, pjd, pe, ped = sides(total)
    blocks = index_blocks(units.shape[0], n_resamples=n_resamples, seed=seed)
    boot = sides(unit_weights_sum(blocks, units))
    jack = sides(total[None, :] - units)
    point_tables = pair_tables(total, n_pairs=n_pairs, k=k)

    def floor(which: range) -> tuple[float, float] | None:
        return mean_floor(
            [
                table_floor(point_tables[p], statistic=statistic, confidence=confidence)
                for p in which
            ]
        )

    j_est: float | Undefined = (
        float(pj)
        if bool(pjd)
        else Undefined(f"{statistic} is undefined for every judge-expert pair")
    )
    e_est: float | Undefined = (
        float(pe)
        if bool(ped)
        else Undefined(no_pair or f"{statistic} is undefined for every expert pair")
    )
    undefined = [x.reason for x in (j_est, e_est) if isinstance(x, Undefined)]
    d_est: float | Undefined = float(pj - pe) if not undefined else Undefined("; ".join(undefined))

    def result(
        i: int,
        estimate: float | Undefined,
        values: tuple[Float64Array, BoolArray],
        jackknife: tuple[Float64Array, BoolArray],
        n: int,
        floor: tuple[float, float] | None,
        bounds: tuple[float, float] = (-1.0, 1.0),
    ) -> BootstrapResult:
        return finish_result(
            names[i],
            estimate,
            values[0],
            values[1],
            n=n,
            n_clusters=n_clusters,
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
            max_undefined_fraction=max_undefined_fraction,
            method="bca",
            jackknife=jackknife,
            floor=floor,
            bounds=bounds,
        )

    judge_side = result(0, j_est, (boot[0], boot[1]), (jack[0], jack[1]), n_j, floor(range(r)))
    expert_side = result(
        1, e_est, (boot[2], boot[3]), (jack[2], jack[3]), n_e, floor(range(r, n_pairs))
    )
    difference = result(
        2,
        d_est,
        (boot[0] - boot[2], boot[1] & boot[3]),
        (jack[0] - jack[2], jack[1] & jack[3]),
        int((judge_rated | expert_rated).sum()),
        None,
        (-2.0, 2.0),
    )
    return PairedComparison(
        statistic,
        judge_side,
        expert_side,
        _never_zero_width(difference, judge_side, expert_side),
        **counts,
    )


def _never_zero_width(
    d: BootstrapResult, judge: BootstrapResult, experts: BootstrapResult
) -> BootstrapResult:
    """When every resample gives the same difference (e.g. judge and experts agree perfectly
    everywhere), D's interval has zero width; it is then widened to the unpaired bounds of the
    two sides' intervals (each kept open by its Wilson score floor)."""
    if isinstance(d.ci, Undefined) or d.ci[1] > d.ci[0]:
        return d
    if isinstance(judge.ci, Undefined) or isinstance(experts.ci, Undefined):
        return d
    lo = min(d.ci[0], judge.ci[0] - experts.ci[1])
    hi = max(d.ci[1], judge.ci[1] - experts.ci[0])
    return replace(d, ci=(max(-2.0, lo), min(2.0, hi)), method=d.method + " ∪ unpaired side bounds")
