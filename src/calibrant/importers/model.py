"""What a parser makes of one trace, whatever its format: an ordered list of turns and tool
calls, with the attributes the trace names. The builder turns it into a transcript."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import Field, JsonValue

from ..contracts.common import Contract

__all__ = [
    "ATTR_CASE",
    "ATTR_TENANT",
    "ATTR_PRINCIPAL",
    "FORMATS",
    "TraceFormat",
    "TraceTurn",
    "TraceCall",
    "ParsedTrace",
    "ImportOptions",
    "ImportedTrace",
    "ImportResult",
    "Assumption",
    "TOOL_CALL_TEXT",
]

TOOL_CALL_TEXT: tuple[str, ...] = ("shown", "hidden")
"""Whether the customer saw the text an agent sent in the same message as a tool call."""

TraceFormat = Literal["chat", "otel", "tau-bench"]
FORMATS: tuple[str, ...] = ("chat", "otel", "tau-bench")

ATTR_CASE = "calibrant.case"
ATTR_TENANT = "calibrant.tenant"
ATTR_PRINCIPAL = "calibrant.agent_principal"


@dataclass
class TraceTurn:
    """A message said to the customer (agent) or by the customer (customer)."""

    role: Literal["customer", "agent"]
    text: str
    time: datetime | None = None
    message_id: str | None = None  # the trace's message it came from
    with_tool_call: bool = False  # agent text sent in the same message as a tool call
    seen_by_customer: bool | None = None  # False: text the customer never saw


@dataclass
class TraceCall:
    """A tool call the agent asked for, and what came back to it (untrusted: what it saw)."""

    call_id: str
    tool: str
    arguments: dict[str, JsonValue]
    where: str  # file:line or JSON path of the request, for error messages
    answered: bool = False
    result: JsonValue = None
    time: datetime | None = None
    message_id: str | None = None  # the agent message that asked for it (parallel calls share it)
    source_id: str | None = None  # the trace's own id when it was reused (call_id is then unique)


@dataclass
class ParsedTrace:
    """One conversation (chat) or one trace id (otel), ready for the builder."""

    trace_id: str
    source: Path
    where: str  # "file:line" or "file" — for error messages
    events: list[TraceTurn | TraceCall] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)
    instructions: str | None = None
    model: str | None = None
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    latency_ms: float | None = None
    started: datetime | None = None
    finished: datetime | None = None
    assumptions: dict[str, int] = field(default_factory=dict)  # what was assumed -> how often
    messages: int = 0  # messages numbered so far (formats with no message ids of their own)
    trial: int | None = None  # the trial number (from 1) when the trace says it
    reward: float | None = None  # a benchmark's own reward for the conversation

    def assume(self, what: str, times: int = 1) -> None:
        self.assumptions[what] = self.assumptions.get(what, 0) + times


class ImportOptions(Contract):
    """What `calibrant import` reads and where it writes."""

    format: TraceFormat = Field(
        description="chat (chat-completions messages), otel (OTLP JSON) or tau-bench "
        "(tau-bench / tau2-bench trajectory files as published)."
    )
    paths: list[Path] = Field(min_length=1, description="Trace files.")
    out: Path = Field(description="Folder to create with one transcript JSON per trace.")
    domain: str | None = Field(
        default=None,
        description="Domain of the transcripts: an installed domain pack's name (default: the "
        "case's domain, else the pack that reads files naming no domain).",
    )
    case: Path | None = Field(default=None, description="Case contract (YAML) every trace ran.")
    cases: Path | None = Field(
        default=None,
        description="Folder of case contracts (YAML): each trace gets the case its case id "
        "(calibrant.case, or the mapping) names.",
    )
    case_map: Path | None = Field(
        default=None,
        description="JSON or YAML object: trace id -> case id (overrides the trace's "
        "calibrant.case).",
    )
    no_contract: bool = Field(
        default=False,
        description="A trace with no case contract is imported with its end state not judged "
        "(end_state_matches_contract: not_applicable), instead of refused.",
    )
    tool_call_text: Literal["shown", "hidden"] = Field(
        default="shown",
        description="Whether the customer saw text the agent sent in the same message as a "
        "tool call (shown: it counts as said to the customer).",
    )
    snapshots: Path | None = Field(
        default=None,
        description="Folder of system-of-record snapshots: <trace id>/before.json and after.json.",
    )
    before: Path | None = Field(default=None, description="Snapshot before (one trace only).")
    after: Path | None = Field(default=None, description="Snapshot after (one trace only).")
    tenant: str | None = Field(default=None, description="Tenant the agent acts for.")
    agent_principal: str | None = Field(default=None, description="The agent's identity.")
    agent: str | None = Field(default=None, description="Agent name for the provenance.")


class ImportedTrace(Contract):
    """One transcript written."""

    trace_id: str = Field(description="Conversation or trace id.")
    transcript_id: str = Field(description="Transcript id.")
    file: str = Field(description="Transcript file written (its name in the output folder).")
    source: str = Field(description="Where the trace came from (file, and line for JSONL).")
    missing_snapshots: list[str] = Field(
        default_factory=list, description="before and/or after: snapshots that were not given."
    )
    case_id: str | None = Field(default=None, description="The case the transcript ran.")
    contract: bool = Field(
        default=True, description="False: imported with no case contract (end state not judged)."
    )


class Assumption(Contract):
    """Something the import assumed because the trace did not say it."""

    what: str = Field(description="What was assumed.")
    times: int = Field(ge=1, description="How many times, over every trace.")
    traces: list[str] = Field(description="The traces it was assumed for.")


class ImportResult(Contract):
    """What an import wrote."""

    format: TraceFormat = Field(description="Format read.")
    domain: str = Field(description="Domain of the transcripts.")
    out: str = Field(description="Output folder.")
    files_read: int = Field(ge=0, description="Trace files read.")
    transcripts: list[ImportedTrace] = Field(description="One per trace, in input order.")
    assumptions: list[Assumption] = Field(
        default_factory=list, description="What the import assumed, and for which traces."
    )

    def summary(self) -> str:
        """One line for the terminal."""
        missing = sum(1 for t in self.transcripts if t.missing_snapshots)
        note = f", {missing} without their snapshots (harness_error)" if missing else ""
        waived = sum(1 for t in self.transcripts if not t.contract)
        if waived:
            note += f", {waived} with no case contract (end state not judged)"
        lines = [
            f"imported {len(self.transcripts)} trace(s) ({self.format}) from "
            f"{self.files_read} file(s) into {self.out}{note}"
        ]
        for a in self.assumptions:
            shown = ", ".join(a.traces[:5]) + (", ..." if len(a.traces) > 5 else "")
            lines.append(
                f"assumed: {a.what} ({a.times} time(s), {len(a.traces)} trace(s): {shown})"
            )
        return "\n".join(lines)
