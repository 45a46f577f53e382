"""Comparing versions: two judges on the same labeled items, two agent runs on the same cases."""

from .paired import (
    DECISION_RULE,
    MIN_CASES,
    Decision,
    McNemar,
    PairedComparison,
    PairedEstimate,
    compare_paired,
    decide_family,
    mcnemar_exact,
    paired_estimate,
)

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
