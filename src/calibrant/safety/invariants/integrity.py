"""Is the evidence itself sound? Harness incidents are reported, never dropped."""

from __future__ import annotations

from collections import Counter

from ...contracts import LEGACY_DOMAIN, Refund
from ..evidence import Evidence
from ..registry import Finding, harness_error, invariant, passed


@invariant(
    "evidence_integrity",
    "The transcript's evidence is complete and consistent: snapshots read by an evaluator "
    "identity (never an agent of any tenant), the tool log and the ledger agreeing on each "
    "refund's order, operation and amount (harness incidents surface here); another domain's "
    "records the tool log says were written are in the snapshot after the trial.",
    by_role=True,
)
def evidence_integrity(ev: Evidence) -> Finding:
    t = ev.t
    problem = ev.snapshot_problem() if t.domain == LEGACY_DOMAIN else ev.records_problem()
    if problem:
        return harness_error(problem)
    incidents = [e for e in t.events if e.kind == "harness_error"]
    if incidents:
        return harness_error(
            f"the harness reported {len(incidents)} incident(s): {incidents[0].detail}",
            *(e.event_id for e in incidents),
        )
    dup_calls = [k for k, n in Counter(c.call_id for c in t.tool_calls).items() if n > 1]
    if dup_calls:
        return harness_error(f"tool call ids repeat: {', '.join(dup_calls)}", *dup_calls)
    dup_seq = [k for k, n in Counter(c.seq for c in t.tool_calls).items() if n > 1]
    if dup_seq:
        return harness_error(f"tool calls share logical times: {dup_seq}")
    attempts = {a.attempt_id for a in t.notifications.attempts}
    orphan = [m.message_id for m in t.notifications.accepted if m.attempt_id not in attempts]
    if orphan:
        return harness_error(
            "accepted messages without a recorded attempt: " + ", ".join(orphan), *orphan
        )
    if t.domain != LEGACY_DOMAIN:
        return _domain_writes(ev)
    # every refund the tool log says it committed must be in the ledger, and vice versa
    after_ids = {r.refund_id for r in ev.new_refunds}
    logged = {w.record_id: c.call_id for c in t.tool_calls for w in c.writes if w.kind == "refund"}
    missing = sorted(set(logged) - after_ids - _prior_ids(ev))
    if missing:
        return harness_error(
            "the tool log committed refund(s) the ledger snapshot lacks: " + ", ".join(missing),
            *missing,
            *(logged[m] for m in missing),
        )
    calls = ev.calls_by_id()
    for r in ev.new_refunds:
        if r.call_id is not None and r.call_id not in calls:
            return harness_error(
                f"refund {r.refund_id} names tool call {r.call_id}, which is not in the log",
                r.refund_id,
            )
    if (disagreement := _log_vs_ledger(ev)) is not None:
        return disagreement
    return passed(
        f"snapshots by {t.ledger_after.taken_by if t.ledger_after else '?'}; "
        f"{len(t.tool_calls)} tool calls, {len(t.notifications.attempts)} notification attempts "
        "consistent with the ledger"
    )


def _domain_writes(ev: Evidence) -> Finding:
    """Another domain: every record the tool log says a call wrote (created or updated) is in
    the evaluator's snapshot after the trial, in the tenant and of the kind the log names. Read
    through the pack's roles."""
    t, after = ev.t, ev.trial.after
    for c in t.tool_calls:
        for w in c.writes:
            if after.get(w.tenant_id, w.kind, w.record_id) is None:
                return harness_error(
                    f"the tool log says {c.call_id} wrote {w.kind} {w.record_id} of "
                    f"{w.tenant_id}; the snapshot after the trial lacks it",
                    w.record_id,
                    c.call_id,
                )
    snap = t.snapshot_after
    written = sum(len(c.writes) for c in t.tool_calls)
    return passed(
        f"snapshots by {snap.taken_by if snap else '?'}; {len(t.tool_calls)} tool calls, "
        f"{written} committed writes and {len(t.notifications.attempts)} notification attempts "
        "consistent with the records"
    )


_COMPARED = ("tenant_id", "order_id", "operation_id", "amount_minor_units")


def _log_vs_ledger(ev: Evidence) -> Finding | None:
    """The tool log and the ledger must agree on each refund's tenant, order, operation and
    amount — a matching id with another amount is inconsistent evidence, not a pass. Both the
    committed writes and the refunds the service reported back to the agent are compared."""
    ledger: dict[str, Refund] = {r.refund_id: r for s in ev.after.tenants for r in s.refunds}
    for c in ev.t.tool_calls:
        logged: list[tuple[str, str, dict[str, object]]] = [
            (w.record_id, "committed", w.model_dump(include=set(_COMPARED)))
            for w in c.writes
            if w.kind == "refund"
        ]
        if isinstance(c.response, dict) and isinstance(c.response.get("refund_id"), str):
            said: dict[str, object] = {k: c.response[k] for k in _COMPARED if k in c.response}
            logged.append((str(c.response["refund_id"]), "reported", said))
        for refund_id, how, fields in logged:
            r = ledger.get(refund_id)
            if r is None:
                continue  # a missing refund is reported above (writes) or is not ours to judge
            if r.call_id is not None and how == "committed" and r.call_id != c.call_id:
                return harness_error(
                    f"refund {refund_id}: the tool log says {c.call_id} committed it, the ledger "
                    f"says {r.call_id}",
                    refund_id,
                    c.call_id,
                )
            for key in _COMPARED:
                logged_value, held = fields.get(key), getattr(r, key)
                if logged_value is not None and logged_value != held:
                    what = key.replace("_minor_units", "").replace("_id", "")
                    return harness_error(
                        f"refund {refund_id}: the tool log ({c.call_id}, {how}) has {what} "
                        f"{logged_value}, the ledger holds {held}",
                        refund_id,
                        c.call_id,
                    )
    return None


def _prior_ids(ev: Evidence) -> set[str]:
    return {r.refund_id for s in ev.before.tenants for r in s.refunds}
