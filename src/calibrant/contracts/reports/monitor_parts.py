"""Parts of the after-release reports that their producers build before the report: one
criterion's agreement in one audit window (`window_criterion`, which `agreement-over-time` and
the monitor quote), the drift monitor's status after a window (`MonitorStatus.typed()`), and the
record of one window's anchors (`AnchorRecord`: an ``anchors`` run's summary in the store, which
`record_anchors` writes and the monitor reads back)."""

from __future__ import annotations

from typing import Self

from pydantic import Field, model_validator

from .audit import CorrectedRate
from .base import Figure, Report, Strict, version_field
from .monitor import AnchorsGold, RuleOut, ShiftReferenceOut, Verdict
from .stats import CriterionGate, Estimate, GateComparison, PerLabel

__all__ = [
    "ANCHORS_SCHEMA_VERSION",
    "AnchorCaseLabels",
    "AnchorRecord",
    "WindowAgreement",
    "CriterionStatusOut",
    "MonitorStatusOut",
]

ANCHORS_SCHEMA_VERSION = 2


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


class AnchorCaseLabels(Strict):
    """One drawn anchor case for one criterion: the current judge's labels on its items and the
    consensus labels, in the same order (`calibrant.monitor.Case`)."""

    case: str = Field(description="The draw's number and the case id: NNNN:CASE.")
    judge: list[str]
    expert: list[str]


class AnchorRecord(Report):
    """The anchors of one audit window, as an ``anchors`` run of the store records them
    (`record_anchors`; the monitor's rule 3 reads them). Version 1 (before issue 31) holds one
    release scoring and neither the set's size nor the release's label shares on it: those
    fields stay unset (absent when written back), and the monitor reads one scoring, no size, no
    reference. Version 2 adds ``release_scorings`` and ``anchor_cases``; its first records (until
    rule 3's second test) hold no ``baseline_anchor_reference``."""

    KIND = "anchors"
    VERSION = ANCHORS_SCHEMA_VERSION

    schema_version: int = version_field(ANCHORS_SCHEMA_VERSION)
    judge_version: str
    window: str = Field(description="day, week (from Monday) or month, UTC.")
    start: str = Field(description="The window's first instant (ISO 8601).")
    end: str
    sample_index: int = Field(description="The judge's sample number for this window's answers.")
    seed: int
    per_window: int
    drawn: list[str] = Field(description="The anchor cases drawn, with replacement, in order.")
    model_calls: int
    gold: AnchorsGold = Field(description="The anchor set: the gold folder, split and hashes.")
    baseline_anchor_kappa: dict[str, float | None] = Field(
        description="Per criterion, the released judge's case-weighted kappa on the anchor set."
    )
    release_scorings: int | None = Field(
        default=None, description="Scorings of the anchor set at release (version 2)."
    )
    anchor_cases: dict[str, int] | None = Field(
        default=None, description="Per criterion, cases in the anchor set (version 2)."
    )
    baseline_anchor_reference: dict[str, list[float] | None] | None = Field(
        default=None,
        description="Per criterion, the release scorings' label shares on the anchors, summed "
        "case by case, then the number of cases (null: none).",
    )
    cases: dict[str, list[AnchorCaseLabels]] = Field(
        description="Per criterion, the drawn cases re-judged this window."
    )

    @model_validator(mode="after")
    def _fields_of_its_version(self) -> Self:
        if self.schema_version >= 2:
            lacking = [f for f in ("release_scorings", "anchor_cases") if getattr(self, f) is None]
            if lacking:
                raise ValueError(
                    f"a schema_version {self.schema_version} record holds {lacking[0]}, this "
                    "one has none"
                )
        return self
