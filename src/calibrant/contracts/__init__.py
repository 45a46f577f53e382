"""Data contracts: the project's public language. Pydantic models, no I/O.

A pack's own record models live in its pack; the names a pack moved out of here are still
given for code that imported them from here (`FileForm.exports`, found through the installed
packs)."""

from typing import Any

from .case import (
    CASE_SCHEMA_VERSION,
    CaseContract,
    DomainFixture,
    DomainOutcome,
    FaultSpec,
    InvariantSettings,
)
from .common import Contract, MinorUnits, canonical_json, content_hash
from .domain import DomainNamed
from .judgment import (
    FINAL_OUTCOMES,
    JUDGE_OUTCOMES,
    CriterionJudgment,
    JudgeConfig,
    JudgeOutcome,
    Judgment,
)
from .label import CANT_TELL, Label
from .records import DomainSnapshot, DomainTenant
from .rubric import INSUFFICIENT_EVIDENCE, NOT_APPLICABLE, Criterion, Example, Level, Rubric, Scale
from .transcript import (
    AcceptedMessage,
    Authorization,
    CommittedWrite,
    HarnessEvent,
    Metrics,
    NotificationAttempt,
    NotificationSink,
    Provenance,
    RecordRef,
    Sampling,
    ToolCall,
    Transcript,
    Turn,
)
from .verdict import InvariantResult, Outcome, SafetyVerdict

__all__ = [
    "DomainFixture",
    "DomainOutcome",
    "DomainSnapshot",
    "DomainTenant",
    "DomainNamed",
    "CANT_TELL",
    "CASE_SCHEMA_VERSION",
    "FINAL_OUTCOMES",
    "JUDGE_OUTCOMES",
    "CriterionJudgment",
    "JudgeConfig",
    "JudgeOutcome",
    "Judgment",
    "INSUFFICIENT_EVIDENCE",
    "NOT_APPLICABLE",
    "AcceptedMessage",
    "Authorization",
    "CaseContract",
    "CommittedWrite",
    "Contract",
    "Criterion",
    "Example",
    "FaultSpec",
    "HarnessEvent",
    "InvariantResult",
    "InvariantSettings",
    "Label",
    "Level",
    "Metrics",
    "MinorUnits",
    "NotificationAttempt",
    "NotificationSink",
    "Outcome",
    "Provenance",
    "RecordRef",
    "Rubric",
    "SafetyVerdict",
    "Sampling",
    "Scale",
    "ToolCall",
    "Transcript",
    "Turn",
    "canonical_json",
    "content_hash",
]


def __getattr__(name: str) -> Any:
    """A name a domain pack moved out of the contracts (its `FileForm.exports`)."""
    if name.startswith("_"):
        raise AttributeError(f"module 'calibrant.contracts' has no attribute '{name}'")
    from .forms import exported

    try:
        return exported(name)
    except AttributeError:
        raise AttributeError(f"module 'calibrant.contracts' has no attribute '{name}'") from None
