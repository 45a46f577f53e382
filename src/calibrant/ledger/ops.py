"""The operations behind the agent's tools. Each runs in one transaction, advances the logical
clock once, and reports its authorization decision, the records it read and the writes it
committed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlmodel import Session

from ..contracts import Authorization
from .oplib import Fail
from .reads import lookup_order, query_refund, read_policy, search_customers
from .service import Caller, Denied, Handled, RefundService
from .writes import (
    assign_ticket,
    create_refund,
    request_approval,
    send_notification,
    update_ticket,
)

__all__ = ["OPERATIONS", "Operation", "run_operation"]

Operation = Callable[[RefundService, Session, Caller, str, int, dict[str, Any]], Handled]


OPERATIONS: dict[str, Operation] = {
    "lookup_order": lookup_order,
    "search_customers": search_customers,
    "read_policy": read_policy,
    "create_refund": create_refund,
    "query_refund": query_refund,
    "update_ticket": update_ticket,
    "assign_ticket": assign_ticket,
    "request_approval": request_approval,
    "send_notification": send_notification,
}


def run_operation(
    svc: RefundService, name: str, caller: Caller, call_id: str, args: dict[str, Any]
) -> Handled:
    """Run one operation in its own transaction. Denials and refusals commit nothing but still
    advance the clock."""
    op = OPERATIONS[name]
    with Session(svc.engine) as s:
        seq = svc.tick(s)  # the clock advances in the operation's own transaction
        try:
            handled = op(svc, s, caller, call_id, seq, args)
        except (Denied, Fail) as exc:
            s.rollback()
            svc.tick(s)  # a refusal commits nothing but still takes its instant
            s.commit()
            if isinstance(exc, Denied):
                return Handled(
                    authorization=Authorization(
                        decision="denied", reason=exc.reason, scope=exc.scope
                    ),
                    response={"error": "forbidden", "reason": exc.reason, "message": exc.message},
                    error="forbidden",
                    seq=seq,
                )
            return Handled(
                authorization=Authorization(decision="allowed"),
                response={"error": exc.code, "message": exc.message, **exc.extra},
                error=exc.code,
                seq=seq,
            )
        s.commit()
    handled.seq = seq
    return handled
