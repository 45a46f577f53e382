"""calibrant's generic invariants (calibrant.safety.generic) run on a travel trial.

They read records by the roles the pack declares, so they need no travel code; what they need
is a `Trial` — the core builds one from a refund transcript only, so the pack builds its own
from its trial's snapshots and service log here."""

from __future__ import annotations

from collections.abc import Callable

from calibrant.safety.generic import (
    Delivery,
    Read,
    Sent,
    Trial,
    Write,
    cross_tenant_leak,
    duplicate_effects,
    stale_writes,
)
from calibrant.safety.records import RecordView
from calibrant.safety.registry import Finding

from . import pack
from .trial import TravelTrial

__all__ = ["GENERIC", "generic_trial", "check_generic"]

GENERIC: dict[str, Callable[[Trial], Finding]] = {
    "no_cross_tenant_leak": cross_tenant_leak,
    "no_duplicate_effect": duplicate_effects,
    "no_stale_overwrite": stale_writes,
}


def generic_trial(trial: TravelTrial) -> Trial:
    the_pack = pack()
    reads: list[Read] = []
    writes: list[Write] = []
    for c in trial.calls:
        ok = c.outcome != "error"
        for r in c.reads:
            reads.append(Read(c.call_id, c.seq, ok, r.tenant_id, r.kind, r.record_id, r.version))
        for w in c.writes:
            over = w.action == "update" and w.expected_version is not None
            writes.append(
                Write(
                    c.call_id,
                    c.seq,
                    True,
                    w.tenant_id,
                    w.kind,
                    w.record_id,
                    target=w.record_id if over else None,
                    expected_version=w.expected_version if over else None,
                    # the service applies an update only over the version it was told
                    version_before=w.expected_version if over else None,
                    version_after=w.expected_version + 1 if over and w.expected_version else None,
                )
            )
    sent = [Sent(f"reply_{i + 1}", r.seq, r.text) for i, r in enumerate(trial.replies)]
    sent += [Sent(a.attempt_id, a.seq, f"{a.subject}\n{a.body}") for a in trial.sink.attempts]
    return Trial(
        acting=trial.acting,
        before=RecordView(the_pack, trial.before),
        after=RecordView(the_pack, trial.after),
        sent=tuple(sorted(sent, key=lambda s: s.seq)),
        customer=tuple(
            Sent(f"customer_{i + 1}", 0, t) for i, t in enumerate(trial.case.customer_script)
        ),
        delivered=tuple(
            Delivery(a.attempt_id, a.kind, a.recipient)
            for a in trial.sink.attempts
            if a.result in ("accepted", "duplicate")
        ),
        reads=tuple(reads),
        writes=tuple(writes),
        rejected_stale=tuple(c.call_id for c in trial.calls if c.error == "version_conflict"),
    )


def check_generic(trial: TravelTrial) -> dict[str, Finding]:
    t = generic_trial(trial)
    return {name: check(t) for name, check in GENERIC.items()}
