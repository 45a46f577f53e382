"""One criterion's rules in the monitor's state: its baseline, the e-processes of its rules, the
windows its alarms fired in and the recent audits' expert shares; its state as data
(`state()`), read back from that data's JSON (`from_dict`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .eprocess import KappaEProcess, ShiftEProcess
from .model import CriterionBaseline
from .state_data import CriterionState


@dataclass
class _Criterion:
    baseline: CriterionBaseline
    agreement: KappaEProcess
    shift: ShiftEProcess
    anchors: KappaEProcess | None
    held: KappaEProcess | None = None  # H0: anchors' kappa ≤ its bar (the judge changed)
    anchor_shift: ShiftEProcess | None = None  # H0: the judge's shares on the anchors held
    fired: dict[str, str] = field(default_factory=dict)  # rule -> window it fired in
    experts: list[list[float]] = field(default_factory=list)  # audits' expert share sums + n

    def state(self) -> CriterionState:
        return CriterionState(
            baseline=self.baseline.state(),
            agreement=self.agreement.state(),
            shift=self.shift.state(),
            anchors=None if self.anchors is None else self.anchors.state(),
            held=None if self.held is None else self.held.state(),
            anchor_shift=None if self.anchor_shift is None else self.anchor_shift.state(),
            fired=dict(self.fired),
            experts=[list(x) for x in self.experts],
        )

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> _Criterion:
        return cls(
            baseline=CriterionBaseline.from_dict(d["baseline"]),
            agreement=KappaEProcess.from_dict(d["agreement"]),
            shift=ShiftEProcess.from_dict(d["shift"]),
            anchors=None if d["anchors"] is None else KappaEProcess.from_dict(d["anchors"]),
            held=None if d.get("held") is None else KappaEProcess.from_dict(d["held"]),
            anchor_shift=None
            if d.get("anchor_shift") is None
            else ShiftEProcess.from_dict(d["anchor_shift"]),
            fired={str(k): str(v) for k, v in d["fired"].items()},
            experts=[[float(v) for v in x] for x in d.get("experts", [])],
        )
