"""The transcript: everything one trial of an agent on one case left behind.

Agent and customer text is untrusted data: it is kept verbatim, and nothing in calibrant ever
takes it as evidence of what happened. Evidence comes from the tool-call log, the notification
sink and the snapshots of the service's records read by an independent evaluator identity.

Its parts are in `transcript_parts`, the reading of a pack's file form in `transcript_form`;
both re-exported here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from . import forms
from .case import CaseContract
from .common import Id
from .domain import DomainNamed, closed_values
from .records import DomainSnapshot
from .transcript_form import _read_form
from .transcript_parts import (
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
    Turn,
    _omit_none,
)

__all__ = [
    "TRANSCRIPT_SCHEMA_VERSION",
    "Sampling",
    "Provenance",
    "Turn",
    "RecordRef",
    "CommittedWrite",
    "Authorization",
    "ToolCall",
    "NotificationAttempt",
    "AcceptedMessage",
    "NotificationSink",
    "HarnessEvent",
    "Metrics",
    "Transcript",
]

TRANSCRIPT_SCHEMA_VERSION = 1


class Transcript(DomainNamed):
    """One trial of an agent on one case."""

    schema_version: Literal[1] = Field(default=1, description="Transcript schema version.")
    transcript_id: Id = Field(description="Stable id of this transcript.")
    case_id: Id = Field(description="Case the trial ran.")
    trial: int = Field(ge=1, description="Trial number within its run, from 1.")
    tags: list[Literal["regression", "exploratory"]] = Field(
        default_factory=list, description="Tags copied from the case."
    )
    acting_tenant: Id = Field(description="Tenant the agent acts for.")
    agent_principal: Id = Field(description="The agent's identity in the service.")
    operation_ids: list[Id] = Field(
        default_factory=list, description="Stable operation ids assigned to the trial's payments."
    )
    provenance: Provenance = Field(description="Run provenance.")
    case: CaseContract | None = Field(
        default=None, description="Copy of the case contract the trial ran (optional)."
    )
    conversation: list[Turn] = Field(default_factory=list, description="Conversation turns.")
    tool_calls: list[ToolCall] = Field(default_factory=list, description="Tool-call log.")
    notifications: NotificationSink = Field(
        default_factory=NotificationSink, description="Notification receiver records."
    )
    events: list[HarnessEvent] = Field(default_factory=list, description="Harness events.")
    snapshot_before: DomainSnapshot | None = Field(
        default=None,
        description="Evaluator snapshot before the trial, its records by kind (null: missing "
        "evidence).",
    )
    snapshot_after: DomainSnapshot | None = Field(
        default=None,
        description="Evaluator snapshot after the trial, its records by kind (null: missing "
        "evidence).",
    )
    metrics: Metrics = Field(description="Latency, tool calls, tokens, cost.")
    end_state_not_judged: str | None = Field(
        default=None,
        description="Why the end state is not judged on purpose (an import with no case "
        "contract for this trace: --no-contract); end_state_matches_contract is then "
        "not_applicable with this reason. Absent: judged against the case contract.",
    )

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        """Upgrade older records (there is one version so far, so this only checks it), and
        read the file's spelling into the generic shape (its pack's `FileForm`)."""
        if isinstance(data, dict):
            if "schema_version" not in data:
                data = {**data, "schema_version": TRANSCRIPT_SCHEMA_VERSION}
            data = _read_form(data, Transcript.model_fields)
        return data

    @model_validator(mode="after")
    def _case_of_the_same_domain(self) -> Transcript:
        if self.case is not None and self.case.domain != self.domain:
            raise ValueError(
                f"the transcript is domain '{self.domain}' but its copy of case "
                f"'{self.case.case}' is domain '{self.case.domain}'"
            )
        form = forms.form_of(self.domain)
        if form is not None:
            self._closed(form)
        return self

    def _closed(self, form: forms.FileForm) -> None:
        """A transcript of a pack whose form closes its record kinds, fault points or message
        kinds is checked as when its fields were Literals of those values (same error, same
        field)."""
        t = "Transcript"
        if form.record_kinds is not None:
            kinds: list[tuple[tuple[int | str, ...], str]] = []
            for i, c in enumerate(self.tool_calls):
                kinds += [
                    (("tool_calls", i, "reads", j, "kind"), r.kind) for j, r in enumerate(c.reads)
                ]
                kinds += [
                    (("tool_calls", i, "writes", j, "kind"), w.kind) for j, w in enumerate(c.writes)
                ]
            closed_values(t, kinds, form.record_kinds)
        if form.fault_points is not None:
            points = (
                (("provenance", "fault_schedule", i, "point"), f.point)
                for i, f in enumerate(self.provenance.fault_schedule)
            )
            closed_values(t, points, form.fault_points)
        if form.message_kinds is not None:
            sent = (
                (("notifications", "attempts", i, "kind"), a.kind)
                for i, a in enumerate(self.notifications.attempts)
            )
            closed_values(t, sent, form.message_kinds)

    def _file_form(self, data: dict[str, Any], mode: str) -> dict[str, Any]:
        _omit_none(data, ("end_state_not_judged",))
        form = forms.form_of(self.domain)
        if form is not None and form.transcript_out is not None:
            return form.transcript_out(data, mode)
        return data

    def __getattr__(self, name: str) -> Any:
        """A field of a pack's own spelling (`FileForm.views`), for code written against it:
        read from the generic shape on a transcript of that pack's domain, None on another's."""
        if not name.startswith("_"):
            form = forms.form_of(self.__dict__.get("domain", ""))
            if form is not None and name in form.views:
                return form.views[name](self)
            if forms.spelled_by(name, forms.known_forms()) is not None:
                return None
        return super().__getattr__(name)  # type: ignore[misc]
