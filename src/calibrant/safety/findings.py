"""What a rule finds: an outcome, a message for people and the evidence ids behind it. The bottom
of safety/: every rule module returns these, and the registry turns them into results."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..contracts import InvariantResult, Outcome

__all__ = ["Finding", "passed", "violated", "not_applicable", "harness_error"]


@dataclass(frozen=True)
class Finding:
    """What an invariant function returns: outcome, a message for humans, evidence ids."""

    outcome: Outcome
    message: str
    evidence: tuple[str, ...] = field(default=())

    def result(self, name: str) -> InvariantResult:
        return InvariantResult(
            invariant=name,
            outcome=self.outcome,
            message=self.message,
            evidence=list(dict.fromkeys(self.evidence)),
        )


def passed(message: str, *evidence: str) -> Finding:
    return Finding("pass", message, evidence)


def violated(message: str, *evidence: str) -> Finding:
    return Finding("violated", message, evidence)


def not_applicable(message: str, *evidence: str) -> Finding:
    return Finding("not_applicable", message, evidence)


def harness_error(message: str, *evidence: str) -> Finding:
    return Finding("harness_error", message, evidence)
