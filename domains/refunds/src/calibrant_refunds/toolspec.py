"""The versioned tools an agent sees, as JSON schemas (OpenAI function-calling format), and the
check of a call's arguments against them (what the tool adapter answers `invalid_argument` to).
The tools are declared with the refund service (calibrant_refunds.ledger.tools); the schema
check is the engine's (calibrant.engine.tools)."""

from __future__ import annotations

from typing import Any

from calibrant.contracts.wire import ToolSpec

from .ledger.tools import REFUND_TOOLS

__all__ = ["TOOL_SCHEMA_VERSION", "TOOL_SPECS", "tool_names", "argument_problems"]

TOOL_SCHEMA_VERSION = "tools_v2"
"""v2: identifiers carry the pattern and length of the data contracts' ids; amounts a maximum."""

TOOL_SPECS: list[ToolSpec] = REFUND_TOOLS.specs()
"""The refund shop's tools (declared in `ledger.tools`) in OpenAI function format."""


def tool_names() -> list[str]:
    """Names of the tools, in order."""
    return REFUND_TOOLS.names()


def argument_problems(tool: str, args: Any) -> list[str]:
    """What is wrong with a call of `tool` with `args` (decoded JSON), by the tool's schema:
    an unknown tool, arguments that are not an object, missing or unknown fields, wrong types,
    values off an enum, out of range, or not an identifier. Empty: the call may go through."""
    return REFUND_TOOLS.argument_problems(tool, args)
