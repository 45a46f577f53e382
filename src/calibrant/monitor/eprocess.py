"""Two e-processes for a judge after release, each valid under optional stopping.

An e-process here is a nonnegative process that starts at 1 and is a supermartingale while its
null hypothesis holds, whatever the monitor saw before. By Ville's inequality the chance that it
*ever* reaches ``1/alpha`` under the null is at most ``alpha``: the monitor may be looked at
every window, for as long as one likes, and stopped whenever, without the false-alarm rate
growing with the number of looks (a z-test at 0.05 per look false-alarms on most of a year of
weekly looks; ``benchmarks/bench_drift.py`` measures both).

**The unit is the case.** Items of one case (several transcripts of one conversation, or the
criteria read on one transcript) move together; treating them as independent makes any test too
eager. Both processes below take whole cases, and what they assume independent, given the past,
is one case from another.

:class:`KappaEProcess` — *is agreement below a bar?* The monitored statistic is the
**case-weighted kappa**: Cohen's kappa (or, on an ordinal scale, linear-weighted kappa, the
gate's statistic) with every case counted once: observed agreement ``p_o`` is the mean over
cases of the case's mean agreement weight, and chance agreement ``p_e = a' W b`` uses the
case-averaged label shares ``a`` (judge) and ``b`` (expert). On cases of equal size it is the
gate's pooled kappa; otherwise it gives each case the same say, as the case bootstrap of the
gate's interval does. Kappa is not a mean of independent terms (``p_e`` is a product of two
means), so the process does not bet on kappa estimates. It bets on

    T = p̂_o - κ0 - (1 - κ0) · p̂_e,    p̂_e = mean over ordered pairs of *different* cases
                                            (c, c') of  a_c' W b_c'

computed over two cases at a time: the cases of a window are taken in pairs, in the order given.
Two different cases are independent, so the cross-case term estimates ``a' W b`` without bias,
and ``E[T] = (1 - p_e)(κ - κ0)``: negative exactly when the case-weighted kappa is below ``κ0``
(``tests/monitor`` checks this exactly by enumeration). Under the null ``κ ≥ κ0`` the factor
``1 - λ T``, with a bet ``λ ≥ 0`` fixed before the pair is seen, has mean at most 1, so the
running product is a test supermartingale. ``T`` lies in ``[-1, 1 - κ0]`` and
``λ ≤ 0.8 / (1 - κ0)``, so one pair never cuts the e-value below a fifth. A pair rather than a
whole window is the unit of a bet because a bounded factor caps what one bet can win: with one
bet per window a judge 0.1 below the bar needs about half a year of weekly windows to reach
``1/alpha`` whatever the data say. The bet follows the ``T`` of the last windows' pairs (a
shrunken mean over variance, "aGRAPA"): when agreement sits above the bar it bets nothing and
the e-value stays where it is, so a judge that is fine for half a year does not start its
decline from far below 1. A case left without a partner waits for the next window.

The chance term is what makes this kappa and not raw agreement: a judge whose labels drift
towards the majority label keeps its raw agreement where the majority is large and loses kappa,
and a shift in the case mix moves ``p_e`` and the bar with it. Fixing ``p_e`` at its release
value instead would test raw agreement against a bar that no longer means the gate's kappa once
the label rates move.

:class:`ShiftEProcess` — *did the judged label distribution move?* A two-sample test: the
baseline is itself a sample. The first ``reference_windows`` windows of scored cases are the
reference (nothing is tested on them); null: every later case's expected judged label shares
equal the reference cases' (unknown) ones, ``p``. For every fixed ``p`` the product over later
cases of ``Σ_k x_ck q_k / p_k`` (``x_c`` the case's shares, ``q`` the recent cases' shares
smoothed toward the reference's, known before ``c`` is) is a test martingale ``M^p``: one factor
per case, mean exactly 1 under ``p``. ``p`` is not known, so the rule reads ``inf_p M^p`` over an
interval that holds ``p`` with probability ``1 - delta`` (the reference's mean share, a
Chernoff-Hoeffding bound valid for any case shares in [0, 1]); then it can reach ``1/(alpha -
delta)`` only if the interval misses (``delta``) or ``M^p`` at the true ``p`` does (``alpha -
delta``, Ville). ``log M^p`` is convex in ``p`` (a sum of logs of sums of log-convex ``1/p_k``),
so it is kept at 33 points of the interval with its slope, and the minimum between two points is
bounded below by where the two tangents meet: the reported log e-value is never above the true
``inf``. Two labels test the second label's share; more test each label's share against the rest
and average the e-values (an average of test martingales is one). Taking the gold set's judged
shares as exact instead (the rule before issue 31) fired in .82 of runs with no change at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CaseCodes",
    "LOG_E_CAP",
    "capped_e_value",
    "kl_interval",
    "KappaEProcess",
    "ShiftEProcess",
    "agreement_weights",
    "case_weighted_kappa",
    "window_statistic",
]

CaseCodes = tuple[tuple[int, ...], tuple[int, ...]]
"""One case: the judge's label codes and the expert's, item by item (same length, ≥ 1)."""

BET_CAP = 0.8  # λ (1 - κ0) at most: one window can at most cut the e-value to a fifth
PRIOR_VARIANCE = 0.05  # of T, before any window: the first bets are small
PRIOR_CASES = 20.0  # the shift test's recent shares are smoothed toward p0 by this many cases
LOG_E_CAP = 690.0
"""The e-value shown is exp(min(log e, this)) ≈ 1e299: a lasting change drives log e past 709,
where exp() overflows a float. Every decision reads log e itself, which is never capped."""


def capped_e_value(log_e: float) -> float:
    """The e-value of `log_e` as a finite float (at most exp(LOG_E_CAP))."""
    return math.exp(min(log_e, LOG_E_CAP))


def agreement_weights(k: int, *, ordinal: bool) -> tuple[tuple[float, ...], ...]:
    """Agreement weights: identity (Cohen's kappa), or linear ``1 - |i-j|/(k-1)`` on an ordinal
    scale (linear-weighted kappa, the gate's statistic for ordinal criteria)."""
    if ordinal and k > 1:
        return tuple(tuple(1 - abs(i - j) / (k - 1) for j in range(k)) for i in range(k))
    return tuple(tuple(1.0 if i == j else 0.0 for j in range(k)) for i in range(k))


def _shares(codes: Sequence[int], k: int) -> list[float]:
    out = [0.0] * k
    for c in codes:
        out[c] += 1.0
    n = len(codes)
    return [v / n for v in out]


def _case_parts(
    cases: Sequence[CaseCodes], w: tuple[tuple[float, ...], ...]
) -> tuple[float, list[list[float]], list[list[float]]]:
    k = len(w)
    agree = 0.0
    a: list[list[float]] = []
    b: list[list[float]] = []
    for judge, expert in cases:
        agree += sum(w[j][e] for j, e in zip(judge, expert, strict=True)) / len(judge)
        a.append(_shares(judge, k))
        b.append(_shares(expert, k))
    return agree / len(cases), a, b


def _cross(a: Sequence[float], w: tuple[tuple[float, ...], ...], b: Sequence[float]) -> float:
    return sum(a[i] * w[i][j] * b[j] for i in range(len(w)) for j in range(len(w)))


def window_statistic(
    cases: Sequence[CaseCodes], kappa0: float, w: tuple[tuple[float, ...], ...]
) -> float:
    """``T = p̂_o - κ0 - (1 - κ0) p̂_e`` over ≥ 2 cases, ``p̂_e`` from pairs of different cases;
    ``E[T] = (1 - p_e)(κ - κ0)`` for the case-weighted kappa ``κ``."""
    m = len(cases)
    if m < 2:
        raise ValueError("the window statistic needs at least two cases")
    p_o, a, b = _case_parts(cases, w)
    k = len(w)
    sa = [sum(x[i] for x in a) for i in range(k)]
    sb = [sum(x[i] for x in b) for i in range(k)]
    same = sum(_cross(a[c], w, b[c]) for c in range(m))
    p_e = (_cross(sa, w, sb) - same) / (m * (m - 1))
    return p_o - kappa0 - (1 - kappa0) * p_e


def case_weighted_kappa(
    cases: Sequence[CaseCodes], w: tuple[tuple[float, ...], ...]
) -> float | None:
    """The case-weighted kappa of a set of cases (plug-in ``p_e`` from the averaged shares),
    e.g. the released judge's on the anchors; ``None`` when chance agreement is 1."""
    if not cases:
        return None
    p_o, a, b = _case_parts(cases, w)
    k = len(w)
    m = len(cases)
    p_e = _cross(
        [sum(x[i] for x in a) / m for i in range(k)],
        w,
        [sum(x[i] for x in b) / m for i in range(k)],
    )
    if p_e >= 1 - 1e-12:
        return None
    return (p_o - p_e) / (1 - p_e)


@dataclass
class KappaEProcess:
    """Test supermartingale for ``H0: case-weighted kappa ≥ kappa0`` (see the module text).

    ``memory`` windows of ``T`` set the next bet. State is plain data (:meth:`to_dict`)."""

    kappa0: float
    k: int
    ordinal: bool = False
    memory: int = 8
    log_e: float = 0.0
    windows: int = 0  # windows bet on
    cases: int = 0  # cases counted in those windows
    recent: list[list[float]] = field(default_factory=list)  # T of each pair, by window
    pending: list[CaseCodes] = field(default_factory=list)  # a lone case waits for a partner
    above: bool = False  # True: H0 κ ≤ kappa0, evidence that kappa is *above* the bar

    def __post_init__(self) -> None:
        if not -1.0 < self.kappa0 < 1.0:
            raise ValueError(f"kappa0 must lie in (-1, 1), got {self.kappa0}")

    @property
    def e_value(self) -> float:
        """exp(log_e), capped at exp(LOG_E_CAP) (decisions read `log_e`)."""
        return capped_e_value(self.log_e)

    def bet(self, current: Sequence[float] = ()) -> float:
        """λ for the next pair, from the pairs of the last windows and of this one so far
        (predictable: nothing of the pair it bets on)."""
        ts = [t for w in self.recent for t in w] + list(current)
        return self._bet(len(ts), sum(ts), sum(t * t for t in ts))

    def _bet(self, n: int, total: float, squares: float, kappa0: float | None = None) -> float:
        if n == 0:
            return 0.0
        drift = (total if self.above else -total) / (n + 1)  # shrunk: no big bet on one pair
        var = (max(squares - total * total / n, 0.0) + PRIOR_VARIANCE) / (n + 1)
        # T lies in [-1, 1 - κ0]: betting against T (below) keeps 1 - λT ≥ 1 - λ(1 - κ0),
        # betting on it (above) keeps 1 + λT ≥ 1 - λ
        cap = BET_CAP if self.above else BET_CAP / (1 - (self.kappa0 if kappa0 is None else kappa0))
        return min(max(drift / (var + drift * drift), 0.0), cap)

    def update(self, cases: Sequence[CaseCodes], kappa0: float | None = None) -> list[float]:
        """Bet on one window's cases, two at a time in the order given (the order must not
        depend on the labels); returns each pair's ``T``. A case left without a partner waits
        for the next window. ``kappa0``: this window's bar instead of the process's own (it
        must be fixed before the window's labels are seen, e.g. from earlier windows)."""
        bar = self.kappa0 if kappa0 is None else kappa0
        if not -1.0 < bar < 1.0:
            raise ValueError(f"kappa0 must lie in (-1, 1), got {bar}")
        batch = [*self.pending, *cases]
        w = agreement_weights(self.k, ordinal=self.ordinal)
        before = [t for window in self.recent for t in window]
        n, total, squares = len(before), sum(before), sum(t * t for t in before)
        ts: list[float] = []
        sign = 1.0 if self.above else -1.0
        for i in range(0, len(batch) - 1, 2):
            lam = self._bet(n, total, squares, bar)
            t = window_statistic(batch[i : i + 2], bar, w)
            self.log_e += math.log1p(sign * lam * t)
            ts.append(t)
            n, total, squares = n + 1, total + t, squares + t * t
        self.pending = batch[len(batch) - len(batch) % 2 :]
        if ts:
            self.windows += 1
            self.cases += 2 * len(ts)
            self.recent = [*self.recent, ts][-self.memory :]
        return ts

    def to_dict(self) -> dict[str, Any]:
        return {
            "kappa0": self.kappa0,
            "k": self.k,
            "ordinal": self.ordinal,
            "memory": self.memory,
            "log_e": self.log_e,
            "windows": self.windows,
            "cases": self.cases,
            "recent": [list(w) for w in self.recent],
            "pending": [[list(j), list(e)] for j, e in self.pending],
            "above": self.above,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> KappaEProcess:
        return cls(
            kappa0=float(d["kappa0"]),
            k=int(d["k"]),
            ordinal=bool(d["ordinal"]),
            memory=int(d["memory"]),
            log_e=float(d["log_e"]),
            windows=int(d["windows"]),
            cases=int(d["cases"]),
            recent=[[float(t) for t in w] for w in d["recent"]],
            pending=[(tuple(int(c) for c in j), tuple(int(c) for c in e)) for j, e in d["pending"]],
            above=bool(d.get("above", False)),  # states written before it: the "below" test
        )


GRID = 33  # points of the reference interval at which the shift test's log e-value is kept


def kl_interval(mean: float, n: float, miss: float) -> tuple[float, float]:
    """An interval for the mean of ``n`` independent values in [0, 1] from their ``mean``,
    each side missed with probability at most ``miss / 2`` (the Chernoff-Hoeffding bound
    ``n · kl(mean, p) ≤ log(2 / miss)``, valid for any distribution on [0, 1])."""
    bound = math.log(2 / miss) / n

    def kl(a: float, b: float) -> float:
        out = 0.0
        if a > 0:
            out += a * math.log(a / b)
        if a < 1:
            out += (1 - a) * math.log((1 - a) / (1 - b))
        return out

    def side(lo: float, hi: float, toward_lo: bool) -> float:
        # kl(mean, p) grows as p moves away from mean: bisect for where it reaches `bound`
        for _ in range(60):
            mid = (lo + hi) / 2
            inside = kl(mean, mid) <= bound
            if toward_lo:
                lo, hi = (lo, mid) if inside else (mid, hi)
            else:
                lo, hi = (mid, hi) if inside else (lo, mid)
        return hi if toward_lo else lo

    eps = 1e-12
    lower = 0.0 if mean <= eps or kl(mean, eps) <= bound else side(eps, mean, True)
    upper = 1.0 if mean >= 1 - eps or kl(mean, 1 - eps) <= bound else side(mean, 1 - eps, False)
    return lower, upper


def _convex_floor(xs: Sequence[float], values: Sequence[float], slopes: Sequence[float]) -> float:
    """A lower bound of a convex function's minimum over [xs[0], xs[-1]] from its values and
    slopes at the points ``xs``: between two points it lies above both tangents."""
    best = min(values)
    for i in range(len(xs) - 1):
        x0, x1, v0, v1, d0, d1 = (
            xs[i],
            xs[i + 1],
            values[i],
            values[i + 1],
            slopes[i],
            slopes[i + 1],
        )
        if d0 >= 0 or d1 <= 0 or d0 >= d1:
            continue  # the minimum over [x0, x1] is at an end point, already counted
        x = (v1 - v0 + d0 * x0 - d1 * x1) / (d0 - d1)
        best = min(best, v0 + d0 * (min(max(x, x0), x1) - x0))
    return best


@dataclass
class ShiftEProcess:
    """Two-sample e-process for ``H0: the cases after the reference have the expected judged
    label shares of the reference windows' cases`` (both are samples; see the module text).

    The first ``reference_windows`` windows with scored cases are the reference: nothing is
    tested on them. ``delta`` is the part of the rule's alpha spent on the reference's own
    sampling error: the rule fires at ``1 / (alpha - delta)``."""

    k: int
    delta: float
    reference_windows: int = 4
    memory: int = 8  # windows whose cases make the recent shares
    log_e: float = 0.0
    windows: int = 0  # windows tested (after the reference)
    cases: int = 0
    recent: list[list[float]] = field(default_factory=list)  # per window: share sums + count
    reference: list[float] = field(default_factory=list)  # share sums + count of the reference
    reference_seen: int = 0  # reference windows taken
    bounds: list[list[float]] = field(default_factory=list)  # per tested label: [low, high]
    grid_log: list[list[float]] = field(default_factory=list)  # per tested label, per point
    grid_slope: list[list[float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.k < 2:
            raise ValueError(f"the shift test needs at least 2 labels, got {self.k}")
        if not 0 < self.delta < 1:
            raise ValueError(f"delta must lie in (0, 1), got {self.delta}")
        if self.reference_windows < 1:
            raise ValueError(f"reference_windows must be at least 1, got {self.reference_windows}")
        if not self.reference:
            self.reference = [0.0] * (self.k + 1)

    @property
    def tested(self) -> list[int]:
        """The labels whose share is tested: the second of two, else each (one against the rest)."""
        return [1] if self.k == 2 else list(range(self.k))

    @property
    def ready(self) -> bool:
        return self.reference_seen >= self.reference_windows

    @property
    def reference_cases(self) -> int:
        return int(self.reference[self.k])

    @property
    def e_value(self) -> float:
        """exp(log_e), capped at exp(LOG_E_CAP) (decisions read `log_e`)."""
        return capped_e_value(self.log_e)

    def reference_shares(self) -> list[float] | None:
        n = self.reference[self.k]
        return None if n == 0 else [self.reference[i] / n for i in range(self.k)]

    def _points(self, j: int) -> list[float]:
        lo, hi = self.bounds[j]
        lo, hi = max(lo, 1e-6), min(hi, 1 - 1e-6)
        return [lo + (hi - lo) * g / (GRID - 1) for g in range(GRID)]

    def _arm(self) -> None:
        n = self.reference[self.k]
        miss = self.delta / len(self.tested)
        self.bounds = [list(kl_interval(self.reference[j] / n, n, miss)) for j in self.tested]
        self.grid_log = [[0.0] * GRID for _ in self.tested]
        self.grid_slope = [[0.0] * GRID for _ in self.tested]

    def update(self, cases: Sequence[Sequence[int]]) -> None:
        """One window's scored cases (each its label codes), in an order that does not depend on
        the labels: a reference window's are counted into the reference; afterwards each case
        multiplies every ``M^p`` of the reference interval by ``Σ_k x_k q_k / p_k``."""
        k = self.k
        if not cases:
            return
        if not self.ready:
            for codes in cases:
                x = _shares(codes, k)
                for i in range(k):
                    self.reference[i] += x[i]
                self.reference[k] += 1
            self.reference_seen += 1
            if self.ready:
                self._arm()
            return
        total = [0.0] * (k + 1)
        for window in self.recent:
            total = [t + v for t, v in zip(total, window, strict=True)]
        n_ref = self.reference[k]
        center = [(self.reference[j] + 0.5) / (n_ref + 1) for j in range(k)]
        points = [self._points(j) for j in range(len(self.tested))]
        this = [0.0] * (k + 1)
        for codes in cases:
            x = _shares(codes, k)
            n = total[k] + this[k] + PRIOR_CASES
            for t, j in enumerate(self.tested):
                q = (total[j] + this[j] + PRIOR_CASES * center[j]) / n
                a, b = (1 - x[j]) * (1 - q), x[j] * q
                logs, slopes = self.grid_log[t], self.grid_slope[t]
                for g, p in enumerate(points[t]):
                    f = a / (1 - p) + b / p
                    logs[g] += math.log(f)
                    slopes[g] += (a / (1 - p) ** 2 - b / p**2) / f
            for i in range(k):
                this[i] += x[i]
            this[k] += 1
        floors = [
            _convex_floor(points[t], self.grid_log[t], self.grid_slope[t])
            for t in range(len(self.tested))
        ]
        top = max(floors)
        self.log_e = top + math.log(sum(math.exp(f - top) for f in floors) / len(floors))
        self.windows += 1
        self.cases += len(cases)
        self.recent = [*self.recent, this][-self.memory :]

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "delta": self.delta,
            "reference_windows": self.reference_windows,
            "memory": self.memory,
            "log_e": self.log_e,
            "windows": self.windows,
            "cases": self.cases,
            "recent": [list(w) for w in self.recent],
            "reference": list(self.reference),
            "reference_seen": self.reference_seen,
            "bounds": [list(b) for b in self.bounds],
            "grid_log": [list(v) for v in self.grid_log],
            "grid_slope": [list(v) for v in self.grid_slope],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ShiftEProcess:
        return cls(
            k=int(d["k"]),
            delta=float(d["delta"]),
            reference_windows=int(d["reference_windows"]),
            memory=int(d["memory"]),
            log_e=float(d["log_e"]),
            windows=int(d["windows"]),
            cases=int(d["cases"]),
            recent=[[float(v) for v in w] for w in d["recent"]],
            reference=[float(v) for v in d["reference"]],
            reference_seen=int(d["reference_seen"]),
            bounds=[[float(v) for v in b] for b in d["bounds"]],
            grid_log=[[float(v) for v in w] for w in d["grid_log"]],
            grid_slope=[[float(v) for v in w] for w in d["grid_slope"]],
        )
