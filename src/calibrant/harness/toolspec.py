"""The versioned tools an agent sees, as JSON schemas (OpenAI function-calling format), and the
check of a call's arguments against them (what the tool adapter answers `invalid_argument` to)."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["TOOL_SCHEMA_VERSION", "TOOL_SPECS", "tool_names", "argument_problems"]

TOOL_SCHEMA_VERSION = "tools_v2"
"""v2: identifiers carry the pattern and length of the data contracts' ids; amounts a maximum."""

_STR = {"type": "string"}
_ID = {
    "type": "string",
    "pattern": r"^[A-Za-z0-9_.:\-/@+]+$",
    "maxLength": 200,
    "description": "An identifier: letters, digits and _ . : - / @ + (no spaces).",
}
_INT = {"type": "integer", "minimum": 0, "maximum": 10**12}


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
        {"order_id": _ID},
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
        {"policy_id": _ID},
        [],
    ),
    _fn(
        "create_refund",
        "Refund an order. Idempotent by operation_id: reuse the same id when "
        "retrying. expected_version must be the order version you last read.",
        {
            "operation_id": _ID,
            "order_id": _ID,
            "amount_minor_units": _INT,
            "expected_version": _INT,
            "policy_version": _ID,
        },
        ["operation_id", "order_id", "amount_minor_units", "expected_version"],
    ),
    _fn(
        "query_refund",
        "Find a refund by its operation id (to reconcile after a timeout).",
        {"operation_id": _ID},
        ["operation_id"],
    ),
    _fn(
        "update_ticket",
        "Set a ticket's state and/or reconciliation status.",
        {
            "ticket_id": _ID,
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
        {"ticket_id": _ID, "assignee": _ID},
        ["ticket_id", "assignee"],
    ),
    _fn(
        "request_approval",
        "Ask a support lead to approve a refund before paying it.",
        {"order_id": _ID, "ticket_id": _ID, "amount_minor_units": _INT},
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
            "order_id": _ID,
            "amount_minor_units": _INT,
        },
        ["recipient", "kind", "body", "idempotency_key"],
    ),
]


def tool_names() -> list[str]:
    """Names of the tools, in order."""
    return [t["function"]["name"] for t in TOOL_SPECS]


_SPECS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOL_SPECS}
_TYPES = {"string": "a string", "integer": "an integer"}


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _value_problem(spec: dict[str, Any], value: Any) -> str | None:
    kind = spec["type"]
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return f"must be an integer (got {_shown(value)})"
        if not spec["minimum"] <= value <= spec["maximum"]:
            return f"must be between {spec['minimum']} and {spec['maximum']} (got {value})"
        return None
    if not isinstance(value, str):
        return f"must be {_TYPES[kind]} (got {_shown(value)})"
    if "enum" in spec and value not in spec["enum"]:
        return f"must be one of {', '.join(spec['enum'])} (got {_shown(value)})"
    if "maxLength" in spec and len(value) > spec["maxLength"]:
        return f"must be at most {spec['maxLength']} characters"
    if "pattern" in spec and not re.fullmatch(spec["pattern"], value):
        return (
            f"must be an identifier without spaces: letters, digits, _.:-/@+ (got {_shown(value)})"
        )
    return None


def argument_problems(tool: str, args: Any) -> list[str]:
    """What is wrong with a call of `tool` with `args` (decoded JSON), by the tool's schema:
    an unknown tool, arguments that are not an object, missing or unknown fields, wrong types,
    values off an enum, out of range, or not an identifier. Empty: the call may go through."""
    params = _SPECS.get(tool)
    if params is None:
        return [f"no tool named {_shown(tool)}; the tools are {', '.join(_SPECS)}"]
    if not isinstance(args, dict):
        return [f"arguments must be a JSON object (got {_shown(args)})"]
    props: dict[str, Any] = params["properties"]
    problems = [f"{name}: required" for name in params["required"] if name not in args]
    for name, value in args.items():
        spec = props.get(name)
        if spec is None:
            problems.append(f"{name}: unknown argument; {tool} takes {', '.join(props)}")
        elif (why := _value_problem(spec, value)) is not None:
            problems.append(f"{name}: {why}")
    return problems
