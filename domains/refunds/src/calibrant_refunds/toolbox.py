"""The tool adapter of a refund trial: the engine's ToolBox (calibrant.engine.toolbox) on the
refund shop's tools and fault points. Every call goes to the controlled service, through the
fault schedule, and lands in the tool-call log with its authorization decision, reads and
committed writes."""

from __future__ import annotations

from calibrant.contracts import FaultSpec
from calibrant.engine import AgentCrash, Recorder
from calibrant.engine import ToolBox as EngineToolBox

from .ledger import Caller, RefundService
from .ledger.faults import REFUND_FAULT_POINTS
from .ledger.tools import REFUND_TOOLS

__all__ = ["AgentCrash", "ToolBox", "Recorder"]


class ToolBox(EngineToolBox):
    """What an agent calls. Faults fire deterministically on the n-th call of a tool; an
    order_version_change without an `order` param changes the case's order (`order_id`)."""

    def __init__(
        self,
        svc: RefundService,
        caller: Caller,
        faults: list[FaultSpec],
        recorder: Recorder,
        *,
        order_id: str,
    ) -> None:
        super().__init__(
            svc,
            caller,
            faults,
            recorder,
            tools=REFUND_TOOLS,
            fault_points=REFUND_FAULT_POINTS,
            context={"order": order_id},
        )
        self.order_id = order_id
