"""The transcript: everything one trial of an agent on one case left behind.

Agent and customer text is untrusted data: it is kept verbatim, and nothing in calibrant ever
takes it as evidence of what happened. Evidence comes from the tool-call log, the notification
sink and the ledger snapshots read by an independent evaluator identity.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    AwareDatetime,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic_core import InitErrorDetails

from .case import FAULT_POINTS, CaseContract, FaultSpec
from .common import Contract, Id, MinorUnits
from .domain import LEGACY_DOMAIN, DomainNamed, closed_values, refuse
from .records import RECORD_KINDS, DomainSnapshot, LedgerSnapshot

__all__ = [
    "TRANSCRIPT_SCHEMA_VERSION",
    "NOTIFICATION_KINDS",
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

NOTIFICATION_KINDS: tuple[str, ...] = (
    "refund_confirmation",
    "status_update",
    "escalation_notice",
    "other",
)
"""The purposes a refunds transcript's messages may have (another domain names its own)."""

_GENERIC_WRITE_FIELDS = ("target_id", "version_before", "version_after")
_REFUND_WRITE_FIELDS = ("order_id", "order_version_before", "order_version_after")


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
    policy_version: Id = Field(description="Refund policy version in force.")
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

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
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

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _omit_none(handler(self), _TURN_OPTIONAL)

    @property
    def said_to_customer(self) -> bool:
        """An agent turn the customer saw (every agent turn, unless imported as hidden)."""
        return self.role == "agent" and self.seen_by_customer is not False


class RecordRef(Contract):
    """A record a tool call read."""

    tenant_id: Id = Field(description="Tenant that owns the record.")
    kind: Id = Field(
        description="Record kind: one the transcript's domain pack declares (refunds: customer, "
        "order, refund, ticket, approval, policy, permission or audit)."
    )
    record_id: Id = Field(description="Record id.")
    version: int | None = Field(default=None, description="Version read, for versioned records.")


