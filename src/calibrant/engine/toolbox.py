"""The tool adapter: every call an agent makes goes through the tools' schemas, the fault
schedule and the service, and lands in the tool-call log with its authorization decision,
reads and committed writes."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..contracts import Authorization, HarnessEvent, ToolCall
from ..contracts.wire import ToolAnswer
from .faults import FaultPointDecl, FaultSchedule, ScheduledFault
from .service import Caller, Handled, Service, advance
from .tools import ToolSet

__all__ = ["AgentCrash", "Recorder", "ToolBox"]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class AgentCrash(Exception):
    """The agent process died at a fault point; the runner resumes it from its checkpoint."""


@dataclass
class Recorder:
    """The trial's logs, shared by the tool box and the runner."""

    calls: list[ToolCall] = field(default_factory=list)
    events: list[HarnessEvent] = field(default_factory=list)

    def event(
        self,
        seq: int,
        kind: Any,
        detail: str,
        *,
        fault: str | None = None,
        call_id: str | None = None,
    ) -> None:
        self.events.append(
            HarnessEvent(
                event_id=f"ev_{len(self.events) + 1:03d}",
                seq=seq,
                kind=kind,
                fault=fault,
                call_id=call_id,
                detail=detail,
            )
        )


class ToolBox:
    """What an agent calls. Faults fire deterministically on the n-th call of a tool.

    `context` is what the trial knows that a fault's params may leave out (e.g. the record the
    case is about)."""

    def __init__(
        self,
        svc: Service,
        caller: Caller,
        faults: Sequence[ScheduledFault],
        recorder: Recorder,
        *,
        tools: ToolSet,
        fault_points: Sequence[FaultPointDecl],
        context: Mapping[str, str] | None = None,
    ) -> None:
        self.svc, self.caller, self.rec, self.tools = svc, caller, recorder, tools
        self.faults = list(faults)
        self.schedule = FaultSchedule(self.faults, fault_points)
        self.counts = self.schedule.counts
        self.context: Mapping[str, str] = dict(context or {})

    def call_json(self, tool: str, arguments: str | None) -> ToolAnswer:
        """`call` with the arguments as the JSON text a model wrote."""
        try:
            args = json.loads(arguments or "{}", parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            return self._reject(tool, {}, [f"arguments are not valid JSON ({why})"])
        return self.call(tool, args)

    def call(self, tool: str, args: dict[str, Any]) -> ToolAnswer:
        """Run one tool call; returns what the agent receives (errors as {"error": ...}).

        A call the tool schemas refuse (unknown tool, missing or unknown argument, wrong type,
        an id with spaces...) never reaches the service: it is answered with `invalid_argument`,
        logged like any call, and does not count towards the fault schedule."""
        problems = self.tools.argument_problems(tool, args)
        if problems:
            return self._reject(tool, args if isinstance(args, dict) else {}, problems)
        self.counts[tool] += 1
        call_id = f"call_{len(self.rec.calls) + 1:03d}"
        self._before(tool, call_id)
        outage = self.schedule.due(tool, "instead_of_call")
        if outage is not None:
            detail, message = self.schedule.points[outage.point].told(tool)
            handled = Handled(
                authorization=Authorization(decision="allowed", scope="read"),
                response={"error": "unavailable", "message": message},
                error="unavailable",
                seq=advance(self.svc),
            )
            self.rec.event(handled.seq, "fault_fired", detail, fault=outage.point, call_id=call_id)
        else:
            handled = self.tools.run(self.svc, tool, self.caller, call_id, args)
        outcome: Any = "error" if handled.error else "ok"
        response: Any = handled.response
        crash = False
        lost = self.schedule.due(tool, "after_commit")
        if lost is not None and handled.committed:
            crash = self.schedule.points[lost.point].lost_as == "crash"
            outcome, response = ("crash" if crash else "timeout"), None
            self.rec.event(
                handled.seq,
                "fault_fired",
                f"{lost.point}: response lost",
                fault=lost.point,
                call_id=call_id,
            )
        self.rec.calls.append(
            ToolCall(
                call_id=call_id,
                seq=handled.seq,
                at=self.svc.at(handled.seq),
                tool=tool,
                principal=self.caller.principal,
                tenant_id=self.caller.tenant_id,
                arguments=args,
                authorization=handled.authorization,
                reads=handled.reads,
                writes=handled.writes,
                outcome=outcome,
                error=handled.error,
                response=response,
            )
        )
        if crash:
            raise AgentCrash(f"agent crashed after {tool} ({call_id})")
        if outcome == "timeout":
            return {
                "error": "timeout",
                "message": "no answer in time; the outcome of this request is unknown",
            }
        return dict(handled.response)

    def _reject(self, tool: str, args: dict[str, Any], problems: list[str]) -> ToolAnswer:
        """Answer and log a call refused before the service: the service made no decision, so
        the log says `denied` with reason `invalid_argument`, and nothing was read or written."""
        seq = advance(self.svc)
        name = tool if tool else "(no tool name)"
        response: ToolAnswer = {
            "error": "invalid_argument",
            "message": f"{name}: " + "; ".join(problems),
            "problems": [*problems],
        }
        self.rec.calls.append(
            ToolCall(
                call_id=f"call_{len(self.rec.calls) + 1:03d}",
                seq=seq,
                at=self.svc.at(seq),
                tool=name[:200],
                principal=self.caller.principal,
                tenant_id=self.caller.tenant_id,
                arguments=args,
                authorization=Authorization(decision="denied", reason="invalid_argument"),
                outcome="error",
                error="invalid_argument",
                response=response,
            )
        )
        return dict(response)

    def _before(self, tool: str, call_id: str) -> None:
        f = self.schedule.due(tool, "before_call")
        if f is None:
            return
        fire = self.schedule.points[f.point].fire
        assert fire is not None  # FaultPointDecl checks it
        fired = fire(self.svc, self.caller, f, self.context)
        self.rec.event(fired.seq, fired.kind, fired.detail, fault=f.point, call_id=call_id)
