"""Calibration: the judge against expert-labeled gold transcripts, criterion by criterion."""

from .build import calibration_report
from .criterion import Settings, criterion_report
from .run import run_calibration
from .simulated import simulated_judgments

__all__ = [
    "Settings",
    "calibration_report",
    "criterion_report",
    "run_calibration",
    "simulated_judgments",
]
