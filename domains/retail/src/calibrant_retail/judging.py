"""What the judge reads about a retail conversation's records. calibrant's evidence by role
shows every record of the acting tenant; for a shop (one tenant holding every customer) that
would be every customer's profile, orders and cards and the whole catalogue. The judge sees
instead, by role as calibrant renders them, only the records of the customer the conversation
is for (the first authenticated) and the records the service says a call read or wrote (the
products the agent looked up, another customer's order it touched)."""

from __future__ import annotations

from typing import Any

from calibrant.judge.record_rows import domain_records
from calibrant.pack import EvidenceItem, Transcript

from . import OWNED_KINDS, RECORDS
from .policy import AUTH_TOOLS

__all__ = ["customer_evidence", "relevant"]

_ID = {spec.kind: spec.id_field for spec in RECORDS}


def _session_user(t: Transcript) -> str | None:
    for c in sorted(t.tool_calls, key=lambda c: c.seq):
        if c.tool in AUTH_TOOLS and c.outcome == "ok":
            for r in c.reads:
                if r.kind == "customer":
                    return r.record_id
    return None


def relevant(t: Transcript) -> Transcript:
    """A copy of `t` whose snapshots hold only the session customer's records and the records
    the tool log names."""
    touched = {(r.kind, r.record_id) for c in t.tool_calls for r in c.reads}
    touched |= {(w.kind, w.record_id) for c in t.tool_calls for w in c.writes}
    user = _session_user(t)
    out = t.model_copy(deep=True)
    orders: dict[str, str] = {}
    for snap in (out.snapshot_before, out.snapshot_after):
        for tenant in snap.tenants if snap is not None else []:
            orders.update(
                {str(o["order_id"]): str(o["user_id"]) for o in tenant.records.get("order", [])}
            )

    def keep(kind: str, record: dict[str, Any]) -> bool:
        if (kind, str(record.get(_ID[kind]))) in touched:
            return True
        field = OWNED_KINDS.get(kind)
        if field is None or user is None:
            return False
        value = str(record.get(field))
        return (value if field == "user_id" else orders.get(value)) == user

    for snap in (out.snapshot_before, out.snapshot_after):
        for tenant in snap.tenants if snap is not None else []:
            tenant.records = {
                kind: [r for r in records if keep(kind, r)]
                for kind, records in tenant.records.items()
            }
    return out


def customer_evidence(t: Transcript) -> list[EvidenceItem]:
    """The judge's lines about the records: calibrant's by role, on `relevant(t)`."""
    return domain_records(relevant(t)).evidence()
