"""What both e-processes share (eprocess.py describes them): a case's label codes, a label list's
shares, and the e-value shown from its log, capped where exp() would overflow."""

from __future__ import annotations

import math
from collections.abc import Sequence

CaseCodes = tuple[tuple[int, ...], tuple[int, ...]]
"""One case: the judge's label codes and the expert's, item by item (same length, ≥ 1)."""


LOG_E_CAP = 690.0
"""The e-value shown is exp(min(log e, this)) ≈ 1e299: a lasting change drives log e past 709,
where exp() overflows a float. Every decision reads log e itself, which is never capped."""


def capped_e_value(log_e: float) -> float:
    """The e-value of `log_e` as a finite float (at most exp(LOG_E_CAP))."""
    return math.exp(min(log_e, LOG_E_CAP))


def _shares(codes: Sequence[int], k: int) -> list[float]:
    out = [0.0] * k
    for c in codes:
        out[c] += 1.0
    n = len(codes)
    return [v / n for v in out]
