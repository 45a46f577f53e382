"""The refund shop's fault points, declared for the engine: the phase each fires in and, for
the outside changes, what it does (see calibrant.contracts.case.FaultSpec for their meaning)."""

from __future__ import annotations

from collections.abc import Mapping

from calibrant.engine import (
    Caller,
    FaultPointDecl,
    Fired,
    ScheduledFault,
    Service,
    break_tenant_guard,
    revoke_scope,
)

from .admin import change_order
from .dataset import PRINCIPALS
from .service import RefundService

__all__ = ["REFUND_FAULT_POINTS"]


def _order_changed(
    svc: Service, caller: Caller, fault: ScheduledFault, context: Mapping[str, str]
) -> Fired:
    """A colleague changes the order (the case's, unless the fault names one): new version."""
    assert isinstance(svc, RefundService)
    order = str(fault.params.get("order", context["order"]))
    seq = change_order(svc, order, str(fault.params.get("status", "replacement_shipped")))
    return Fired(seq, "external_change", f"a colleague changed {order}")


REFUND_FAULT_POINTS: tuple[FaultPointDecl, ...] = (
    FaultPointDecl("timeout_after_payment_commit", "after_commit", lost_as="timeout"),
    FaultPointDecl("crash_after_refund_commit", "after_commit", lost_as="crash"),
    FaultPointDecl("crash_after_notification_accept", "after_commit", lost_as="crash"),
    FaultPointDecl("order_version_change", "before_call", fire=_order_changed),
    FaultPointDecl(
        "permission_revoked",
        "before_call",
        fire=revoke_scope(
            "refund:write", actor=PRINCIPALS.system, detail="refund:write permission revoked"
        ),
    ),
    FaultPointDecl(
        "reconciliation_unavailable",
        "instead_of_call",
        detail="refund lookup unavailable",
        message="the payment ledger is not answering",
        per_tool={  # an outage elsewhere names its own service, not the ledger
            "lookup_order": ("order lookup unavailable", "the order system is not answering"),
            "search_customers": (
                "customer search unavailable",
                "the customer directory is not answering",
            ),
            "read_policy": ("policy lookup unavailable", "the policy service is not answering"),
            "update_ticket": ("ticket update unavailable", "the ticket system is not answering"),
            "request_approval": (
                "approval request unavailable",
                "the approval service is not answering",
            ),
            "send_notification": (
                "notification unavailable",
                "the notification service is not answering",
            ),
        },
    ),
    FaultPointDecl("broken_tenant_guard", "before_call", fire=break_tenant_guard),
)
