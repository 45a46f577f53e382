"""Scoring new, unlabeled transcripts: the judge's verdicts summarized honestly."""

from .correction import CorrectedRate, ErrorCounts, corrected_pass_rate

__all__ = ["CorrectedRate", "ErrorCounts", "corrected_pass_rate"]
