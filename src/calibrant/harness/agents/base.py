"""What every domain's agents share: the model usage they report and the shape of the tools
they call (a pack's agent context carries both; see `calibrant.domains.PackAgent`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ...contracts.wire import ToolAnswer

__all__ = ["Usage", "ToolCaller"]


class ToolCaller(Protocol):
    """An agent's tools: `call` with decoded arguments, `call_json` with the model's JSON text;
    each answers the JSON object the agent reads (an error too: `{"error", "message", ...}`)."""

    def call(self, tool: str, args: dict[str, Any]) -> ToolAnswer: ...

    def call_json(self, tool: str, arguments: str | None) -> ToolAnswer: ...


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
