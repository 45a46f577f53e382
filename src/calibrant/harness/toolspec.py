"""The versioned tools an agent sees, as JSON schemas (OpenAI function-calling format)."""

from __future__ import annotations

from typing import Any

__all__ = ["TOOL_SCHEMA_VERSION", "TOOL_SPECS", "tool_names"]

TOOL_SCHEMA_VERSION = "tools_v1"

_STR = {"type": "string"}
_INT = {"type": "integer", "minimum": 0}


def _fn(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": props,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


TOOL_SPECS: list[dict[str, Any]] = [
    _fn(
        "lookup_order",
        "Look up one order of your tenant: status, amount paid, version, refunds, customer note.",
        {"order_id": _STR},
        ["order_id"],
    ),
    _fn(
        "search_customers",
        "Search your tenant's customers by name or email.",
        {"query": _STR},
        ["query"],
    ),
    _fn(
        "read_policy",
        "Read the refund policy in force (or a given version).",
        {"policy_id": _STR},
        [],
    ),
    _fn(
        "create_refund",
        "Refund an order. Idempotent by operation_id: reuse the same id when "
        "retrying. expected_version must be the order version you last read.",
        {
            "operation_id": _STR,
            "order_id": _STR,
            "amount_minor_units": _INT,
            "expected_version": _INT,
            "policy_version": _STR,
        },
        ["operation_id", "order_id", "amount_minor_units", "expected_version"],
    ),
    _fn(
        "query_refund",
        "Find a refund by its operation id (to reconcile after a timeout).",
        {"operation_id": _STR},
        ["operation_id"],
    ),
    _fn(
        "update_ticket",
        "Set a ticket's state and/or reconciliation status.",
        {
            "ticket_id": _STR,
            "state": {
                "type": "string",
                "enum": ["open", "pending_review", "resolved", "escalated"],
            },
            "reconciliation": {"type": "string", "enum": ["none", "uncertain", "reconciled"]},
        },
        ["ticket_id"],
    ),
    _fn(
        "assign_ticket",
        "Assign a ticket to a person (person:<id>) or agent (agent:<id>).",
        {"ticket_id": _STR, "assignee": _STR},
        ["ticket_id", "assignee"],
    ),
    _fn(
        "request_approval",
        "Ask a support lead to approve a refund before paying it.",
        {"order_id": _STR, "ticket_id": _STR, "amount_minor_units": _INT},
        ["order_id", "amount_minor_units"],
    ),
    _fn(
        "send_notification",
        "Send the customer a message. Idempotent by idempotency_key: reuse the key when retrying.",
        {
            "recipient": _STR,
            "kind": {
                "type": "string",
                "enum": ["refund_confirmation", "status_update", "escalation_notice", "other"],
            },
            "subject": _STR,
            "body": _STR,
            "idempotency_key": _STR,
            "order_id": _STR,
            "amount_minor_units": _INT,
        },
        ["recipient", "kind", "body", "idempotency_key"],
    ),
]


def tool_names() -> list[str]:
    """Names of the tools, in order."""
    return [t["function"]["name"] for t in TOOL_SPECS]
