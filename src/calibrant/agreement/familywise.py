"""Decisions over a family of paired differences measured on the same cases.

``compare`` (one difference per criterion), ``compare-trials`` (one per figure) and the probe
gate (one per attack family and channel) each ask several questions of the same data. Each
question here is a :class:`CaseEstimate`: a statistic that is a smooth function of additive
per-case sums (a difference of two kappas, of two rates, of two means), with its bootstrap
values over **whole cases** and its leave-one-case-out (jackknife) values. Its interval is the
one calibrate uses (:func:`~calibrant.agreement.ci.honest_interval`: BCa over cases united with
the cluster jackknife t interval with G - 1 degrees of freedom); a single case has no interval.

:func:`holm` decides the family at a family-wise error rate ``alpha`` by Holm's step-down
rule, written with intervals: with ``r`` questions still open, every open question whose
interval at confidence ``1 - alpha / r`` (two-sided) excludes its null value is decided, and the
round repeats with the smaller ``r`` until none is. Because these intervals are nested in their
confidence, that is Holm's procedure on the p-values the intervals invert. No question is
decided on fewer than ``min_cases`` cases.

:func:`cases_needed` plans the next look: how many cases in all would, if the effect is as large
as the data make plausible (the observed effect shrunk toward zero by one standard error: an
effect that looks large on few cases is biased upward when it is the one that gets followed)
and the cases differ as much as the data make plausible (an upper confidence bound of the
between-case spread, :data:`SPREAD_CONFIDENCE`: on 6 or 10 cases the spread's estimate is
often far too small, and a plan built on it under-delivers), decide with probability ``power``
at the first Holm level. The rate at which a followed plan then decides is measured by
``benchmarks/bench_cases_needed.py`` (``benchmarks/results/cases_needed.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ..contracts.reports.agreement_parts import Familywise
from .ci import honest_interval, z_value
from .resample import row_blocks, unit_weights_sum
from .undefined import Undefined

__all__ = [
    "Call",
    "CaseEstimate",
    "case_estimate",
    "cases_needed",
    "holm",
    "DEFAULT_ALPHA",
    "METHOD",
    "PLAN_POWER",
    "SPREAD_CONFIDENCE",
    "SumsStatistic",
]

Float64Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
Interval = tuple[float, float]
SumsStatistic = Callable[[Float64Array], tuple[Float64Array, BoolArray]]
Direction = Literal["above", "below", "undecided"]

DEFAULT_ALPHA = 0.05
PLAN_POWER = 0.8
SPREAD_CONFIDENCE = 0.8
"""One-sided confidence of the upper bound of the between-case spread a plan is built on:
``spread * sqrt((G - 1) / chi2_{1 - SPREAD_CONFIDENCE}(G - 1))``."""
MAX_PLANNED_CASES = 10_000


@dataclass(frozen=True)
class CaseEstimate:
    """A statistic over cases: the point, the bootstrap and jackknife values, the case count."""

    point: float | Undefined
    values: Float64Array
    defined: BoolArray
    jackknife: Float64Array
    jackknife_defined: BoolArray
    n_cases: int
    bounds: Interval = (-math.inf, math.inf)
    max_undefined_fraction: float = 0.05
    floor: Callable[[float], Interval | None] | None = None
    """An interval at a given confidence to unite with (like calibrate's score floor): it keeps
    the interval open when no case shows any variation at all."""

    def interval(self, confidence: float) -> Interval | Undefined:
        """The case-clustered interval at ``confidence`` (BCa ∪ cluster jackknife t)."""
        if isinstance(self.point, Undefined):
            return self.point
        if self.n_cases < 2:
            return Undefined(
                f"{self.n_cases} case(s): an interval needs at least 2 cases (items of one case "
                "are not independent)"
            )
        ci, _, _ = honest_interval(
            self.point,
            self.values,
            self.defined,
            self.jackknife,
            self.jackknife_defined,
            confidence=confidence,
            clustered=True,
            floor=None if self.floor is None else self.floor(confidence),
            bounds=self.bounds,
            max_undefined_fraction=self.max_undefined_fraction,
        )
        return ci

    def standard_error(self) -> float | None:
        """The cluster jackknife standard error, or None below 2 defined leave-one-out values."""
        jk = self.jackknife[self.jackknife_defined]
        g = jk.size
        if g < 2:
            return None
        return math.sqrt((g - 1) / g * float(((jk - jk.mean()) ** 2).sum()))


METHOD = "bias-corrected (BCa) bootstrap over whole cases ∪ cluster jackknife t(G-1)"


def case_estimate(
    per_case: Float64Array,
    statistic: SumsStatistic,
    indices: NDArray[np.int64],
    *,
    bounds: Interval = (-math.inf, math.inf),
    max_undefined_fraction: float = 0.05,
    undefined_reason: str = "undefined on these data",
    floor: Callable[[float], Interval | None] | None = None,
) -> CaseEstimate:
    """The estimate of ``statistic`` (a function of column sums) from ``(G, d)`` per-case sums.

    ``indices`` is the ``(B, G)`` bootstrap index matrix over cases (one matrix for a whole
    family, so every question sees the same resampled cases).
    """
    stats = np.asarray(per_case, dtype=np.float64)
    g = stats.shape[0]
    total = stats.sum(axis=0)
    value, ok = statistic(total[None, :])
    point: float | Undefined = float(value[0]) if bool(ok[0]) else Undefined(undefined_reason)
    if g >= 1 and indices.size:
        values, defined = statistic(unit_weights_sum(row_blocks(indices), stats))
    else:
        values, defined = np.zeros(0), np.zeros(0, dtype=bool)
    jk, jk_ok = statistic(total[None, :] - stats) if g >= 2 else (np.zeros(0), np.zeros(0, bool))
    return CaseEstimate(
        point,
        values,
        np.asarray(defined, dtype=bool),
        jk,
        np.asarray(jk_ok, dtype=bool),
        g,
        bounds,
        max_undefined_fraction,
        floor,
    )


@dataclass(frozen=True)
class Call:
    """The family-wise decision on one question.

    ``direction`` says whether the estimate is decided ``above`` or ``below`` its null value;
    ``confidence`` is the Holm level of the interval that decided it (or the last level tried;
    None when it could not be tested), ``interval`` that interval; ``reason`` why it stayed
    undecided, when it did."""

    direction: Direction
    ci95: Interval | Undefined
    confidence: float | None  # None: never tested (too few cases, or no interval)
    interval: Interval | Undefined
    reason: str | None

    def as_familywise(self) -> Familywise:
        """The report part: the Holm level and its interval (null: never tested, undefined)."""
        ci = self.interval
        return Familywise(
            familywise_confidence=self.confidence,
            familywise_ci=None if isinstance(ci, Undefined) else [ci[0], ci[1]],
        )


def holm(
    estimates: Mapping[str, CaseEstimate],
    *,
    null: Mapping[str, float] | float = 0.0,
    alpha: float = DEFAULT_ALPHA,
    min_cases: int,
    sides: Literal["both", "above"] = "both",
) -> dict[str, Call]:
    """Holm's step-down decisions over ``estimates`` at family-wise error ``alpha``.

    ``sides="both"``: a question is decided above (below) its null when the two-sided interval
    at ``1 - alpha / r`` lies wholly above (below) it. ``sides="above"``: only "above" is a
    decision, tested one-sided (the two-sided interval at ``1 - 2 alpha / r``). Every question
    counts in ``r``, decidable or not (the family is the questions asked).
    """
    nulls = {k: null if isinstance(null, float | int) else null[k] for k in estimates}
    ci95 = {k: e.interval(0.95) for k, e in estimates.items()}
    reasons: dict[str, str] = {}
    for k, e in estimates.items():
        why = []
        ci = ci95[k]
        if isinstance(ci, Undefined):
            why.append(f"no interval: {ci.reason}")
        if e.n_cases < min_cases:
            why.append(f"{e.n_cases} case(s), below the minimum of {min_cases} cases to decide")
        if why:
            reasons[k] = "; ".join(why)
    open_ = [k for k in estimates]
    decided: dict[str, Call] = {}
    last: dict[str, tuple[float | None, Interval | Undefined]] = {}
    while open_:
        r = len(open_)
        level = 1 - (alpha if sides == "both" else 2 * alpha) / r
        newly = []
        for k in open_:
            if k in reasons:  # never tested: no family-wise level applies
                last[k] = (None, Undefined(reasons[k]))
                continue
            ci = estimates[k].interval(level)
            last[k] = (level, ci)
            if isinstance(ci, Undefined):
                continue
            if ci[0] > nulls[k]:
                newly.append((k, "above"))
            elif ci[1] < nulls[k] and sides == "both":
                newly.append((k, "below"))
        if not newly:
            break
        for k, d in newly:
            decided[k] = Call(d, ci95[k], last[k][0], last[k][1], None)  # type: ignore[arg-type]
            open_.remove(k)
    for k in open_:
        tried, at_level = last[k]
        decided[k] = Call("undecided", ci95[k], tried, at_level, reasons.get(k))
    return {k: decided[k] for k in estimates}


def cases_needed(
    estimate: CaseEstimate,
    *,
    family_size: int,
    null: float = 0.0,
    alpha: float = DEFAULT_ALPHA,
    power: float = PLAN_POWER,
    min_cases: int,
    sides: Literal["both", "above"] = "both",
    spread_confidence: float = SPREAD_CONFIDENCE,
) -> tuple[int | None, str | None]:
    """``(cases in all, None)`` likely to decide this question, or ``(None, why not)``.

    The plan: the per-case spread from the cluster jackknife (SE × √G) raised to its one-sided
    ``spread_confidence`` upper bound (chi-square with G - 1 df; 0: the estimate itself), the
    effect shrunk by one SE toward the null (the winner's curse), and the cluster t test at
    Holm's first level ``alpha / family_size``: the smallest G with ``(t(G-1) + z(power)) ·
    spread / √G <= effect``.
    """
    point = estimate.point
    if isinstance(point, Undefined):
        return None, f"the difference is undefined ({point.reason})"
    se = estimate.standard_error()
    g = estimate.n_cases
    if se is None:
        return None, f"{g} case(s): the spread between cases is not measured below 2 cases"
    effect = abs(point - null)
    if sides == "above" and point <= null:
        return None, "the observed value is not above the bar: more cases would not FAIL it"
    if effect == 0:
        return None, "no difference observed: more cases would not settle one that is not there"
    planned = effect - se
    if planned <= 0:
        return None, (
            f"the observed difference ({point - null:+.3f}) is within one standard error "
            f"({se:.3f}) of zero: too uncertain to plan on; label more cases and look again"
        )
    spread = se * math.sqrt(g)
    if spread == 0:
        return max(min_cases, g), None
    from scipy import stats as sps

    df = int(estimate.jackknife_defined.sum()) - 1
    if spread_confidence > 0 and df >= 1:  # the spread as large as the data make plausible
        spread *= math.sqrt(df / float(sps.chi2.ppf(1 - spread_confidence, df)))

    tail = alpha / family_size / (2 if sides == "both" else 1)
    zp = z_value(2 * power - 1)  # one-sided quantile of `power`
    start, width = max(min_cases, g, 2), 64
    while start <= MAX_PLANNED_CASES:  # in growing blocks: t quantiles are costly
        n = np.arange(start, min(start + width, MAX_PLANNED_CASES + 1))
        ok = (sps.t.ppf(1 - tail, n - 1) + zp) * spread / np.sqrt(n) <= planned
        if ok.any():
            return int(n[int(np.argmax(ok))]), None
        start, width = int(n[-1]) + 1, width * 4
    return None, f"more than {MAX_PLANNED_CASES} cases: the difference is too small to settle"
