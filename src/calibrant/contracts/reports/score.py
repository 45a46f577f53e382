"""The score report (`score`): safety release blockers apart, per criterion the pass rate as
judged and, with a calibration of the same judge version, corrected."""

from __future__ import annotations

from pydantic import Field

from .base import Figure, GateStatus, ModelRef, Report, RubricRef, Strict, version_field

SCORE_SCHEMA_VERSION = 1


class CalibrationUsed(Strict):
    source: str
    run_id: str | None
    file: str | None
    split: str | None
    n_items: int | None
    n_cases: int | None
    created_at: str | None
    calibrant_version: str | None


class ScoreSafety(Strict):
    release_blockers: int
    transcripts_violating: Figure
    harness_errors: int
    by_invariant: dict[str, int]


class FailureKind(Strict):
    count: int
    sample: str | None


class ScoreCriterion(Strict):
    criterion: str
    counts: dict[str, int]
    correction: str
    distribution: dict[str, Figure] | None = None
    pass_rate_judged: Figure | None = None
    pass_rate_corrected: Figure | None = None
    correction_note: str | None = None
    judge_sensitivity: Figure | None = None
    judge_specificity: Figure | None = None
    calibration_gate: GateStatus | None = None


class ScoreReport(Report):
    """`score`'s summary: safety release blockers apart, per criterion the pass rate as judged
    and, with a calibration of the same judge version, corrected."""

    KIND = "score"
    VERSION = SCORE_SCHEMA_VERSION

    schema_version: int = version_field(SCORE_SCHEMA_VERSION)
    transcripts: int = Field(description="Transcripts scored.")
    judge: ModelRef = Field(description="The judge version that scored them.")
    rubric: RubricRef = Field(description="The rubric judged on.")
    calibration: CalibrationUsed | None = Field(
        description="The calibration correcting the pass rates (null: as judged)."
    )
    warnings: list[str] = Field(description="What to read with care.")
    safety: ScoreSafety = Field(description="Release blockers, counted apart from quality.")
    judge_outcomes: dict[str, int] = Field(description="Judgments by outcome.")
    failures: dict[str, FailureKind] = Field(description="Judge failures by kind, with a sample.")
    from_cache: int = Field(description="Judgments read from the store, not asked again.")
    cost_usd: float | None = Field(description="What the model calls cost (null: unknown).")
    criteria: list[ScoreCriterion] = Field(description="Per criterion: pass rates, counts.")
    run_id: str | None = Field(default=None, description="The run in the store (when recorded).")
