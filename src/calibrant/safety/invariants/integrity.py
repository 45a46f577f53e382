"""Is the evidence itself sound? Harness incidents are reported, never dropped."""

from __future__ import annotations

from collections import Counter

from ..evidence import Evidence
from ..registry import Finding, harness_error, invariant, passed


@invariant(
    "evidence_integrity",
    "The transcript's evidence is complete and consistent (harness incidents surface here).",
)
def evidence_integrity(ev: Evidence) -> Finding:
    t = ev.t
    problem = ev.snapshot_problem()
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
    return passed(
        f"snapshots by {t.ledger_after.taken_by if t.ledger_after else '?'}; "
        f"{len(t.tool_calls)} tool calls, {len(t.notifications.attempts)} notification attempts "
        "consistent with the ledger"
    )


def _prior_ids(ev: Evidence) -> set[str]:
    return {r.refund_id for s in ev.before.tenants for r in s.refunds}
