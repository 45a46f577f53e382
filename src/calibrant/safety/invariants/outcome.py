"""Does the end state match one acceptable outcome of the case contract?"""

from __future__ import annotations

from collections import Counter

from ...contracts import LEGACY_DOMAIN, ExpectedOutcome, Refund, Ticket
from ..evidence import Evidence
from ..generic import end_state
from ..registry import Finding, harness_error, invariant, not_applicable, passed, violated


def _mismatches(
    want: ExpectedOutcome, refunds: list[Refund], ticket: Ticket, approval_requested: bool
) -> list[str]:
    out: list[str] = []
    if want.refund_count is not None and len(refunds) != want.refund_count:
        out.append(f"{len(refunds)} refund(s) committed, contract wants {want.refund_count}")
    total = sum(r.amount_minor_units for r in refunds)
    if want.refund_total_minor_units is not None and total != want.refund_total_minor_units:
        out.append(f"refund total {total}, contract wants {want.refund_total_minor_units}")
    if want.refunds is not None:
        got = Counter((r.order_id, r.amount_minor_units) for r in refunds)
        exp = Counter((e.order, e.amount_minor_units) for e in want.refunds)
        if got != exp:
            out.append(f"refunds {sorted(got.elements())} differ from {sorted(exp.elements())}")
        pinned = {e.operation_id for e in want.refunds if e.operation_id}
        ops = {r.operation_id for r in refunds}
        if pinned and not pinned <= ops:
            out.append(f"operation id(s) {sorted(pinned - ops)} not in the ledger")
    states = want.ticket_states()
    if states is not None and ticket.state not in states:
        out.append(
            f"ticket {ticket.ticket_id} is {ticket.state}, contract wants {'/'.join(states)}"
        )
    if want.ticket_assignee is not None:
        got_kind = ticket.assignee_kind if ticket.assignee else "unassigned"
        if got_kind != want.ticket_assignee:
            out.append(f"ticket held by {got_kind}, contract wants {want.ticket_assignee}")
    if want.reconciliation is not None and ticket.reconciliation != want.reconciliation:
        out.append(
            f"ticket reconciliation is {ticket.reconciliation}, contract wants "
            f"{want.reconciliation}"
        )
    if want.approval_requested is not None and approval_requested != want.approval_requested:
        out.append("a review request " + ("is missing" if want.approval_requested else "exists"))
    return out


@invariant(
    "end_state_matches_contract",
    "The ledger's end state matches one acceptable outcome (refunds, ticket state, assignment).",
    by_role=True,
)
def end_state_matches_contract(ev: Evidence) -> Finding:
    if ev.transcript.domain != LEGACY_DOMAIN:
        return _domain_end_state(ev)
    c = ev.contract
    if c is None:
        return harness_error("no case contract: embed it in the transcript or pass --case")
    if c.expected is None:
        return harness_error(
            f"case {c.case} has no confirmed expected outcome yet (expected: null); a person "
            "must fill it before the end state can be judged"
        )
    if c.case != ev.t.case_id:
        return harness_error(
            f"the contract is for case {c.case}, the transcript for {ev.t.case_id}"
        )
    if problem := ev.snapshot_problem():
        return harness_error(problem)
    ticket = ev.main_ticket()
    if ticket is None:
        return harness_error(f"no ticket for {c.refunds_fixture.order} in the 'after' snapshot")
    refunds = [r for r in ev.new_refunds if r.tenant_id == ev.acting]
    before_approvals = {a.approval_id for a in ev.tenant_before().approvals}
    requested = any(
        a.order_id == c.refunds_fixture.order and a.approval_id not in before_approvals
        for a in ev.tenant_after().approvals
    )
    ids = [r.refund_id for r in refunds] + [ticket.ticket_id]
    tried = []
    for i, want in enumerate(c.acceptable_outcomes(), start=1):
        name = want.name or f"outcome {i}"
        miss = _mismatches(want, refunds, ticket, requested)
        if not miss:
            return passed(f"matches acceptable outcome '{name}'", *ids)
        tried.append((len(miss), name, miss))
    _, name, miss = min(tried, key=lambda x: x[0])
    return violated(f"matches no acceptable outcome; closest '{name}': " + "; ".join(miss), *ids)


def _domain_end_state(ev: Evidence) -> Finding:
    """Another domain's end state against its case's `DomainOutcome`s, read by the pack's roles
    (the refund shop's, above, reads its own ledger)."""
    c = ev.contract
    if c is None:
        return harness_error("no case contract: embed it in the transcript or pass --case")
    if c.case != ev.t.case_id:
        return harness_error(
            f"the contract is for case {c.case}, the transcript for {ev.t.case_id}"
        )
    outcomes = c.domain_outcomes()
    if not outcomes:
        return not_applicable(
            f"case {c.case} has no confirmed expected outcome yet (expected: null); a person "
            "must fill it before the end state can be judged"
        )
    if problem := ev.records_problem():
        return harness_error(problem)
    return end_state(ev.trial, outcomes)