class CommittedWrite(Contract):
    """A write the service committed on behalf of a tool call."""

    tenant_id: Id = Field(description="Tenant that owns the record.")
    kind: Id = Field(
        description="Record kind: one the transcript's domain pack declares (refunds: customer, "
        "order, refund, ticket, approval, policy, permission or audit)."
    )
    record_id: Id = Field(description="Record written.")
    action: Literal["create", "update"] = Field(description="Create or update.")
    operation_id: Id | None = Field(default=None, description="Operation id, for payments.")
    order_id: Id | None = Field(default=None, description="Order the write concerns.")
    expected_version: int | None = Field(
        default=None, description="Order version the caller said it was writing over."
    )
    order_version_before: int | None = Field(
        default=None, description="Order version actually current when the write applied."
    )
    order_version_after: int | None = Field(
        default=None, description="Order version after the write."
    )
    amount_minor_units: MinorUnits | None = Field(default=None, description="Amount, payments.")
    fields: dict[str, JsonValue] = Field(
        default_factory=dict, description="Fields set by the write (e.g. state, assignee)."
    )
    target_id: Id | None = Field(
        default=None,
        description="Another domain's: the versioned record the write was applied over (the "
        "refund shop's is order_id). Absent from refunds files.",
    )
    version_before: int | None = Field(
        default=None,
        description="Another domain's: the target's version current when the write applied "
        "(refunds: order_version_before). Absent from refunds files.",
    )
    version_after: int | None = Field(
        default=None,
        description="Another domain's: the target's version after the write (refunds: "
        "order_version_after). Absent from refunds files.",
    )

    @model_serializer(mode="wrap")
    def _omit_generic(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name in _GENERIC_WRITE_FIELDS:
                if data.get(name) is None:
                    data.pop(name, None)
        return data


class Authorization(Contract):
    """The service's authorization decision for one tool call."""

    decision: Literal["allowed", "denied"] = Field(description="Allowed or denied.")
    reason: str | None = Field(default=None, description="Why, e.g. tenant_boundary, expired.")
    permission_id: Id | None = Field(default=None, description="Grant that allowed it.")
    scope: str | None = Field(default=None, description="Scope checked, e.g. refund:write.")


class ToolCall(Contract):
    """One tool request of the agent, as the service saw and handled it."""

    call_id: Id = Field(description="Call id, unique in the transcript.")
    seq: int = Field(ge=0, description="Logical clock when the service handled the call.")
    at: AwareDatetime = Field(description="Time (UTC).")
    tool: str = Field(min_length=1, description="Tool name, e.g. create_refund.")
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

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
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
    kind: Id = Field(
        description="Purpose of the message (refunds: refund_confirmation, status_update, "
        "escalation_notice or other; another domain names its own)."
    )
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
    ledger_before: LedgerSnapshot | None = Field(
        default=None, description="Evaluator snapshot before the trial (null: missing evidence)."
    )
    ledger_after: LedgerSnapshot | None = Field(
        default=None, description="Evaluator snapshot after the trial (null: missing evidence)."
    )
    metrics: Metrics = Field(description="Latency, tool calls, tokens, cost.")
    snapshot_before: DomainSnapshot | None = Field(
        default=None,
        description="Another domain's evaluator snapshot before the trial, its records by kind "
        "(refunds: ledger_before). Absent from refunds files; null: missing evidence.",
    )
    snapshot_after: DomainSnapshot | None = Field(
        default=None,
        description="Another domain's evaluator snapshot after the trial (refunds: "
        "ledger_after). Absent from refunds files; null: missing evidence.",
    )
    end_state_not_judged: str | None = Field(
        default=None,
        description="Why the end state is not judged on purpose (an import with no case "
        "contract for this trace: --no-contract); end_state_matches_contract is then "
        "not_applicable with this reason. Absent: judged against the case contract.",
    )

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        """Upgrade older records; there is one version so far, so this only checks it."""
        if isinstance(data, dict) and "schema_version" not in data:
            data = {**data, "schema_version": TRANSCRIPT_SCHEMA_VERSION}
        return data

    @model_validator(mode="after")
    def _case_of_the_same_domain(self) -> Transcript:
        if self.case is not None and self.case.domain != self.domain:
            raise ValueError(
                f"the transcript is domain '{self.domain}' but its copy of case "
                f"'{self.case.case}' is domain '{self.case.domain}'"
            )
        if self.domain == LEGACY_DOMAIN:
            self._closed_on_the_refund_shop()
        else:
            self._no_refund_shop_fields()
        return self

    def _closed_on_the_refund_shop(self) -> None:
        """A refunds transcript validates as it did when its kinds, fault points and message
        kinds were the refund shop's Literals, and the other domains' fields were unknown."""
        t = "Transcript"
        if self.snapshot_before is not None or self.snapshot_after is not None:
            which = "snapshot_before" if self.snapshot_before is not None else "snapshot_after"
            _unknown(t, (which,), getattr(self, which))
        kinds: list[tuple[tuple[int | str, ...], str]] = []
        for i, c in enumerate(self.tool_calls):
            kinds += [
                (("tool_calls", i, "reads", j, "kind"), r.kind) for j, r in enumerate(c.reads)
            ]
            for j, w in enumerate(c.writes):
                kinds.append((("tool_calls", i, "writes", j, "kind"), w.kind))
                for name in _GENERIC_WRITE_FIELDS:
                    if getattr(w, name) is not None:
                        _unknown(t, ("tool_calls", i, "writes", j, name), getattr(w, name))
        closed_values(t, kinds, RECORD_KINDS)
        points = (
            (("provenance", "fault_schedule", i, "point"), f.point)
            for i, f in enumerate(self.provenance.fault_schedule)
        )
        closed_values(t, points, FAULT_POINTS)
        sent = (
            (("notifications", "attempts", i, "kind"), a.kind)
            for i, a in enumerate(self.notifications.attempts)
        )
        closed_values(t, sent, NOTIFICATION_KINDS)

    def _no_refund_shop_fields(self) -> None:
        """Another domain's transcript carries its snapshots and write targets in the generic
        fields; the refund shop's would be read as nothing."""
        t, d = "Transcript", self.domain
        for which in ("ledger_before", "ledger_after"):
            if getattr(self, which) is not None:
                new = which.replace("ledger", "snapshot")
                refuse(
                    t,
                    (which,),
                    which,
                    f"a domain '{d}' transcript carries its evaluator snapshots in "
                    f"{new}; {which} is the refund shop's",
                )
        for i, c in enumerate(self.tool_calls):
            for j, w in enumerate(c.writes):
                for old, new in zip(_REFUND_WRITE_FIELDS, _GENERIC_WRITE_FIELDS, strict=True):
                    if getattr(w, old) is not None:
                        refuse(
                            t,
                            ("tool_calls", i, "writes", j, old),
                            getattr(w, old),
                            f"a domain '{d}' transcript names the record a write was applied "
                            f"over in {new}; {old} is the refund shop's",
                        )

    def _omit_unset(self, data: dict[str, Any]) -> None:
        _omit_none(data, ("end_state_not_judged",))
        for which in ("snapshot_before", "snapshot_after"):
            if data.get(which) is None:
                data.pop(which, None)
        if self.domain != LEGACY_DOMAIN:
            for which in ("ledger_before", "ledger_after"):
                if data.get(which) is None:
                    data.pop(which, None)


_TURN_OPTIONAL = ("message_id", "with_tool_call", "seen_by_customer")


def _omit_none(data: Any, names: tuple[str, ...]) -> Any:
    """Drop the optional fields left unset from a dumped model, so files written before they
    existed read, write and hash byte for byte as they did."""
    if isinstance(data, dict):
        for name in names:
            if data.get(name) is None:
                data.pop(name, None)
    return data


def _unknown(title: str, loc: tuple[int | str, ...], value: object) -> None:
    """The error an unknown field gives: a refunds file naming another domain's field."""
    raise ValidationError.from_exception_data(
        title, [InitErrorDetails(type="extra_forbidden", loc=loc, input=value)]
    )
