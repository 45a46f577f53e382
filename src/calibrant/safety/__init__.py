"""Deterministic safety checks over a transcript's evidence, one outcome per invariant."""

from .catalog import for_domain, registered
from .checker import check_transcript
from .evidence import Evidence
from .findings import Finding
from .outcomes import DUPLICATES, PERMISSION, outcome_uncertain, safety_summary, succeeded
from .registry import Invariant, invariant

__all__ = [
    "DUPLICATES",
    "Evidence",
    "Finding",
    "Invariant",
    "PERMISSION",
    "check_transcript",
    "for_domain",
    "invariant",
    "outcome_uncertain",
    "registered",
    "safety_summary",
    "succeeded",
]
