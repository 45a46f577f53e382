"""The parts a score or judge run hands out besides its report: a transcript's score row (the
`score --out` JSON line and what the store's score rows are made of), a transcript's safety
summary (what the judge report shows of a verdict, cached per file), the last line of a
streamed `judge --jsonl`, and a provider batch's run summary with the counts it ingested."""

from __future__ import annotations

from pydantic import Field

from .base import CalibratedJudge, RubricRef, Strict

__all__ = [
    "BatchSummary",
    "IngestCounts",
    "JudgeStreamSummary",
    "RowCommunication",
    "RowCriterion",
    "RowSafety",
    "SafetySummary",
    "ScoredTranscript",
]


class RowSafety(Strict):
    status: str = Field(description="violated, harness_error or pass.")
    violated: list[str]
    harness_errors: list[str]


class RowCriterion(Strict):
    label: str | int | None
    rationale: str | None
    evidence: list[str]


class RowCommunication(Strict):
    judge_hash: str
    outcome: str
    error: str | None
    criteria: dict[str, RowCriterion]


class ScoredTranscript(Strict):
    """One scored transcript: its safety outcomes beside (never merged with) the judge's
    communication verdicts (a `score --out` line; fields in the order the line gives them)."""

    source: str
    transcript_id: str
    transcript_hash: str
    safety: RowSafety
    communication: RowCommunication


class SafetySummary(Strict):
    """What the judge report shows of a safety verdict (cached per transcript file)."""

    transcript_id: str
    violated: list[str]
    harness_error: list[str]
    results: dict[str, str]


class JudgeStreamSummary(Strict):
    """The last line of a streamed `judge --jsonl`: the counts of the run."""

    schema_version: int
    judge: CalibratedJudge
    rubric: RubricRef
    transcripts: int
    judgments: int
    from_cache: int
    model_calls: int
    outcomes: dict[str, int]


class IngestCounts(Strict):
    """Provider batch results ingested: stored now, stored before, stored as failures (a later
    run retries them), and the lines stored now by outcome."""

    stored: int
    already_stored: int
    failed: int = Field(description="Error results, stored as failures a later run retries.")
    outcomes: dict[str, int] = Field(description="The lines stored now, by outcome.")


class BatchSummary(Strict):
    """A provider batch run's summary in the store (not a report): the batch, how it ended and
    what its results became."""

    run_id: str
    batch_id: str
    status: str
    resumed: bool
    requests: int
    ingested: IngestCounts
    error: str | None
