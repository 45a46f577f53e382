"""Parts of the after-release reports that their producers build before the report: one
criterion's agreement in one audit window (`window_criterion`, which `agreement-over-time` and
the monitor quote), and the drift monitor's status after a window (`MonitorStatus.typed()`)."""

from __future__ import annotations

from pydantic import Field

from .audit import CorrectedRate
from .base import Figure, Strict
from .monitor import RuleOut, ShiftReferenceOut, Verdict
from .stats import CriterionGate, Estimate, GateComparison, PerLabel

__all__ = ["WindowAgreement", "CriterionStatusOut", "MonitorStatusOut"]


class WindowAgreement(Strict):
    """One criterion in one audit window: the judge against the experts on the audited items,
    the gate's decision, and the pass rate corrected by the judge's errors (pass/fail)."""

    criterion: str
    statistic: str
    n_items: int
    n_cases: int
    n_audited: int
    n_unresolved: int = Field(description="Audited items without an expert label yet.")
    n_single_expert: int
    coverage: float = Field(description="Share of expert-labeled items with a usable judge label.")
    kappa: Estimate
    per_label: list[PerLabel]
    gate: CriterionGate
    gate_comparison: GateComparison
    pass_rate_corrected: CorrectedRate | None
    pass_rate_audited: Figure | None
    correction: str


class CriterionStatusOut(Strict):
    """One criterion after a window of the drift monitor: each rule's state, the verdicts and
    their reasons."""

    criterion: str
    alarm: bool
    verdicts: list[Verdict]
    reasons: list[str]
    agreement: RuleOut
    shift: RuleOut
    anchors: RuleOut | None
    window_kappa_statistic: float | None = Field(
        description="Mean T of the audit's pairs this window, proportional to kappa - bar."
    )
    judged_shares: dict[str, float] | None
    baseline_shares: dict[str, int | float] = Field(
        description="The release's judged label shares, as the baseline gave them."
    )
    agreement_bar: int | float | None = Field(
        description="Rule 1's bar this window (the gate's, as given, unless lowered)."
    )
    anchors_held: RuleOut | None
    anchors_shift: RuleOut | None
    shift_reference: ShiftReferenceOut | None


class MonitorStatusOut(Strict):
    """Every criterion's status after one window (`index`: 1 for the first)."""

    window: str
    index: int
    alarm: bool
    criteria: dict[str, CriterionStatusOut]
