"""The operations behind the agent's tools. Each runs in one transaction, advances the logical
clock once, and reports its authorization decision, the records it read and the writes it
committed (the engine's ToolSet.run, on the refund shop's tools)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlmodel import Session

from .service import Caller, Handled, RefundService
from .tools import REFUND_TOOLS

__all__ = ["OPERATIONS", "Operation", "run_operation"]

Operation = Callable[[RefundService, Session, Caller, str, int, dict[str, Any]], Handled]


OPERATIONS: dict[str, Operation] = {t.name: t.handler for t in REFUND_TOOLS.tools}


def run_operation(
    svc: RefundService, name: str, caller: Caller, call_id: str, args: dict[str, Any]
) -> Handled:
    """Run one operation in its own transaction. Denials and refusals commit nothing but still
    advance the clock."""
    return REFUND_TOOLS.run(svc, name, caller, call_id, args)
