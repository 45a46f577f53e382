"""Messages within what the case allows: a cap on the messages the receiver accepted, read from
the matching acceptable outcome's conditions by the role the pack declares
(`DomainPack.message_cap`). Only packs that declare it are checked by it."""

from __future__ import annotations

from ...domains import DomainPack
from ..evidence import Evidence
from ..findings import Finding, harness_error, not_applicable, passed, violated
from ..generic import end_state
from ..registry import invariant


def _declares_a_cap(pack: DomainPack) -> bool:
    return pack.message_cap is not None


@invariant(
    "notifications_within_contract",
    "The messages the receiver accepted for the acting tenant are no more than the matching "
    "acceptable outcome allows (the cap the pack's outcome conditions hold).",
    offered_to=_declares_a_cap,
)
def notifications_within_contract(ev: Evidence) -> Finding:
    if problem := ev.records_problem():
        return harness_error(problem)
    pack = ev.trial.after.pack
    field, model = pack.message_cap, pack.case_outcome
    if field is None or model is None:  # it is offered only to packs declaring one
        return not_applicable(f"domain pack '{pack.name}' declares no cap on messages")
    c = ev.contract
    outcomes = c.domain_outcomes() if c is not None else []
    capped: list[tuple[str | None, int | None]] = []
    for o in outcomes:
        cap = getattr(model.model_validate(o.params), field)
        capped.append((o.name, cap if isinstance(cap, int) else None))
    if not any(cap is not None for _, cap in capped):
        return not_applicable("no acceptable outcome caps the notifications")
    matched = [
        (name, cap)
        for o, (name, cap) in zip(outcomes, capped, strict=True)
        if end_state(ev.trial, [o]).outcome == "pass"
    ]
    if not matched:
        return not_applicable("the end state matches no acceptable outcome (see the contract)")
    t = ev.transcript
    sent = [a for a in t.notifications.attempts if a.tenant_id == ev.acting]
    ok = {a.attempt_id for a in sent if a.result == "accepted"}
    accepted = [m.attempt_id for m in t.notifications.accepted if m.attempt_id in ok]
    for name, cap in matched:
        if cap is None or len(accepted) <= cap:
            return passed(
                f"{len(accepted)} message(s) accepted, within outcome '{name}'", *accepted
            )
    most = min(cap or 0 for _, cap in matched)
    return violated(f"{len(accepted)} message(s) accepted, at most {most} allowed", *accepted)
