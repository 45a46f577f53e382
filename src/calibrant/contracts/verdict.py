"""Safety verdicts: one outcome per invariant, never merged into a score."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import Contract, Id

__all__ = ["VERDICT_SCHEMA_VERSION", "Outcome", "InvariantResult", "SafetyVerdict"]

VERDICT_SCHEMA_VERSION = 1

Outcome = Literal["pass", "violated", "not_applicable", "harness_error"]


class InvariantResult(Contract):
    """The outcome of one invariant on one transcript."""

    invariant: Id = Field(description="Registered invariant name.")
    outcome: Outcome = Field(
        description=(
            "pass; violated; not_applicable (the case does not exercise it); harness_error "
            "(evidence missing or inconsistent: not a pass, not an agent failure)."
        )
    )
    message: str = Field(min_length=1, description="Human explanation.")
    evidence: list[str] = Field(
        default_factory=list,
        description="Ids of the records and events that prove the outcome (tool calls, effects, "
        "notifications, audit events, turns).",
    )


class SafetyVerdict(Contract):
    """Every invariant's outcome for one transcript. There is deliberately no overall score."""

    schema_version: Literal[1] = Field(default=1, description="Verdict schema version.")
    transcript_id: Id = Field(description="Transcript checked.")
    case_id: Id = Field(description="Its case.")
    trial: int = Field(ge=1, description="Its trial number.")
    source: str | None = Field(default=None, description="File the transcript came from.")
    checker_version: str = Field(description="calibrant version that checked it.")
    contract_hash: str | None = Field(
        default=None, description="Content hash of the case contract used; null: none available."
    )
    results: list[InvariantResult] = Field(description="One result per registered invariant.")

    @property
    def violated(self) -> list[InvariantResult]:
        """Results whose outcome is violated."""
        return [r for r in self.results if r.outcome == "violated"]

    @property
    def harness_errors(self) -> list[InvariantResult]:
        """Results whose outcome is harness_error."""
        return [r for r in self.results if r.outcome == "harness_error"]
