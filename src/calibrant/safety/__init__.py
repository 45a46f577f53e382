"""Deterministic safety checks over a transcript's ledger evidence, one outcome per invariant."""

from .checker import check_transcript
from .evidence import Evidence
from .registry import Finding, Invariant, invariant, registered

__all__ = ["Evidence", "Finding", "Invariant", "check_transcript", "invariant", "registered"]
