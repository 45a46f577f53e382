"""The Agent protocol and the context a trial gives an agent."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...contracts import Sampling
from ..checkpoint import CheckpointStore

__all__ = ["Agent", "AgentContext", "Usage", "ToolCaller"]


class ToolCaller(Protocol):
    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]: ...

    def call_json(self, tool: str, arguments: str | None) -> dict[str, Any]: ...


@dataclass
class Usage:
    """Model usage an agent reports (zero for scripted agents)."""

    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None

    def add_cost(self, cost: float | None) -> None:
        if cost is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost


@dataclass
class AgentContext:
    """Everything an agent may use: its tools, its ticket, the authenticated customer, a durable
    checkpoint store, and a seeded random source (for wording only)."""

    tools: ToolCaller
    tenant_id: str
    ticket_id: str
    order_id: str | None
    customer_id: str
    customer_name: str
    customer_email: str
    checkpoints: CheckpointStore
    rng: random.Random
    usage: Usage = field(default_factory=Usage)
    thread: str = "main"
    escalation_person: str = "person:ana.lead"
    trial_id: str = ""

    def save(self, state: dict[str, Any]) -> None:
        self.checkpoints.save(self.thread, state)

    def public_context(self) -> dict[str, Any]:
        """What an agent in another process is told about the trial (`calibrant sandbox`)."""
        return {
            "tenant_id": self.tenant_id,
            "ticket_id": self.ticket_id,
            "order_id": self.order_id,
            "customer_id": self.customer_id,
            "customer_name": self.customer_name,
            "customer_email": self.customer_email,
            "escalation_person": self.escalation_person,
        }

    def load(self) -> dict[str, Any]:
        return self.checkpoints.load(self.thread) or {}


class Agent(Protocol):
    """An agent answers one customer message at a time, using tools in between."""

    # read by the runner for the transcript's provenance, never set by it
    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    @property
    def instructions_hash(self) -> str | None: ...

    @property
    def sampling(self) -> Sampling: ...

    def respond(self, ctx: AgentContext, message: str) -> str:
        """Handle one customer message and return the reply text. May raise AgentCrash (from a
        tool call at a crash fault point); the runner then resumes a fresh instance."""
        ...
