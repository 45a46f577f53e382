"""Scoring new, unlabeled transcripts: the judge's verdicts summarized honestly. Exports load on
first use (see calibrant.lazy): a score run without a calibration never imports the
correction's resampling (nor numpy)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from calibrant.lazy import lazy_exports

if TYPE_CHECKING:
    from .correction import CorrectedRate, ErrorCounts, corrected_pass_rate

_HOME = {
    "CorrectedRate": "correction",
    "ErrorCounts": "correction",
    "corrected_pass_rate": "correction",
}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOME)

__all__ = ["CorrectedRate", "ErrorCounts", "corrected_pass_rate"]
