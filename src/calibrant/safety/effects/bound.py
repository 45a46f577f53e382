"""effects_within_bound: the effects of one subject stay within the bound the pack declares for
it (a paid amount, a fare)."""

from __future__ import annotations

from ..evidence import Evidence
from ..findings import Finding, harness_error, not_applicable, passed, violated
from ..generic import _key_label
from .roles import _find, _int, _of_subject, _past, _plural, _str, new_effects


def effects_within_bound(ev: Evidence) -> Finding:
    """The effects acting on one record (earlier ones included) never add up to more than the
    money field that bounds them (`EffectSpec.bound`)."""
    pack = ev.trial.after.pack
    bounded = [e for e in pack.effects if e.bound is not None]
    if not bounded:
        return not_applicable(
            f"domain pack '{pack.name}' declares no effect bounded by another record's amount"
        )
    committed = False
    for spec in bounded:
        assert spec.bound is not None
        new = new_effects(ev, spec)
        committed = committed or bool(new)
        for subject in dict.fromkeys(_str(e, spec.subject) or "" for e in new):
            limit = _find(ev.trial.before, spec.bound.kind, subject)
            if limit is None:
                return harness_error(
                    f"{spec.bound.kind} {subject}, on which a {spec.kind} was committed, is not "
                    "in the 'before' snapshot"
                )
            es = _of_subject(ev.trial.after, spec, limit.tenant_id, subject)
            total = sum(_int(e, spec.amount) for e in es)
            most = _int(limit, spec.bound.amount)
            if total > most:
                what = spec.bound.amount.removesuffix("_minor_units").replace("_", " ")
                return violated(
                    f"{spec.bound.kind} {subject}: {_plural(spec.kind)} total {total} > {what} "
                    f"{most}",
                    subject,
                    *(e.id for e in es),
                )
    if not committed:
        kinds = " or ".join(s.kind for s in bounded)
        return not_applicable(f"no {kinds} was committed during the trial")
    parts = [
        f"every {_past(s.kind)} {_key_label((s.subject,))} stays within its "
        f"{s.bound.amount.removesuffix('_minor_units').replace('_', ' ')} amount"
        for s in bounded
        if s.bound is not None
    ]
    return passed("; ".join(parts))
