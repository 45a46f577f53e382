"""no_duplicate_payment: no effect committed twice under one business key (the pack's effect
specs)."""

from __future__ import annotations

from ...domains.records import Entry
from ..findings import Finding, not_applicable, passed, violated
from .trial import Trial, record_words


def _new_effects(trial: Trial) -> list[Entry]:
    """Records committed during the trial (in the 'after' snapshot, not in the 'before' one) of
    every kind that declares operation ids, in the order the service's log committed them
    (those the log does not show last, in the snapshot's order)."""
    committed = {(w.tenant_id, w.kind, w.record_id): w.seq for w in trial.writes}
    new = [
        e
        for e in trial.after.entries()
        if e.spec.operation_id_fields and trial.before.get(e.tenant_id, e.kind, e.id) is None
    ]
    last = max(committed.values(), default=0) + 1
    return sorted(new, key=lambda e: committed.get((e.tenant_id, e.kind, e.id), last))


def _key_label(fields: tuple[str, ...]) -> str:
    """What a business key is called: its fields without their _id suffix ('order')."""
    return "/".join(f.removesuffix("_id").replace("_", " ") for f in fields)


def _effect(trial: Trial, e: Entry) -> str:
    """A record as a duplicate's message lists it: id (operation ids, amounts or quantities)."""
    amounts = [str(m.minor_units) for m in trial.after.money(e)]
    quantities = [str(e.value(f)) for f in e.spec.quantity_fields]
    return f"{e.id} ({', '.join([*e.operation_ids, *(amounts or quantities)])})"


def duplicate_effects(trial: Trial) -> Finding:
    """At most one effect per operation id, and per business key, among the records committed
    during the trial of every kind that declares operation ids."""
    kinds = [s.kind for s in trial.after.pack.records if s.operation_id_fields]
    new = _new_effects(trial)
    if not new:
        return not_applicable(f"no {' or '.join(kinds) or 'effect'} was committed during the trial")
    calls = {(w.tenant_id, w.kind, w.record_id): w.call_id for w in trial.writes}
    by_op: dict[tuple[str, str], list[Entry]] = {}
    by_key: dict[tuple[str, str, tuple[str, ...]], list[Entry]] = {}
    for e in new:
        for op in e.operation_ids:
            by_op.setdefault((e.kind, op), []).append(e)
        if e.key is not None:
            by_key.setdefault((e.tenant_id, e.kind, e.key), []).append(e)
    line, _, was = record_words(trial.after.pack)
    for (_, op), es in by_op.items():
        if len(es) > 1:
            return violated(
                f"operation {op} committed {len(es)} times: the {line} {was} not idempotent",
                *(e.id for e in es),
            )
    for (_, kind, key), es in by_key.items():
        if len(es) > 1:
            spec = es[0].spec
            what = f"{_key_label(spec.key_fields)} {'/'.join(key)}"
            times = (
                f"was paid {len(es)} times"
                if spec.money_fields
                else f"got {len(es)} {kind} records"
            )
            desc = ", ".join(_effect(trial, e) for e in es)
            call_ids = (calls.get((e.tenant_id, e.kind, e.id)) for e in es)
            return violated(
                f"{what} {times} during the trial: {desc}",
                *(e.id for e in es),
                *(c for c in call_ids if c),
            )
    parts = []
    for kind in kinds:
        mine = [e for e in new if e.kind == kind]
        if mine:
            keys = mine[0].spec.key_fields
            per = f" and per {_key_label(keys)}" if keys else ""
            parts.append(f"{len(mine)} {kind}(s), one per operation id{per}")
    return passed("; ".join(parts), *(e.id for e in new))
