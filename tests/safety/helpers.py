"""Helpers for the checker's promise tests: run a real trial, change one thing, read one result."""

from __future__ import annotations

from calibrant.contracts import InvariantResult, Transcript
from calibrant.safety import check_transcript

__all__ = ["result", "revalidated"]


def revalidated(t: Transcript) -> Transcript:
    """The transcript after a round trip through its contract (as `calibrant check` reads it)."""
    return Transcript.model_validate_json(t.model_dump_json())


def result(t: Transcript, invariant: str) -> InvariantResult:
    """The checker's result for one invariant on a transcript read back from JSON."""
    verdict = check_transcript(revalidated(t))
    return next(r for r in verdict.results if r.invariant == invariant)
