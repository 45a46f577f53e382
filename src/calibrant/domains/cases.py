"""What a pack says about its cases where the roles are not enough: what a case says about the
record a trial is about (`CaseFocus`) and how a case is drafted from one of its transcripts
(`CaseDraft`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel

from ..contracts import Transcript

__all__ = ["CaseDraft", "CaseFocus"]


@dataclass(frozen=True)
class CaseFocus:
    """What a case says about the record a trial is about, for the rules that read effects by
    role: the record's id (`subject`), whether the case requires a person's approval before any
    effect on it, the policy version it cites, its work item's id and the totals of the case's
    effects its acceptable outcomes allow (None: any). All empty: the case says nothing (a pack
    that declares no `case_focus`)."""

    subject: str | None = None
    approval_required: bool = False
    policy: str | None = None
    work_item: str | None = None
    allowed_totals: frozenset[int] | None = None


@dataclass(frozen=True)
class CaseDraft:
    """How a case is drafted from one of the pack's transcripts (`calibrant case
    from-transcript`), where the roles are not enough:

    - `fixture(t, redact)`: the drafted case's starting state, in the model of the pack's case
      fixtures: its transcript's own case's, or one read from the evaluator's 'before'
      snapshot; every text it copies from the transcript goes through `redact` (personal data
      -> stable placeholders); a ValueError, in one line, when the starting state cannot be
      read;
    - `lost`: the fault point a lost answer stands for when the log shows no fault event (a
      production log): (the call's outcome, its tool) -> fault point."""

    fixture: Callable[[Transcript, Callable[[str], str]], BaseModel]
    lost: Mapping[tuple[str, str], str] = field(default_factory=dict)
