"""The refund shop's agent protocol and the context a trial gives its agents."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Protocol

from calibrant.contracts import Sampling
from calibrant.harness.agents import ToolCaller, Usage
from calibrant.harness.checkpoint import CheckpointStore

__all__ = ["Agent", "AgentContext", "Usage", "ToolCaller"]


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
