"""The parts of a transcript: what produced it (provenance, sampling), the conversation's turns,
the tool-call log (calls, their authorization, the records they read and the writes the service
committed), the notification receiver's records, the harness's events and the trial's metrics.

Agent and customer text is untrusted data: kept verbatim, never evidence (`calibrant.contracts
.transcript`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    AwareDatetime,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from .case import FaultSpec
from .common import Contract, Id, MinorUnits

__all__ = [
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
]

_TURN_OPTIONAL = ("message_id", "with_tool_call", "seen_by_customer")


def _omit_none(data: Any, names: tuple[str, ...]) -> Any:
    """Drop the optional fields left unset from a dumped model, so files written before they
    existed read, write and hash byte for byte as they did."""
    if isinstance(data, dict):
        for name in names:
            if data.get(name) is None:
                data.pop(name, None)
    return data


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
