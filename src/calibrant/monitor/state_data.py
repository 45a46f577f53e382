"""The drift monitor's state as data (`Monitor.state()`, `.json_data()` its JSON): each rule's
e-process, a criterion's baseline and rules, the settings and the windows entered. Reading a
state back (`Monitor.from_dict`) takes the JSON, a state written by an earlier version too."""

from __future__ import annotations

from calibrant.contracts.reports.base import Strict

__all__ = [
    "Number",
    "BaselineState",
    "CriterionState",
    "KappaState",
    "MonitorSettingsState",
    "MonitorState",
    "ShiftState",
]

Number = int | float
"""A number as the caller gave it (a baseline's counts, a setting): an int stays an int in the
JSON, as the state was always written."""


class KappaState(Strict):
    """A kappa e-process (`KappaEProcess`)."""

    kappa0: Number
    k: int
    ordinal: bool
    memory: int
    log_e: float
    windows: int
    cases: int
    recent: list[list[float]]
    pending: list[list[list[int]]]  # [judge codes, expert codes] of a case waiting for a partner
    above: bool


class ShiftState(Strict):
    """A label-shift e-process (`ShiftEProcess`)."""

    k: int
    delta: float
    reference_windows: int
    memory: int
    log_e: float
    windows: int
    cases: int
    recent: list[list[float]]
    reference: list[float]
    reference_seen: int
    bounds: list[list[float]]
    grid_log: list[list[float]]
    grid_slope: list[list[float]]


class BaselineState(Strict):
    """A criterion's release baseline (`CriterionBaseline`)."""

    labels: list[str]
    judged_shares: list[Number]
    ordinal: bool
    anchor_kappa: Number | None
    confusion: list[list[Number]] | None
    anchor_cases: int | None
    anchor_scorings: int
    anchor_reference: list[Number] | None


class CriterionState(Strict):
    """One criterion's baseline and rules, the windows its alarms fired in (rule -> window)
    and the recent audits' expert share sums and counts."""

    baseline: BaselineState
    agreement: KappaState
    shift: ShiftState
    anchors: KappaState | None
    held: KappaState | None
    anchor_shift: ShiftState | None
    fired: dict[str, str]
    experts: list[list[float]]


class MonitorSettingsState(Strict):
    alpha: Number
    gate_kappa: Number
    anchor_tolerance: Number
    memory: int
    reference_windows: int
    min_anchor_cases: int


class MonitorState(Strict):
    """The whole monitor (`state_version`: the state's shape; 1 is upgraded when read)."""

    state_version: int
    settings: MonitorSettingsState
    windows: list[str]
    criteria: dict[str, CriterionState]
