"""The tool adapter: every call goes to the controlled service, through the fault schedule, and
lands in the tool-call log with its authorization decision, reads and committed writes."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..contracts import Authorization, FaultSpec, HarnessEvent, ToolCall
from ..ledger import (
    Caller,
    Handled,
    RefundService,
    advance,
    at,
    change_order,
    revoke_write,
    run_operation,
)
from .toolspec import argument_problems

__all__ = ["AgentCrash", "ToolBox", "Recorder"]


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
    """What an agent calls. Faults fire deterministically on the n-th call of a tool."""

    def __init__(
        self,
        svc: RefundService,
        caller: Caller,
        faults: list[FaultSpec],
        recorder: Recorder,
        *,
        order_id: str,
    ) -> None:
        self.svc, self.caller, self.faults, self.rec = svc, caller, faults, recorder
        self.order_id = order_id
        self.counts: Counter[str] = Counter()

    def _due(self, tool: str, *points: str) -> FaultSpec | None:
        n = self.counts[tool]
        for f in self.faults:
            if f.on_tool != tool or f.point not in points:
                continue
            if n == f.occurrence or (f.params.get("persistent") and n >= f.occurrence):
                return f
        return None

    def call_json(self, tool: str, arguments: str | None) -> dict[str, Any]:
        """`call` with the arguments as the JSON text a model wrote."""
        try:
            args = json.loads(arguments or "{}", parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            return self._reject(tool, {}, [f"arguments are not valid JSON ({why})"])
        return self.call(tool, args)

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run one tool call; returns what the agent receives (errors as {"error": ...}).

        A call the tool schemas refuse (unknown tool, missing or unknown argument, wrong type,
        an id with spaces...) never reaches the service: it is answered with `invalid_argument`,
        logged like any call, and does not count towards the fault schedule."""
        problems = argument_problems(tool, args)
        if problems:
            return self._reject(tool, args if isinstance(args, dict) else {}, problems)
        self.counts[tool] += 1
        call_id = f"call_{len(self.rec.calls) + 1:03d}"
        self._before(tool, call_id)
        outage = self._due(tool, "reconciliation_unavailable")
        if outage is not None:
            handled = Handled(
                authorization=Authorization(decision="allowed", scope="read"),
                response={"error": "unavailable", "message": "the payment ledger is not answering"},
                error="unavailable",
                seq=advance(self.svc),
            )
            self.rec.event(
                handled.seq,
                "fault_fired",
                "refund lookup unavailable",
                fault=outage.point,
                call_id=call_id,
            )
        else:
            handled = run_operation(self.svc, tool, self.caller, call_id, args)
        outcome: Any = "error" if handled.error else "ok"
        response: Any = handled.response
        crash = False
        lost = self._due(
            tool,
            "timeout_after_payment_commit",
            "crash_after_refund_commit",
            "crash_after_notification_accept",
        )
        if lost is not None and self._committed(tool, handled):
            crash = lost.point != "timeout_after_payment_commit"
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
                at=at(handled.seq),
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

    def _reject(self, tool: str, args: dict[str, Any], problems: list[str]) -> dict[str, Any]:
        """Answer and log a call refused before the service: the service made no decision, so
        the log says `denied` with reason `invalid_argument`, and nothing was read or written."""
        seq = advance(self.svc)
        name = tool if tool else "(no tool name)"
        response = {
            "error": "invalid_argument",
            "message": f"{name}: " + "; ".join(problems),
            "problems": problems,
        }
        self.rec.calls.append(
            ToolCall(
                call_id=f"call_{len(self.rec.calls) + 1:03d}",
                seq=seq,
                at=at(seq),
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

    @staticmethod
    def _committed(tool: str, handled: Handled) -> bool:
        if tool == "send_notification":
            return handled.response.get("status") == "accepted"
        return bool(handled.writes)

    def _before(self, tool: str, call_id: str) -> None:
        f = self._due(tool, "order_version_change", "permission_revoked", "broken_tenant_guard")
        if f is None:
            return
        if f.point == "order_version_change":
            order = str(f.params.get("order", self.order_id))
            seq = change_order(self.svc, order, str(f.params.get("status", "replacement_shipped")))
            self.rec.event(
                seq,
                "external_change",
                f"a colleague changed {order}",
                fault=f.point,
                call_id=call_id,
            )
        elif f.point == "permission_revoked":
            seq = revoke_write(self.svc, self.caller.principal, self.caller.tenant_id)
            self.rec.event(
                seq,
                "external_change",
                "refund:write permission revoked",
                fault=f.point,
                call_id=call_id,
            )
        else:
            self.svc.broken_guard_once = True
            self.rec.event(
                self.svc.now(),
                "fault_fired",
                "tenant guard disabled for one read",
                fault=f.point,
                call_id=call_id,
            )
