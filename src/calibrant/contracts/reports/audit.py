"""The audit reports: an audit sample drawn after release (`calibrant audit`, stored as the
summary of an `audit` run: what each audited item was judged, and with what probability it was
drawn), and the judge's agreement with the experts over time on audited items
(`calibrant agreement-over-time`)."""

from __future__ import annotations

from pydantic import Field

from .base import Figure, GateStatus, Report, Strict, version_field
from .stats import CriterionGate, Estimate, GateComparison, Label, PerLabel

AUDIT_SCHEMA_VERSION = 1
AGREEMENT_OVER_TIME_SCHEMA_VERSION = 1


class ScoreRunRef(Strict):
    id: str
    judge_hash: str
    judge_model: str | None
    rubric_hash: str | None
    started_at: str
    finished_at: str | None
    transcripts: int


class AuditStratum(Strict):
    stratum: str = Field(
        description="The judge's verdict on the stratified_by criteria, or `failed`."
    )
    population: int = Field(description="Scored transcripts of the run in this stratum.")
    kept: int = Field(description="Left after the per-case cap (phase 1).")
    drawn: int = Field(description="Drawn into the sample (phase 2).")


class AuditItem(Strict):
    item_id: str = Field(description="The workbench item (its transcript id).")
    queue: str = Field(description="The workbench queue holding the item.")
    new: bool = Field(description="False: the item was already in the workbench; reused.")
    transcript_hash: str
    case_id: str
    position: int = Field(description="Its row in the score run.")
    stratum: str
    judge_outcome: str
    judge_labels: dict[str, Label] = Field(description="What the judge recorded, per criterion.")
    case_probability: float
    stratum_probability: float
    inclusion_probability: float


class AuditReport(Report):
    """An audit sample of a score run (see `calibrant.scoring.audit_sample` for the design)."""

    KIND = "audit"
    VERSION = AUDIT_SCHEMA_VERSION

    schema_version: int = version_field(AUDIT_SCHEMA_VERSION)
    score_run: ScoreRunRef
    queue: str
    seed: int
    rate: float | None
    count: int | None
    per_case: int
    stratified_by: list[str] = Field(description="The criteria whose verdicts make the strata.")
    design: str
    systematic: bool = Field(
        description="Phase 2 was the systematic sample (the count below the number of strata)."
    )
    target: int = Field(description="Items asked for.")
    population: int
    kept: int
    cases: int
    drawn_cases: int
    strata: list[AuditStratum]
    items: list[AuditItem]


class WindowItem(Strict):
    case_id: str
    item_id: str
    expert_label: Label
    judge_label: Label
    single_expert: bool
    inclusion_probability: float | None


class CorrectedRate(Strict):
    """The pass rate as judged and corrected by the judge's errors on the audited items
    (Rogan-Gladen), with the sensitivity and specificity it was corrected with."""

    judged: Figure
    corrected: Figure
    sensitivity: Figure
    specificity: Figure
    note: str | None


class WindowCriterion(Strict):
    criterion: str
    statistic: str
    n_items: int
    n_cases: int
    n_audited: int
    n_unresolved: int = Field(description="Audited items without an expert label yet.")
    n_single_expert: int
    coverage: float = Field(description="Share of expert-labeled items with a usable judge label.")
    kappa: Estimate = Field(description="The judge's agreement with the experts in the window.")
    per_label: list[PerLabel]
    gate: CriterionGate
    gate_status: GateStatus
    gate_comparison: GateComparison
    pass_rate_judged: Figure | None
    pass_rate_corrected: CorrectedRate | None
    pass_rate_audited: Figure | None = Field(
        description="The experts' pass rate on the audited items, weighted by 1 / inclusion "
        "probability, case-clustered interval (pass/fail criteria)."
    )
    correction: str
    items: list[WindowItem]


class AgreementWindow(Strict):
    judge_version: str
    judge_model: str | None
    start: str
    end: str
    score_runs: list[str]
    audits: list[str]
    criteria: list[WindowCriterion]


class AgreementOverTimeReport(Report):
    """Per judge version and time window, the judge against the experts on audited items."""

    KIND = "agreement-over-time"
    VERSION = AGREEMENT_OVER_TIME_SCHEMA_VERSION

    schema_version: int = version_field(AGREEMENT_OVER_TIME_SCHEMA_VERSION)
    window: str = Field(description="day, week (from Monday) or month, UTC.")
    seed: int
    n_resamples: int
    windows: list[AgreementWindow]
    latest: dict[str, str] = Field(
        description="Judge version -> start of its latest window (the latest audit's estimate)."
    )
