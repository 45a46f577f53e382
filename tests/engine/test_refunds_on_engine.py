"""The refund service is declared on the engine: every fault point a case may name has a
declaration, and each tool's scopes, writes and operation id are what its schema promises."""

from __future__ import annotations

from calibrant.contracts import FAULT_POINTS
from calibrant.domains import get
from calibrant_refunds.ledger.faults import REFUND_FAULT_POINTS
from calibrant_refunds.ledger.tools import REFUND_TOOLS
from calibrant_refunds.toolspec import TOOL_SPECS


def test_every_fault_point_of_the_case_contract_is_declared_once() -> None:
    names = [p.name for p in REFUND_FAULT_POINTS]
    assert sorted(names) == sorted(FAULT_POINTS) and len(set(names)) == len(names)
    assert sorted(get("refunds").pack.fault_points) == sorted(names)
    phases = {p.name: (p.phase, p.lost_as) for p in REFUND_FAULT_POINTS}
    assert phases["crash_after_refund_commit"] == ("after_commit", "crash")
    assert phases["crash_after_notification_accept"] == ("after_commit", "crash")
    assert phases["timeout_after_payment_commit"] == ("after_commit", "timeout")
    assert phases["reconciliation_unavailable"][0] == "instead_of_call"


def test_the_tools_scopes_writes_and_operation_ids() -> None:
    declared = {
        t.name: (t.scopes, t.writes, t.notifies, t.operation_id_arg) for t in REFUND_TOOLS.tools
    }
    assert declared == {
        "lookup_order": ((), False, False, None),
        "search_customers": ((), False, False, None),
        "read_policy": ((), False, False, None),
        "create_refund": (("refund:write",), True, False, "operation_id"),
        "query_refund": ((), False, False, None),
        "update_ticket": (("ticket:write",), True, False, None),
        "assign_ticket": (("ticket:write",), True, False, None),
        "request_approval": (("approval:request",), True, False, None),
        "send_notification": (("notification:send",), False, True, "idempotency_key"),
    }
    assert [t["function"]["name"] for t in TOOL_SPECS] == list(declared)
