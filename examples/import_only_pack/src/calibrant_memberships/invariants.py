"""The chain's own rule, which no role of calibrant's generic invariants states:

- cancel_only_active: a membership is cancelled (and refunded) only while it is active; a
  paused, lapsed or already cancelled one is not (the chain refunds the unused part of a month
  the member is paying for, and a lapsed membership pays for none).

It reads the club's records before and after the conversation (the evaluator's snapshots, as
the pack's `Club` model), never what the agent said about its own work."""

from __future__ import annotations

from typing import cast

from calibrant.pack import Evidence, Finding, not_applicable, pack_invariant, passed, violated

from .records import Club

__all__ = ["INVARIANTS", "cancel_only_active"]


@pack_invariant(
    "cancel_only_active",
    "a membership is cancelled and refunded only while it is active",
)
def cancel_only_active(ev: Evidence) -> Finding:
    before, after = (cast(Club | None, club) for club in ev.tenant_models())
    if before is None or after is None:
        return not_applicable(f"the snapshots hold no club {ev.acting}")
    old = {c.cancellation_id for c in before.cancellations}
    new = [c for c in after.cancellations if c.cancellation_id not in old]
    if not new:
        return not_applicable("no membership was cancelled")
    status = {m.membership_id: m.status for m in before.memberships}
    wrong = [c for c in new if status.get(c.membership_id) != "active"]
    if wrong:
        c = wrong[0]
        was = status.get(c.membership_id)
        return violated(
            f"membership {c.membership_id} was cancelled ({c.cancellation_id}, refund "
            f"{c.refund_minor_units}) while {was or 'not in the snapshot before'}",
            *(w.cancellation_id for w in wrong),
        )
    return passed(
        f"{len(new)} cancellation(s), each of a membership that was active",
        *(c.cancellation_id for c in new),
    )


INVARIANTS = (cancel_only_active,)
