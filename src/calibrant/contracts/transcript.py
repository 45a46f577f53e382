"""The transcript: everything one trial of an agent on one case left behind.

Agent and customer text is untrusted data: it is kept verbatim, and nothing in calibrant ever
takes it as evidence of what happened. Evidence comes from the tool-call log, the notification
sink and the snapshots of the service's records read by an independent evaluator identity.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    AwareDatetime,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from . import forms
from .case import CaseContract, FaultSpec
from .common import Contract, Id, MinorUnits
from .domain import DomainNamed, closed_values, refuse, unnamed_domain
from .records import DomainSnapshot

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

_SNAPSHOTS = ("snapshot_before", "snapshot_after")
_WRITE_TARGET = ("target_id", "version_before", "version_after")


class Sampling(Contract):
    """Sampling configuration of the agent's model (empty for scripted agents)."""

    temperature: float | None = Field(default=None, ge=0, description="Temperature.")
    top_p: float | None = Field(default=None, gt=0, le=1, description="Nucleus sampling p.")
    max_tokens: int | None = Field(default=None, ge=1, description="Max output tokens per call.")
    seed: int | None = Field(default=None, description="Sampling seed, when the model takes one.")


class Provenance(Contract):
    """What produced the transcript, so two runs can be compared like for like."""

    agent: str = Field(min_length=1, description="Agent name, e.g. scripted:correct.")
    agent_model: str | None = Field(default=None, description="Model behind the agent, if any.")
    agent_version: str = Field(min_length=1, description="Agent implementation version.")
    instructions_hash: str | None = Field(
        default=None, description="Content hash of the agent's instructions."
    )
    tool_schema_version: str = Field(min_length=1, description="Version of the tool schemas.")
    policy_version: Id = Field(description="Policy version in force.")
    harness_version: str = Field(min_length=1, description="calibrant harness version.")
    sampling: Sampling = Field(default_factory=Sampling, description="Sampling configuration.")
    fault_schedule: list[FaultSpec] = Field(
        default_factory=list, description="Faults scheduled for this trial."
    )
    case_hash: str | None = Field(default=None, description="Content hash of the case contract.")
    seed: int | None = Field(default=None, description="Seed of the trial (wording, faults).")
    started_at: AwareDatetime = Field(description="Start (UTC).")
    finished_at: AwareDatetime = Field(description="End (UTC).")
    benchmark_reward: float | None = Field(
        default=None,
        description="Imported benchmark trajectories: the reward the benchmark's own evaluator "
        "gave the conversation (kept beside calibrant's verdicts, never used by them). Absent: "
        "not imported from a benchmark.",
    )

    @model_serializer(mode="wrap")  # unannotated: its JSON Schema stays the model's own
    def _omit_unset(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        return _omit_none(handler(self), ("benchmark_reward",))


class Turn(Contract):
    """One message of the conversation. Untrusted text: quoted, never obeyed, never evidence."""

    turn_id: Id = Field(description="Turn id, stable within the transcript.")
    seq: int = Field(ge=0, description="Logical clock of the trial when the message was sent.")
    at: AwareDatetime = Field(description="Time (UTC).")
    role: Literal["customer", "agent"] = Field(description="Who wrote it.")
    text: str = Field(description="Verbatim text (untrusted data).")
    message_id: Id | None = Field(
        default=None,
        description="Imported traces: the message of the trace it came from (the tool calls "
        "of the same message carry the same id). Absent: not imported, or not known.",
    )
    with_tool_call: bool | None = Field(
        default=None,
        description="Imported traces: true when the agent wrote this text in the same message "
        "as a tool call. Absent: a message of its own.",
    )
    seen_by_customer: bool | None = Field(
        default=None,
        description="false: text the customer never saw (text beside a tool call, imported "
        "with --tool-call-text hidden); it is not counted as said to the customer. Absent: "
        "seen.",
    )

    @model_serializer(mode="wrap")  # unannotated: its JSON Schema stays the model's own
    def _omit_unset(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        return _omit_none(handler(self), _TURN_OPTIONAL)

    @property
    def said_to_customer(self) -> bool:
        """An agent turn the customer saw (every agent turn, unless imported as hidden)."""
        return self.role == "agent" and self.seen_by_customer is not False


class RecordRef(Contract):
    """A record a tool call read."""

    tenant_id: Id = Field(description="Tenant that owns the record.")
    kind: Id = Field(description="Record kind: one the transcript's domain pack declares.")
    record_id: Id = Field(description="Record id.")
    version: int | None = Field(default=None, description="Version read, for versioned records.")


class CommittedWrite(Contract):
    """A write the service committed on behalf of a tool call."""

    tenant_id: Id = Field(description="Tenant that owns the record.")
    kind: Id = Field(description="Record kind: one the transcript's domain pack declares.")
    record_id: Id = Field(description="Record written.")
    action: Literal["create", "update"] = Field(description="Create or update.")
    operation_id: Id | None = Field(default=None, description="Operation id, for payments.")
    target_id: Id | None = Field(
        default=None, description="The versioned record the write was applied over."
    )
    expected_version: int | None = Field(
        default=None, description="The target's version the caller said it was writing over."
    )
    version_before: int | None = Field(
        default=None, description="The target's version actually current when the write applied."
    )
    version_after: int | None = Field(
        default=None, description="The target's version after the write."
    )
    amount_minor_units: MinorUnits | None = Field(default=None, description="Amount, payments.")
    fields: dict[str, JsonValue] = Field(
        default_factory=dict, description="Fields set by the write (e.g. state, assignee)."
    )


class Authorization(Contract):
    """The service's authorization decision for one tool call."""

    decision: Literal["allowed", "denied"] = Field(description="Allowed or denied.")
    reason: str | None = Field(default=None, description="Why, e.g. tenant_boundary, expired.")
    permission_id: Id | None = Field(default=None, description="Grant that allowed it.")
    scope: str | None = Field(default=None, description="Scope checked, e.g. booking:write.")


class ToolCall(Contract):
    """One tool request of the agent, as the service saw and handled it."""

    call_id: Id = Field(description="Call id, unique in the transcript.")
    seq: int = Field(ge=0, description="Logical clock when the service handled the call.")
    at: AwareDatetime = Field(description="Time (UTC).")
    tool: str = Field(min_length=1, description="Tool name.")
    principal: Id = Field(description="Identity the call ran as.")
    tenant_id: Id = Field(description="Tenant the call ran in.")
    arguments: dict[str, JsonValue] = Field(default_factory=dict, description="Arguments.")
    authorization: Authorization = Field(description="Authorization decision.")
    reads: list[RecordRef] = Field(default_factory=list, description="Records read.")
    writes: list[CommittedWrite] = Field(default_factory=list, description="Committed writes.")
    outcome: Literal["ok", "error", "timeout", "crash"] = Field(
        description="ok; error (the service refused); timeout or crash (response lost)."
    )
    error: str | None = Field(default=None, description="Error code, e.g. version_conflict.")
    response: JsonValue = Field(
        default=None, description="What the agent received; null when the response was lost."
    )
    message_id: Id | None = Field(
        default=None,
        description="Imported traces: the agent message that asked for the call (calls made "
        "in parallel from one message share it). Absent: not imported, or not known.",
    )

    @model_serializer(mode="wrap")  # unannotated: its JSON Schema stays the model's own
    def _omit_unset(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        return _omit_none(handler(self), ("message_id",))


class NotificationAttempt(Contract):
    """One attempt to send a message through the notification receiver."""

    attempt_id: Id = Field(description="Attempt id.")
    seq: int = Field(ge=0, description="Logical clock of the attempt.")
    at: AwareDatetime = Field(description="Time (UTC).")
    call_id: Id | None = Field(default=None, description="Tool call that made the attempt.")
    tenant_id: Id = Field(description="Tenant sending it.")
    idempotency_key: str = Field(min_length=1, description="Receiver idempotency key.")
    recipient: str = Field(min_length=1, description="Address.")
    kind: Id = Field(description="Purpose of the message: one the domain's pack names.")
    order_id: Id | None = Field(default=None, description="Order the message is about.")
    amount_minor_units: MinorUnits | None = Field(
        default=None, description="Amount the message states, minor units."
    )
    subject: str = Field(default="", description="Subject (untrusted text).")
    body: str = Field(description="Body (untrusted text).")
    result: Literal["accepted", "duplicate", "rejected"] = Field(
        description="accepted; duplicate (key seen before, not delivered again); rejected."
    )


class AcceptedMessage(Contract):
    """A message the receiver accepted for delivery."""

    message_id: Id = Field(description="Receiver message id.")
    attempt_id: Id = Field(description="Attempt that was accepted.")
    idempotency_key: str = Field(min_length=1, description="Its idempotency key.")
    seq: int = Field(ge=0, description="Logical clock of acceptance.")


class NotificationSink(Contract):
    """The notification receiver's records: attempts and accepted messages kept apart."""

    attempts: list[NotificationAttempt] = Field(default_factory=list, description="Attempts.")
    accepted: list[AcceptedMessage] = Field(default_factory=list, description="Accepted.")


class HarnessEvent(Contract):
    """Something the harness did or saw: a fault fired, a crash, a resume, a checkpoint."""

    event_id: Id = Field(description="Event id.")
    seq: int = Field(ge=0, description="Logical clock.")
    kind: Literal[
        "fault_fired",
        "crash",
        "resume",
        "checkpoint_saved",
        "checkpoint_loaded",
        "external_change",
        "harness_error",
    ] = Field(description="Event kind. harness_error: the harness itself failed.")
    fault: str | None = Field(default=None, description="Fault point, for fault events.")
    call_id: Id | None = Field(default=None, description="Tool call involved, if any.")
    detail: str = Field(default="", description="Human description.")


class Metrics(Contract):
    """Cost and speed of the trial."""

    latency_ms: float = Field(ge=0, description="Wall time of the trial, milliseconds.")
    tool_calls: int = Field(ge=0, description="Number of tool calls.")
    model_calls: int = Field(default=0, ge=0, description="Number of model calls.")
    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens.")
    cached_tokens: int = Field(default=0, ge=0, description="Prompt tokens served from cache.")
    cost_usd: float | None = Field(
        default=None,
        ge=0,
        description="Model cost estimate in USD (not business money); null: unknown.",
    )


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
            data = _read_form(data)
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


_TURN_OPTIONAL = ("message_id", "with_tool_call", "seen_by_customer")


def _omit_none(data: Any, names: tuple[str, ...]) -> Any:
    """Drop the optional fields left unset from a dumped model, so files written before they
    existed read, write and hash byte for byte as they did."""
    if isinstance(data, dict):
        for name in names:
            if data.get(name) is None:
                data.pop(name, None)
    return data


def _read_form(data: dict[str, Any]) -> dict[str, Any]:
    """A transcript's data in the generic spelling: read by its pack's form when the pack
    spells it its own way; another pack's spelling in a generic file is refused, naming the
    generic field."""
    domain = data.get("domain")
    if domain is None:
        domain = unnamed_domain("Transcript")
        data = {**data, "domain": domain}
    form = forms.form_of(domain) if isinstance(domain, str) else None
    if form is not None and form.transcript_in is not None:
        return form.transcript_in(data)
    _case_of_the_same_domain(data, str(domain))
    return _no_other_spelling(data, str(domain), () if form is None else tuple(form.spellings))


def _case_of_the_same_domain(data: dict[str, Any], domain: str) -> None:
    """The case copy's domain, checked before the fields are: a transcript relabelled to
    another domain is refused for that first, not for the fields its old domain spells."""
    case = data.get("case")
    if isinstance(case, dict):
        theirs, name = case.get("domain") or unnamed_domain("Transcript"), case.get("case")
    elif isinstance(case, CaseContract):
        theirs, name = case.domain, case.case
    else:
        return
    if theirs != domain:
        raise ValueError(
            f"the transcript is domain '{domain}' but its copy of case '{name}' is domain "
            f"'{theirs}'"
        )


def _no_other_spelling(data: dict[str, Any], domain: str, own: tuple[str, ...]) -> dict[str, Any]:
    """Refuse a field another pack's form spells (its own name for `snapshot_before`, in a
    transcript of a domain that has no such name), saying which generic field holds it."""
    t = "Transcript"

    def check(loc: tuple[int | str, ...], found: dict[str, Any]) -> list[str]:
        """The keys of `found` to drop: another pack's spelling left empty (a file calibrant
        wrote before forms existed carried them, null); any other is refused."""
        drop: list[str] = []
        for name in found:
            if name in own or name in model_fields:
                continue
            other = forms.spelled_by(name, forms.known_forms())
            if other is None or other.domain == domain:
                continue
            if found[name] is None and loc:
                drop.append(name)
                continue
            generic = other.spellings[name]
            what = (
                "carries its evaluator snapshots"
                if generic in _SNAPSHOTS
                else "names the record a write was applied over"
            )
            refuse(
                t,
                (*loc, name),
                name,
                f"a domain '{domain}' transcript {what} in {generic}; {name} is domain "
                f"'{other.domain}''s spelling",
            )
        return drop

    model_fields = Transcript.model_fields
    check((), data)
    model_fields = CommittedWrite.model_fields
    calls = data.get("tool_calls")
    if not isinstance(calls, list):
        return data
    out: list[Any] = []
    for i, c in enumerate(calls):
        writes = c.get("writes") if isinstance(c, dict) else None
        if isinstance(writes, list):
            kept: list[Any] = []
            for j, w in enumerate(writes):
                drop = check(("tool_calls", i, "writes", j), w) if isinstance(w, dict) else []
                kept.append({k: v for k, v in w.items() if k not in drop} if drop else w)
            c = {**c, "writes": kept}
        out.append(c)
    return {**data, "tool_calls": out}
