"""The refund shop's tools, declared for the engine: their JSON schemas (what an agent sees),
the scopes each needs, whether it writes, its operation-id argument, and its handler."""

from __future__ import annotations

from typing import Any

from calibrant.engine import COUNT_SCHEMA, ID_SCHEMA, STRING_SCHEMA, ToolDecl, ToolSet

from .reads import lookup_order, query_refund, read_policy, search_customers
from .writes import (
    assign_ticket,
    create_refund,
    request_approval,
    send_notification,
    update_ticket,
)

__all__ = ["REFUND_TOOLS"]

_STR = STRING_SCHEMA
_ID = ID_SCHEMA
_INT = COUNT_SCHEMA


def _props(**props: dict[str, Any]) -> dict[str, Any]:
    return dict(props)


REFUND_TOOLS = ToolSet(
    [
        ToolDecl(
            "lookup_order",
            "Look up one order of your tenant: status, amount paid, version, refunds, "
            "customer note.",
            _props(order_id=_ID),
            ("order_id",),
            lookup_order,
        ),
        ToolDecl(
            "search_customers",
            "Search your tenant's customers by name or email.",
            _props(query=_STR),
            ("query",),
            search_customers,
        ),
        ToolDecl(
            "read_policy",
            "Read the refund policy in force (or a given version).",
            _props(policy_id=_ID),
            (),
            read_policy,
        ),
        ToolDecl(
            "create_refund",
            "Refund an order. Idempotent by operation_id: reuse the same id when "
            "retrying. expected_version must be the order version you last read.",
            _props(
                operation_id=_ID,
                order_id=_ID,
                amount_minor_units=_INT,
                expected_version=_INT,
                policy_version=_ID,
            ),
            ("operation_id", "order_id", "amount_minor_units", "expected_version"),
            create_refund,
            scopes=("refund:write",),
            writes=True,
            operation_id_arg="operation_id",
        ),
        ToolDecl(
            "query_refund",
            "Find a refund by its operation id (to reconcile after a timeout).",
            _props(operation_id=_ID),
            ("operation_id",),
            query_refund,
        ),
        ToolDecl(
            "update_ticket",
            "Set a ticket's state and/or reconciliation status.",
            _props(
                ticket_id=_ID,
                state={
                    "type": "string",
                    "enum": ["open", "pending_review", "resolved", "escalated"],
                },
                reconciliation={"type": "string", "enum": ["none", "uncertain", "reconciled"]},
            ),
            ("ticket_id",),
            update_ticket,
            scopes=("ticket:write",),
            writes=True,
        ),
        ToolDecl(
            "assign_ticket",
            "Assign a ticket to a person (person:<id>) or agent (agent:<id>).",
            _props(ticket_id=_ID, assignee=_ID),
            ("ticket_id", "assignee"),
            assign_ticket,
            scopes=("ticket:write",),
            writes=True,
        ),
        ToolDecl(
            "request_approval",
            "Ask a support lead to approve a refund before paying it.",
            _props(order_id=_ID, ticket_id=_ID, amount_minor_units=_INT),
            ("order_id", "amount_minor_units"),
            request_approval,
            scopes=("approval:request",),
            writes=True,
        ),
        ToolDecl(
            "send_notification",
            "Send the customer a message. Idempotent by idempotency_key: reuse the key when "
            "retrying.",
            _props(
                recipient=_STR,
                kind={
                    "type": "string",
                    "enum": ["refund_confirmation", "status_update", "escalation_notice", "other"],
                },
                subject=_STR,
                body=_STR,
                idempotency_key=_STR,
                order_id=_ID,
                amount_minor_units=_INT,
            ),
            ("recipient", "kind", "body", "idempotency_key"),
            send_notification,
            scopes=("notification:send",),
            notifies=True,
            operation_id_arg="idempotency_key",
        ),
    ]
)
