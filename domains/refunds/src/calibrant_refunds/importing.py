"""How `calibrant import` rebuilds the refund shop's tool calls from a trace and its snapshots,
where its ledger says more than the roles read (`calibrant.domains.ImportRules`).

- the scope each write tool's grant must hold (`SCOPES`, the tools' own declarations:
  `ledger.tools`);
- the kinds a call's answer is searched for, in the order its transcripts have always listed
  them (`READS`);
- what a call committed (`writes`): the new refunds that name its call id, with the order they
  were applied over, their amount and the order version the call expected, then the new audit
  events naming its call id (a ticket updated, an approval requested): its ledger ties each
  write to the call that made it;
- a message's purpose (one of `NOTIFICATION_KINDS`), order and amount (`message`); a message
  with no recipient is none.

These are the rules the import's refund branch applied before the refund shop became a pack
like any other: its imported transcripts keep their bytes
(tests/importers/test_refunds_import_bytes.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from calibrant.contracts import CommittedWrite, DomainSnapshot, ToolCall
from calibrant.domains import ImportRules

from .form import NOTIFICATION_KINDS, ledger
from .records import LedgerSnapshot

__all__ = ["IMPORTS", "READS", "SCOPES", "message", "writes"]

SCOPES: Mapping[str, str] = {
    "create_refund": "refund:write",
    "update_ticket": "ticket:write",
    "assign_ticket": "ticket:write",
    "request_approval": "approval:request",
    "send_notification": "notification:send",
}
"""The scope each write tool of the refund shop needs (its grant is looked up in the snapshot)."""

READS = ("order", "customer", "refund", "policy", "ticket")
"""The kinds whose records a tool's answer can show, in the order a call's reads list them."""

_ID = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")
_CREATED = ("create", "created", "committed", "requested")


def _id(value: object) -> str | None:
    return value if isinstance(value, str) and _ID.match(value) else None


def writes(
    calls: Sequence[ToolCall], before: DomainSnapshot | None, after: DomainSnapshot | None
) -> dict[str, list[CommittedWrite]]:
    """By call id, what the ledger says each call committed: new refunds and new audit events
    that name its call id."""
    if after is None:
        return {}
    old, new = ledger(before), ledger(after)
    assert new is not None
    return {c.call_id: _writes(c, old, new) for c in calls}


def _writes(
    call: ToolCall, before: LedgerSnapshot | None, after: LedgerSnapshot
) -> list[CommittedWrite]:
    out: list[CommittedWrite] = []
    expected = call.arguments.get("expected_version")
    for t in after.tenants:
        old = before.tenant(t.tenant_id) if before else None
        old_refunds = {r.refund_id for r in old.refunds} if old else set()
        old_events = {e.event_id for e in old.audit_log} if old else set()
        mine = [
            r for r in t.refunds if r.call_id == call.call_id and r.refund_id not in old_refunds
        ]
        for r in mine:
            out.append(
                CommittedWrite(
                    tenant_id=r.tenant_id,
                    kind="refund",
                    record_id=r.refund_id,
                    action="create",
                    operation_id=r.operation_id,
                    target_id=r.order_id,
                    expected_version=expected if isinstance(expected, int) else None,
                    amount_minor_units=r.amount_minor_units,
                )
            )
        refund_ids = {r.refund_id for r in mine}
        for e in t.audit_log:
            if e.call_id != call.call_id or e.event_id in old_events or e.record_id in refund_ids:
                continue
            created = e.action.rsplit(".", 1)[-1] in _CREATED
            out.append(
                CommittedWrite(
                    tenant_id=e.tenant_id,
                    kind=e.record_kind,
                    record_id=e.record_id,
                    action="create" if created else "update",
                    operation_id=e.operation_id,
                )
            )
    return out


def message(arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """A `send_notification` call's message: it names its recipient (none: no message), its
    purpose is one of NOTIFICATION_KINDS (else "other"), and it may name an order and an
    amount."""
    recipient = arguments.get("recipient")
    if not isinstance(recipient, str) or not recipient:
        return None
    kind = arguments.get("kind")
    amount = arguments.get("amount_minor_units")
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
        amount = None
    return {
        "recipient": recipient,
        "kind": kind if kind in NOTIFICATION_KINDS else "other",
        "order_id": _id(arguments.get("order_id")),
        "amount_minor_units": amount,
    }


IMPORTS = ImportRules(
    scopes=SCOPES,
    reads=READS,
    writes=writes,
    sent_operations=True,
    message=message,
    unknown="the ledger",
)
"""The refund shop's import rules (`DomainPack.imports`)."""
