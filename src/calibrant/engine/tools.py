"""Tool declarations: what an agent may call on a controlled service. A tool has a name, a
description, the JSON schema of its arguments, the scopes it needs, whether it writes (or sends
a message), the argument holding its operation id, and the handler that does its work.

`ToolSet.run` runs one call in its own transaction: the clock advances, the scopes are checked
against the grants valid at that instant, a writing tool's operation id must be present, then
the handler runs. A refusal commits nothing but still takes its instant."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from ..contracts import Authorization
from ..contracts.wire import ToolSpec
from .service import Caller, Denied, Fail, Handled, Service

__all__ = ["Handler", "ToolDecl", "ToolSet", "ID_SCHEMA", "STRING_SCHEMA", "COUNT_SCHEMA"]

Handler = Callable[..., Handled]
"""handler(svc, session, caller, call_id, seq, args) -> Handled (see `ok`); raises Denied or
Fail to refuse."""

STRING_SCHEMA: dict[str, Any] = {"type": "string"}
ID_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": r"^[A-Za-z0-9_.:\-/@+]+$",
    "maxLength": 200,
    "description": "An identifier: letters, digits and _ . : - / @ + (no spaces).",
}
COUNT_SCHEMA: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": 10**12}


@dataclass(frozen=True)
class ToolDecl:
    """One tool. `properties` and `required` are its arguments' JSON schema (types string and
    integer; enum, pattern, maxLength, minimum, maximum); `scopes` the grants a call needs
    (none: membership of the tenant); `writes`: it commits records, so `operation_id_arg` (if
    declared) must be present; `notifies`: it sends through the notification sink, idempotent
    by `operation_id_arg`."""

    name: str
    description: str
    properties: dict[str, Any]
    required: tuple[str, ...]
    handler: Handler
    scopes: tuple[str, ...] = ()
    writes: bool = False
    notifies: bool = False
    operation_id_arg: str | None = None

    def __post_init__(self) -> None:
        for name in self.required:
            if name not in self.properties:
                raise ValueError(f"tool {self.name}: required argument {name} is not a property")
        if self.operation_id_arg is not None and self.operation_id_arg not in self.properties:
            raise ValueError(
                f"tool {self.name}: operation id argument {self.operation_id_arg} is not a property"
            )
        if isinstance(self.scopes, str):
            raise ValueError(f"tool {self.name}: scopes must be a tuple of scope names")

    def spec(self) -> ToolSpec:
        """The tool in OpenAI function-calling format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": self.properties,
                    "required": [*self.required],
                    "additionalProperties": False,
                },
            },
        }


class ToolSet:
    """A service's tools, in the order an agent sees them."""

    def __init__(self, tools: Iterable[ToolDecl]) -> None:
        self.tools = tuple(tools)
        self._by_name: dict[str, ToolDecl] = {}
        for t in self.tools:
            if t.name in self._by_name:
                raise ValueError(f"two tools named {t.name}")
            self._by_name[t.name] = t

    def __getitem__(self, name: str) -> ToolDecl:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    def specs(self) -> list[ToolSpec]:
        return [t.spec() for t in self.tools]

    def argument_problems(self, tool: str, args: Any) -> list[str]:
        """What is wrong with a call of `tool` with `args` (decoded JSON), by the tool's
        schema: an unknown tool, arguments that are not an object, missing or unknown fields,
        wrong types, values off an enum, out of range, or not an identifier. Empty: the call may
        go through."""
        decl = self._by_name.get(tool)
        if decl is None:
            return [f"no tool named {_shown(tool)}; the tools are {', '.join(self._by_name)}"]
        if not isinstance(args, dict):
            return [f"arguments must be a JSON object (got {_shown(args)})"]
        props = decl.properties
        problems = [f"{name}: required" for name in decl.required if name not in args]
        for name, value in args.items():
            spec = props.get(name)
            if spec is None:
                problems.append(f"{name}: unknown argument; {tool} takes {', '.join(props)}")
            elif (why := _value_problem(spec, value)) is not None:
                problems.append(f"{name}: {why}")
        return problems

    def run(
        self, svc: Service, name: str, caller: Caller, call_id: str, args: dict[str, Any]
    ) -> Handled:
        """Run one call of tool `name` in its own transaction (see the module's docstring)."""
        decl = self._by_name[name]
        with Session(svc.engine) as s:
            seq = svc.tick(s)  # the clock advances in the call's own transaction
            try:
                auth = svc.authorize(s, caller, decl.scopes, seq)
                op = decl.operation_id_arg
                if decl.writes and op is not None and not args.get(op):
                    raise Fail("invalid_argument", f"{op} is required")
                handled = decl.handler(svc, s, caller, call_id, seq, args)
            except (Denied, Fail) as exc:
                s.rollback()
                svc.tick(s)  # a refusal commits nothing but still takes its instant
                s.commit()
                if isinstance(exc, Denied):
                    return Handled(
                        authorization=Authorization(
                            decision="denied", reason=exc.reason, scope=exc.scope
                        ),
                        response={
                            "error": "forbidden",
                            "reason": exc.reason,
                            "message": exc.message,
                        },
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
        handled.authorization = auth
        handled.seq = seq
        return handled


_TYPES = {"string": "a string", "integer": "an integer"}


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _value_problem(spec: dict[str, Any], value: Any) -> str | None:
    kind = spec["type"]
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return f"must be an integer (got {_shown(value)})"
        low, high = spec.get("minimum"), spec.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            return f"must be between {low} and {high} (got {value})"
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
