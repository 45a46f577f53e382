"""The label-shift e-process (eprocess.py says why it holds): the judged label shares of later
cases against a reference sample of windows, its interval's worst share read at GRID points."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .evalue import _shares, capped_e_value
from .state_data import ShiftState

PRIOR_CASES = 20.0  # the shift test's recent shares are smoothed toward p0 by this many cases


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

    def state(self) -> ShiftState:
        return ShiftState(
            k=self.k,
            delta=self.delta,
            reference_windows=self.reference_windows,
            memory=self.memory,
            log_e=self.log_e,
            windows=self.windows,
            cases=self.cases,
            recent=[list(w) for w in self.recent],
            reference=list(self.reference),
            reference_seen=self.reference_seen,
            bounds=[list(b) for b in self.bounds],
            grid_log=[list(v) for v in self.grid_log],
            grid_slope=[list(v) for v in self.grid_slope],
        )

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ShiftEProcess:
        """The process of `state().json_data()`."""
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
