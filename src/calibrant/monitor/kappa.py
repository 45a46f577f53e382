"""The kappa e-process (eprocess.py says why it bets as it does): case-weighted kappa against a
bar, a window of cases at a time, the bet shrunk toward nothing while agreement sits above it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .evalue import CaseCodes, _shares, capped_e_value
from .state_data import KappaState

BET_CAP = 0.8  # λ (1 - κ0) at most: one window can at most cut the e-value to a fifth
PRIOR_VARIANCE = 0.05  # of T, before any window: the first bets are small


def agreement_weights(k: int, *, ordinal: bool) -> tuple[tuple[float, ...], ...]:
    """Agreement weights: identity (Cohen's kappa), or linear ``1 - |i-j|/(k-1)`` on an ordinal
    scale (linear-weighted kappa, the gate's statistic for ordinal criteria)."""
    if ordinal and k > 1:
        return tuple(tuple(1 - abs(i - j) / (k - 1) for j in range(k)) for i in range(k))
    return tuple(tuple(1.0 if i == j else 0.0 for j in range(k)) for i in range(k))


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

    ``memory`` windows of ``T`` set the next bet. State is data (:meth:`state`)."""

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

    def state(self) -> KappaState:
        return KappaState(
            kappa0=self.kappa0,
            k=self.k,
            ordinal=self.ordinal,
            memory=self.memory,
            log_e=self.log_e,
            windows=self.windows,
            cases=self.cases,
            recent=[list(w) for w in self.recent],
            pending=[[list(j), list(e)] for j, e in self.pending],
            above=self.above,
        )

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> KappaEProcess:
        """The process of `state().json_data()`."""
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
