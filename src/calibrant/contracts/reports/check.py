"""The safety reports: `check`'s --json document and `judge`'s report (safety outcomes and
communication judgments apart)."""

from __future__ import annotations

from pydantic import Field

from ..judgment import Judgment
from ..verdict import SafetyVerdict
from .base import CalibratedJudge, Report, RubricRef, Strict, version_field

CHECK_SCHEMA_VERSION = 1
JUDGE_SCHEMA_VERSION = 1


class SkippedFile(Strict):
    path: str
    reason: str
    detail: str = ""


class FilesRead(Strict):
    read: int = Field(description="Transcript files read.")
    skipped: list[SkippedFile] | int = Field(
        description="Files found but not read, and why (`check --json`); a stored check run "
        "records how many."
    )


class CheckReport(Report):
    """`check`'s --json document: the deterministic safety invariants of each transcript
    (its verdict, as calibrant.contracts.SafetyVerdict) and their totals."""

    KIND = "check"
    VERSION = CHECK_SCHEMA_VERSION

    schema_version: int = version_field(CHECK_SCHEMA_VERSION)
    transcripts: int
    violated_transcripts: int
    harness_error_transcripts: int
    summary: dict[str, dict[str, int]]
    verdicts: list[SafetyVerdict] = Field(default_factory=list)
    files: FilesRead | None = None  # the command's: what it read and skipped


class TranscriptSafety(Strict):
    violated: list[str]
    harness_error: list[str]
    results: dict[str, str]


class JudgedTranscript(Strict):
    transcript_id: str
    source: str
    safety: TranscriptSafety
    communication: list[Judgment]


class JudgeReport(Report):
    """`judge`'s report: per transcript, safety outcomes and communication judgments apart."""

    KIND = "judge"
    VERSION = JUDGE_SCHEMA_VERSION

    schema_version: int = version_field(JUDGE_SCHEMA_VERSION)
    judge: CalibratedJudge | None
    rubric: RubricRef
    judgments: int
    from_cache: int
    model_calls: int
    outcomes: dict[str, int]
    transcripts: list[JudgedTranscript]
    run_id: str | None = None  # the run in the store (a service job records one)
