"""Small interval helpers for report figures: every figure carries n and a 95% interval.

numpy is imported inside the bootstrap helpers: `proportion` alone (all `score` needs while it
runs) stays light."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from calibrant.contracts.reports.base import Figure as FigurePart

__all__ = ["Figure", "proportion", "mean", "percentile", "ratio_of_sums"]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Figure:
    """A reported number: value (None when undefined, with the reason), n, and a 95% CI."""

    value: float | None
    n: int
    ci95: tuple[float, float] | None
    method: str
    undefined_reason: str | None = None
    n_cases: int | None = None  # when the n items come in cases and the interval counts cases

    def as_figure(self) -> FigurePart:
        """The report part (`n_cases` only when the interval counts cases)."""
        part = FigurePart(
            value=self.value,
            n=self.n,
            ci95=list(self.ci95) if self.ci95 else None,
            method=self.method,
            undefined_reason=self.undefined_reason,
        )
        if self.n_cases is not None:
            part.n_cases = self.n_cases
        return part

    @classmethod
    def of(cls, d: dict[str, object]) -> Figure:
        """A figure back from its JSON (an older one without `n_cases` too)."""
        ci = d.get("ci95")
        cases = d.get("n_cases")
        value = d.get("value")
        return cls(
            None if value is None else float(value),  # type: ignore[arg-type]
            int(d.get("n") or 0),  # type: ignore[call-overload]
            (float(ci[0]), float(ci[1])) if isinstance(ci, list | tuple) and ci else None,
            str(d.get("method") or ""),
            None if d.get("undefined_reason") is None else str(d["undefined_reason"]),
            None if cases is None else int(cases),  # type: ignore[call-overload]
        )

    def text(self, fmt: str = "{:.2f}") -> str:
        if self.value is None:
            return f"undefined ({self.undefined_reason})"
        ci = f" [{fmt.format(self.ci95[0])}, {fmt.format(self.ci95[1])}]" if self.ci95 else ""
        cases = f", {self.n_cases} case{'s' if self.n_cases != 1 else ''}" if self.n_cases else ""
        note = f"; {self.undefined_reason}" if self.undefined_reason else ""
        return f"{fmt.format(self.value)}{ci} (n={self.n}{cases}{note})"


def proportion(k: int, n: int) -> Figure:
    """k/n with a Wilson score interval."""
    if n == 0:
        return Figure(None, 0, None, "wilson", "no trials")
    p = k / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return Figure(p, n, (max(0.0, centre - half), min(1.0, centre + half)), "wilson")


def mean(values: Sequence[float], *, seed: int = 0, resamples: int = 2000) -> Figure:
    """Mean with a percentile bootstrap interval (seeded)."""
    n = len(values)
    if n == 0:
        return Figure(None, 0, None, "bootstrap", "no values")
    import numpy as np

    arr = np.asarray(values, dtype=float)
    if n == 1:
        return Figure(float(arr[0]), 1, None, "bootstrap", None)
    rng = np.random.default_rng(seed)
    means = arr[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return Figure(float(arr.mean()), n, (float(lo), float(hi)), f"bootstrap(seed={seed})")


def percentile(
    values: Sequence[float], q: float, *, seed: int = 0, resamples: int = 2000
) -> Figure:
    """The q-th percentile with a percentile bootstrap interval (seeded)."""
    n = len(values)
    if n == 0:
        return Figure(None, 0, None, "bootstrap", "no values")
    import numpy as np

    arr = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    qs = np.percentile(arr[rng.integers(0, n, size=(resamples, n))], q, axis=1)
    lo, hi = np.percentile(qs, [2.5, 97.5])
    ci = (float(lo), float(hi)) if n > 1 else None
    return Figure(float(np.percentile(arr, q)), n, ci, f"bootstrap(seed={seed})")


def ratio_of_sums(
    numerators: Sequence[float],
    denominators: Sequence[float],
    *,
    seed: int = 0,
    resamples: int = 2000,
) -> Figure:
    """sum(num) / sum(den) (e.g. cost per accepted outcome) with a percentile bootstrap
    interval over the units (trials); resamples whose denominator is 0 are left out."""
    n = len(numerators)
    import numpy as np

    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    if n == 0 or den.sum() == 0:
        return Figure(None, n, None, "ratio of sums", "the denominator is 0")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    d = den[idx].sum(axis=1)
    ok = d > 0
    values = num[idx].sum(axis=1)[ok] / d[ok]
    ci = None
    if n > 1 and values.size >= resamples // 2:
        lo, hi = np.percentile(values, [2.5, 97.5])
        ci = (float(lo), float(hi))
    return Figure(float(num.sum() / den.sum()), n, ci, f"ratio of sums, bootstrap(seed={seed})")
