"""The refund shop's file form: how its transcripts spell calibrant's generic shape.

Its files were written before calibrant had domains, so they name none, and they keep their
spelling: the evaluator's snapshots are `ledger_before` / `ledger_after` (a `LedgerSnapshot`,
its tenants' records in one list per kind) and a write names the order it was applied over in
`order_id`, `order_version_before` and `order_version_after`. Read, a file becomes the generic
shape (`snapshot_before` / `snapshot_after` holding records by kind; `target_id`,
`version_before`, `version_after`); written, it is spelled back, byte for byte, so its content
hash is the one it always had. A bad value is refused where the file holds it
(`ledger_before.tenants.0.orders.1.paid_minor_units`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import ValidationError

from calibrant.contracts import DomainSnapshot, DomainTenant, Transcript
from calibrant.contracts.forms import FileForm, moved, unknown_field

from . import case_models, records
from .case_models import FAULT_POINTS, ExpectedOutcome, Fixture, mismatches
from .records import LISTS, RECORD_KINDS, LedgerSnapshot, TenantSnapshot

__all__ = [
    "FORM",
    "NOTIFICATION_KINDS",
    "SNAPSHOTS",
    "WRITE_FIELDS",
    "generic",
    "ledger",
    "edited",
    "ledgers",
    "tenant",
]

NOTIFICATION_KINDS: tuple[str, ...] = (
    "refund_confirmation",
    "status_update",
    "escalation_notice",
    "other",
)
"""The purposes a refunds transcript's messages may have."""

SNAPSHOTS = (("ledger_before", "snapshot_before"), ("ledger_after", "snapshot_after"))
"""(the refund shop's name, the generic field) of the evaluator's two snapshots."""
WRITE_FIELDS = (
    ("order_id", "target_id"),
    ("order_version_before", "version_before"),
    ("order_version_after", "version_after"),
)
"""(the refund shop's name, the generic field) of what a write was applied over."""
SETTINGS = (("policy_read_before_refund", "policy_read_before_effect"),)
"""(the refund shop's name, the generic setting) of a case's `invariants:` settings: the name
the pack publishes the invariant under (`PUBLISHED`), which its case files and every
transcript's copy of its case give it."""

_TITLE = "Transcript"
_TO_GENERIC = dict(SNAPSHOTS)
_TO_FILE = {g: own for own, g in SNAPSHOTS}
_WRITE_TO_GENERIC = dict(WRITE_FIELDS)
_WRITE_TO_FILE = {g: own for own, g in WRITE_FIELDS}


def generic(snap: LedgerSnapshot) -> DomainSnapshot:
    """A ledger snapshot in the generic shape: each tenant's records by kind (every kind, in
    the ledger's order), each record its JSON dump."""
    return DomainSnapshot.model_construct(
        taken_by=snap.taken_by,
        seq=snap.seq,
        taken_at=snap.taken_at,
        tenants=[
            DomainTenant.model_construct(
                tenant_id=t.tenant_id,
                name=t.name,
                records={
                    kind: [r.model_dump(mode="json") for r in getattr(t, field)]
                    for field, kind in LISTS
                },
            )
            for t in snap.tenants
        ],
    )


def _ledger_data(snap: dict[str, Any]) -> dict[str, Any]:
    """A generic snapshot's dump rearranged as a ledger snapshot's data."""
    tenants = []
    for t in snap.get("tenants", []):
        kinds = t.get("records", {})
        tenant = {"tenant_id": t.get("tenant_id"), "name": t.get("name")}
        tenant.update({field: kinds.get(kind, []) for field, kind in LISTS})
        tenants.append(tenant)
    return {
        "taken_by": snap.get("taken_by"),
        "seq": snap.get("seq"),
        "taken_at": snap.get("taken_at"),
        "tenants": tenants,
    }


def ledger(snap: DomainSnapshot | None) -> LedgerSnapshot | None:
    """A generic snapshot read as the refund shop's typed ledger snapshot (None: None)."""
    if snap is None:
        return None
    return LedgerSnapshot.model_validate(_ledger_data(snap.model_dump()))


def ledgers(t: Transcript) -> tuple[LedgerSnapshot | None, LedgerSnapshot | None]:
    """A refunds transcript's two snapshots as ledger snapshots."""
    return ledger(t.snapshot_before), ledger(t.snapshot_after)


@contextmanager
def edited(t: Transcript, which: str) -> Iterator[LedgerSnapshot]:
    """One of a refunds transcript's snapshots ("before" or "after") as a ledger snapshot to
    change in place; written back to the transcript when the block ends (the typed view
    `ledger` gives is a copy: a change to it alone changes nothing)."""
    field = f"snapshot_{which}"
    snap = ledger(getattr(t, field))
    if snap is None:
        raise ValueError(f"transcript {t.transcript_id} has no snapshot {which} the trial")
    yield snap
    setattr(t, field, generic(snap))


