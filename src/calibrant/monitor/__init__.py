"""Drift after release: anytime-valid alarms on a judge's agreement with the experts, on the
judged label distribution, and on frozen anchor items that only the judge can move."""

from .eprocess import KappaEProcess, ShiftEProcess, case_weighted_kappa, window_statistic
from .monitor import (
    Case,
    CriterionBaseline,
    CriterionStatus,
    Monitor,
    MonitorSettings,
    MonitorStatus,
    RuleStatus,
    Verdict,
    Window,
    anchor_kappa,
    anchor_reference,
    draw_anchors,
)

__all__ = [
    "Case",
    "CriterionBaseline",
    "CriterionStatus",
    "KappaEProcess",
    "Monitor",
    "MonitorSettings",
    "MonitorStatus",
    "RuleStatus",
    "ShiftEProcess",
    "Verdict",
    "Window",
    "anchor_kappa",
    "anchor_reference",
    "case_weighted_kappa",
    "draw_anchors",
    "window_statistic",
]
