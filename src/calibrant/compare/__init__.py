"""Comparing versions: two judges on the same labeled items."""

from .paired import Decision, McNemar, PairedComparison, compare_paired, mcnemar_exact

__all__ = ["Decision", "McNemar", "PairedComparison", "compare_paired", "mcnemar_exact"]
