"""Calibration: the judge against expert-labeled gold transcripts, criterion by criterion.

Exports load on first use (see calibrant.lazy): `score` reads one explain text from here and
should not import the bootstrap machinery with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from calibrant.lazy import lazy_exports

if TYPE_CHECKING:
    from .build import calibration_report
    from .criterion import Settings, criterion_report
    from .run import run_calibration
    from .simulated import simulated_judgments

_HOME = {
    "calibration_report": "build",
    "Settings": "criterion",
    "criterion_report": "criterion",
    "run_calibration": "run",
    "simulated_judgments": "simulated",
}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOME)

__all__ = [
    "Settings",
    "calibration_report",
    "criterion_report",
    "run_calibration",
    "simulated_judgments",
]