def tenant(snap: DomainSnapshot | None, tenant_id: str) -> TenantSnapshot | None:
    """One tenant of a generic snapshot as the refund shop's TenantSnapshot, or None."""
    full = ledger(snap)
    return full.tenant(tenant_id) if full is not None else None


def _snapshot_in(name: str, value: object) -> DomainSnapshot | None:
    if value is None or isinstance(value, DomainSnapshot):
        return value
    if isinstance(value, LedgerSnapshot):
        return generic(value)
    try:
        return generic(LedgerSnapshot.model_validate(value))
    except ValidationError as exc:
        raise moved(_TITLE, exc, (name,)) from None


def _writes_in(calls: object) -> object:
    if not isinstance(calls, list):
        return calls
    out: list[object] = []
    for i, call in enumerate(calls):
        writes = call.get("writes") if isinstance(call, dict) else None
        if isinstance(writes, list):
            kept: list[object] = []
            for j, w in enumerate(writes):
                if isinstance(w, dict):
                    for name in _WRITE_TO_FILE:
                        if name in w:
                            raise unknown_field(
                                _TITLE, ("tool_calls", i, "writes", j, name), w[name]
                            )
                    w = {_WRITE_TO_GENERIC.get(k, k): v for k, v in w.items()}
                kept.append(w)
            call = {**call, "writes": kept}
        out.append(call)
    return out


def transcript_in(data: dict[str, Any]) -> dict[str, Any]:
    """A refunds transcript's data (its file's spelling) in the generic spelling."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in _TO_FILE:
            if isinstance(value, dict):  # a refunds file naming the generic field
                raise unknown_field(_TITLE, (key,), value)
            out[key] = value
        elif key in _TO_GENERIC:
            out[_TO_GENERIC[key]] = _snapshot_in(key, value)
        elif key == "tool_calls":
            out[key] = _writes_in(value)
        else:
            out[key] = value
    return out


def _snapshot_out(value: object, mode: str) -> object:
    if not isinstance(value, dict):
        return value
    return LedgerSnapshot.model_validate(_ledger_data(value)).model_dump(mode=mode)


def transcript_out(data: dict[str, Any], mode: str) -> dict[str, Any]:
    """A refunds transcript's generic dump in its file's spelling."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in _TO_FILE:
            out[_TO_FILE[key]] = _snapshot_out(value, mode)
        elif key == "tool_calls" and isinstance(value, list):
            out[key] = [
                {
                    **c,
                    "writes": [
                        {_WRITE_TO_FILE.get(k, k): v for k, v in w.items()} for w in c["writes"]
                    ],
                }
                if isinstance(c, dict) and isinstance(c.get("writes"), list)
                else c
                for c in value
            ]
        else:
            out[key] = value
    return out


def _view(generic_field: str) -> Any:
    def read(t: Transcript) -> LedgerSnapshot | None:
        return ledger(getattr(t, generic_field))

    return read


_EXPORTS: dict[str, object] = (
    {"LEGACY_DOMAIN": "refunds"}
    | {
        name: getattr(case_models, name)
        for name in ("FAULT_POINTS", "ExpectedOutcome", "ExpectedRefund", "Fixture", "PriorRefund")
    }
    | {
        name: getattr(records, name)
        for name in (
            "ACTIONABLE_TICKET_STATES",
            "Approval",
            "AuditEvent",
            "Customer",
            "LedgerSnapshot",
            "Order",
            "Permission",
            "PolicyDocument",
            "Refund",
            "TenantSnapshot",
            "Ticket",
        )
    }
)

FORM = FileForm(
    domain="refunds",
    unnamed=True,
    record_kinds=RECORD_KINDS,
    fault_points=FAULT_POINTS,
    message_kinds=NOTIFICATION_KINDS,
    transcript_in=transcript_in,
    transcript_out=transcript_out,
    spellings={**dict(SNAPSHOTS), **dict(WRITE_FIELDS)},
    setting_spellings=dict(SETTINGS),
    views={own: _view(g) for own, g in SNAPSHOTS},
    exports=_EXPORTS,
    case_fixture=Fixture,
    case_outcome=ExpectedOutcome,
    outcome_mismatches=mismatches,
    snapshot_noun="ledger snapshot",
    snapshot_file=LedgerSnapshot,
)
"""The refund shop's file form (`DomainPack.form`)."""
