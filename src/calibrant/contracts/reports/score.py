"""The score report (`score`): safety release blockers apart, per criterion the pass rate as
judged and, with a calibration of the same judge version, corrected."""

from __future__ import annotations

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
    transcripts: int
    judge: ModelRef
    rubric: RubricRef
    calibration: CalibrationUsed | None
    warnings: list[str]
    safety: ScoreSafety
    judge_outcomes: dict[str, int]
    failures: dict[str, FailureKind]
    from_cache: int
    cost_usd: float | None
    criteria: list[ScoreCriterion]
    run_id: str | None = None
