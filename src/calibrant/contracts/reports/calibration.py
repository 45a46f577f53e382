"""The calibration report (`calibrate`): per criterion the judge against the experts' consensus and
the experts against each other, the release gate, and the safety invariants apart."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from .base import (
    CalibratedJudge,
    Figure,
    GateStatus,
    Report,
    RubricRef,
    Strict,
    version_field,
)
from .calibration_parts import CalibrationRun, ExpertsSection, RobustnessSection, RunToRunSection
from .stats import (
    Applicability,
    CriterionGate,
    Estimate,
    GateComparison,
    Label,
    PairEstimate,
    PerLabel,
    RaterEstimate,
)

CALIBRATION_SCHEMA_VERSION = 2  # 2: issue 18 gate (gate_comparison, per_label, run_to_run, ...)


class GoldInfo(Strict):
    root: str
    hashes: dict[str, str]
    raters: list[str]
    unlabeled_criteria: list[str] = Field(default_factory=list)
    unlabeled_items: list[str] | None = None
    unlabeled_note: str | None = None
    source: str | None = None  # where the folder came from, e.g. a workbench queue exported


class CalibrationSettings(Strict):
    seed: int
    n_resamples: int
    confidence: float
    bootstrap: str
    min_lower: float | None = None
    min_items: int
    min_cases: int | None = None
    min_expert_cases: int | None = None
    margin: float | None = None
    gate_confidence: float | None = None
    gate_rule: str | None = None
    min_coverage: float | None = None
    use_ceiling: bool | None = None
    revise_below: float
    target_width: float


class Gate(Strict):
    criteria: dict[str, GateStatus]
    judge: GateStatus
    robustness: GateStatus | None = None  # the probe run's gate, when it is required


class Coverage(Strict):
    n_items: int
    usable: int
    abstained: int
    not_applicable_on_rated: int = 0  # judge said not_applicable where the consensus rated
    failed: dict[str, int]
    covered_pairs: int
    coverage: float
    coverage_ci95: list[float] | None


class Confusion(Strict):
    rows_consensus: list[str]
    columns_judge: list[str]
    counts: list[list[int]]


class ItemsNeeded(Strict):
    target_width: float
    items: int | None
    unit: Literal["items", "cases"]
    undefined_reason: str | None


class Disagreement(Strict):
    item: str
    case: str
    consensus: str | int
    experts: dict[str, Label]
    experts_unanimous: bool
    judge: str | int
    rationale: str | None
    evidence: list[str]
    invalid_evidence: list[str] = Field(default_factory=list)
    consensus_note: str | None = None
    distance: int


class CaseErrors(Strict):
    """The judge's pass/fail errors in one calibration case (what `score` corrects with)."""

    case: str
    true_pass: int
    false_fail: int
    true_fail: int
    false_pass: int


class CalibrationCriterion(Strict):
    criterion: str
    title: str
    scale: list[str]
    level: Literal["nominal", "ordinal"]
    statistic: str
    n_items: int
    judge_vs_consensus: Estimate
    judge_vs_consensus_other: dict[str, Estimate]
    judge_vs_each_expert: list[RaterEstimate]
    expert_ceiling: Estimate | None
    expert_ceiling_statistic: str
    expert_ceiling_explanation: str | None
    expert_pairs: list[PairEstimate]
    revise_rubric: bool
    coverage: Coverage
    with_abstention_category: Estimate
    confusion: Confusion
    not_applicable: Applicability | None
    gate: CriterionGate
    gate_comparison: GateComparison | None = None
    per_label: list[PerLabel] | None = None
    items_needed_for_width: ItemsNeeded
    notes: list[str]
    disagreements: list[Disagreement]
    baseline_sentence: str | None = None
    pass_fail_by_case: list[CaseErrors] | None = None


class InvariantCounts(Strict):
    violated: int
    violated_rate: Figure
    # "pass" is a Python keyword: the field is named pass_ and reads and writes "pass"
    pass_: int = Field(alias="pass")
    not_applicable: int
    harness_error: int
    n: int

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)


class CalibrationSafety(Strict):
    n_transcripts: int
    transcripts_with_violations: list[str]
    transcripts_with_harness_errors: list[str]
    invariants: dict[str, InvariantCounts]
    violations_by_item: dict[str, list[str]]
    note: str


class PairSide(Strict):
    item: str
    role: str
    agent: str | None
    style: str | None
    safety_violations: list[str]
    consensus: dict[str, str | int | None]
    judge: dict[str, str | int | None] | None
    judge_outcome: str | None


class CalibrationPair(Strict):
    pair: str
    case: str
    sides: list[PairSide]


class CalibrationReport(Report):
    """`calibrate`'s report: per criterion the judge against the experts' consensus and the
    experts against each other, the release gate, and the safety invariants apart."""

    KIND = "calibration"
    VERSION = CALIBRATION_SCHEMA_VERSION

    schema_version: int = version_field(CALIBRATION_SCHEMA_VERSION)
    calibrant_version: str = Field(description="The calibrant version that made it.")
    created_at: str = Field(description="When it was made (UTC, ISO 8601).")
    split: str = Field(description="The gold split measured: calibration, heldout or all.")
    n_items: int = Field(description="Gold items measured.")
    judge: CalibratedJudge | None = Field(description="The judge configuration measured.")
    rubric: RubricRef = Field(description="The rubric judged on.")
    gold: GoldInfo = Field(description="The gold set: where, its hashes, its raters.")
    settings: CalibrationSettings = Field(description="Bootstrap and gate settings.")
    warnings: list[str] = Field(default_factory=list)
    judge_outcomes: dict[str, int] = Field(description="Judgments by outcome.")
    run: CalibrationRun = Field(default_factory=CalibrationRun)
    gate: Gate = Field(description="The release gate, per criterion and for the judge.")
    criteria: list[CalibrationCriterion] = Field(description="Each criterion in detail.")
    experts: ExpertsSection | None = None
    safety: CalibrationSafety = Field(description="Safety invariants, apart from quality.")
    calibration_pairs: list[CalibrationPair] = Field(default_factory=list)
    robustness: RobustnessSection | None = None
    run_to_run: RunToRunSection | None = None
    run_id: str | None = None
