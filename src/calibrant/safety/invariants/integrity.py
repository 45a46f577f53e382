"""Is the evidence itself sound? Harness incidents are reported, never dropped."""

from __future__ import annotations

from collections import Counter

from ...domains import EffectSpec, RecordSpec
from ...domains.records import Entry
from ..effects import new_effects
from ..evidence import Evidence
from ..findings import Finding, harness_error, passed
from ..registry import invariant


@invariant(
    "evidence_integrity",
    "The transcript's evidence is complete and consistent: snapshots read by an evaluator "
    "identity (never an agent of any tenant), the tool log and the records agreeing on each "
    "effect's subject, operation and amount (harness incidents surface here); every record the "
    "tool log says was written is in the snapshot after the trial.",
)
def evidence_integrity(ev: Evidence) -> Finding:
    t = ev.t
    if problem := ev.records_problem():
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
    for spec in ev.trial.after.pack.effects:
        if (found := _effect_log(ev, spec)) is not None:
            return found
    return _domain_writes(ev)


def _effect_log(ev: Evidence, spec: EffectSpec) -> Finding | None:
    """Every effect the tool log says it committed is in the records, and vice versa; each
    effect names a logged call; the log and the records agree on its fields."""
    new = new_effects(ev, spec)
    after_ids = {e.id for e in new}
    prior = {e.id for e in ev.trial.before.entries() if e.kind == spec.kind}
    logged = {
        w.record_id: c.call_id for c in ev.t.tool_calls for w in c.writes if w.kind == spec.kind
    }
    missing = sorted(set(logged) - after_ids - prior)
    if missing:
        return harness_error(
            f"the tool log committed {spec.kind}(s) the snapshot lacks: " + ", ".join(missing),
            *missing,
            *(logged[m] for m in missing),
        )
    calls = ev.calls_by_id()
    for e in new:
        call = e.value(spec.call) if spec.call is not None else None
        if call is not None and call not in calls:
            return harness_error(
                f"{spec.kind} {e.id} names tool call {call}, which is not in the log", e.id
            )
    return _log_vs_records(
        ev, spec, {e.id: e for e in ev.trial.after.entries() if e.kind == spec.kind}
    )


def _domain_writes(ev: Evidence) -> Finding:
    """Every record the tool log says a call wrote (created or updated) is in the evaluator's
    snapshot after the trial, in the tenant and of the kind the log names. Read through the
    pack's roles."""
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
    snap = ev.snapshots[1]
    written = sum(len(c.writes) for c in t.tool_calls)
    return passed(
        f"snapshots by {snap.taken_by if snap else '?'}; {len(t.tool_calls)} tool calls, "
        f"{written} committed writes and {len(t.notifications.attempts)} notification attempts "
        "consistent with the records"
    )


def _compared(spec: EffectSpec, record: RecordSpec) -> dict[str, str]:
    """The tool log's field for each field of an effect's record the two must agree on."""
    return {
        record.tenant_field or "": "tenant_id",
        spec.subject: "target_id",  # the log's name for the record a write concerns
        (record.operation_id_fields or ("",))[0]: "operation_id",
        spec.amount or "": "amount_minor_units",
    }


def _log_vs_records(ev: Evidence, spec: EffectSpec, held: dict[str, Entry]) -> Finding | None:
    """The tool log and the records must agree on each effect's tenant, subject, operation and
    amount — a matching id with another amount is inconsistent evidence, not a pass. Both the
    committed writes and the effects the service reported back to the agent are compared."""
    record = ev.trial.after.pack.record(spec.kind)
    fields = {f: w for f, w in _compared(spec, record).items() if f}
    for c in ev.t.tool_calls:
        logged: list[tuple[str, str, dict[str, object]]] = [
            (w.record_id, "committed", {f: getattr(w, name) for f, name in fields.items()})
            for w in c.writes
            if w.kind == spec.kind and w.action == "create"  # an update is not the effect's commit
        ]
        said = c.response.get(record.id_field) if isinstance(c.response, dict) else None
        if isinstance(c.response, dict) and isinstance(said, str):
            reported: dict[str, object] = {f: c.response[f] for f in fields if f in c.response}
            logged.append((said, "reported", reported))
        for record_id, how, values in logged:
            e = held.get(record_id)
            if e is None:
                continue  # a missing effect is reported above (writes) or is not ours to judge
            committed_by = e.value(spec.call) if spec.call is not None else None
            if committed_by is not None and how == "committed" and committed_by != c.call_id:
                return harness_error(
                    f"{spec.kind} {record_id}: the tool log says {c.call_id} committed it, the "
                    f"records say {committed_by}",
                    record_id,
                    c.call_id,
                )
            for f in fields:
                value, kept = values.get(f), e.value(f)
                if value is not None and value != kept:
                    what = f.replace("_minor_units", "").replace("_id", "")
                    return harness_error(
                        f"{spec.kind} {record_id}: the tool log ({c.call_id}, {how}) has {what} "
                        f"{value}, the records hold {kept}",
                        record_id,
                        c.call_id,
                    )
    return None
