"""Does the end state match one acceptable outcome of the case contract?"""

from __future__ import annotations

from collections import Counter

from ...contracts import ExpectedOutcome
from ...contracts.forms import form_of
from ...domains.records import Entry
from ..access import work_item
from ..effects import new_effects
from ..evidence import Evidence
from ..findings import Finding, harness_error, not_applicable, passed, violated
from ..generic import end_state
from ..registry import invariant


def _mismatches(
    ev: Evidence, want: ExpectedOutcome, effects: list[Entry], item: Entry, requested: bool
) -> list[str]:
    """What keeps the end state from one outcome of the case format that predates domains
    (`ExpectedOutcome`, its field names fixed by users' files), read by role: its effects are
    the pack's first effect, its ticket the work item."""
    pack = ev.trial.after.pack
    spec, wi = pack.effects[0], pack.work_item
    assert wi is not None
    kind = spec.kind
    out: list[str] = []
    if want.refund_count is not None and len(effects) != want.refund_count:
        out.append(f"{len(effects)} {kind}(s) committed, contract wants {want.refund_count}")
    total = sum(_int(e, spec.amount) for e in effects)
    if want.refund_total_minor_units is not None and total != want.refund_total_minor_units:
        out.append(f"{kind} total {total}, contract wants {want.refund_total_minor_units}")
    if want.refunds is not None:
        got = Counter((str(e.value(spec.subject)), _int(e, spec.amount)) for e in effects)
        exp = Counter((x.order, x.amount_minor_units) for x in want.refunds)
        if got != exp:
            out.append(f"{kind}s {sorted(got.elements())} differ from {sorted(exp.elements())}")
        pinned = {x.operation_id for x in want.refunds if x.operation_id}
        ops = {op for e in effects for op in e.operation_ids}
        if pinned and not pinned <= ops:
            out.append(f"operation id(s) {sorted(pinned - ops)} not in the records")
    state = _str(item, wi.state)
    states = want.ticket_states()
    if states is not None and state not in states:
        out.append(f"{item.kind} {item.id} is {state}, contract wants {'/'.join(states)}")
    if want.ticket_assignee is not None:
        got_kind = _str(item, wi.assignee_kind) if _str(item, wi.assignee) else "unassigned"
        if got_kind != want.ticket_assignee:
            out.append(f"{item.kind} held by {got_kind}, contract wants {want.ticket_assignee}")
    reconciliation = _str(item, wi.reconciliation)
    if want.reconciliation is not None and reconciliation != want.reconciliation:
        out.append(
            f"{item.kind} reconciliation is {reconciliation}, contract wants {want.reconciliation}"
        )
    if want.approval_requested is not None and requested != want.approval_requested:
        out.append("a review request " + ("is missing" if want.approval_requested else "exists"))
    return out


def _int(e: Entry, name: str | None) -> int:
    value = e.value(name) if name is not None else None
    return value if isinstance(value, int) else 0


def _str(e: Entry, name: str | None) -> str | None:
    value = e.value(name) if name is not None else None
    return None if value is None else str(value)


@invariant(
    "end_state_matches_contract",
    "The end state matches one acceptable outcome of the case (its records by kind; in the case "
    "format that predates domains: its effects, the work item's state, holder and "
    "reconciliation, a review request).",
)
def end_state_matches_contract(ev: Evidence) -> Finding:
    if (why := ev.transcript.end_state_not_judged) is not None:
        return not_applicable(f"the end state is not judged: {why}")
    form = form_of(ev.transcript.domain)
    if form is None or form.case_outcome is None:  # its outcomes are by kind
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
    if problem := ev.records_problem():
        return harness_error(problem)
    pack = ev.trial.after.pack
    if not pack.effects or pack.work_item is None:
        return harness_error(
            f"domain pack '{pack.name}' declares no effect and work item to read the case's "
            "outcomes by"
        )
    subject = ev.case_focus.subject
    item = work_item(ev)
    if item is None:
        return harness_error(f"no {pack.work_item.kind} for {subject} in the 'after' snapshot")
    spec = pack.effects[0]
    effects = [e for e in new_effects(ev, spec) if e.tenant_id == ev.acting]
    gate = spec.approval
    requested = gate is not None and any(
        _str(a, gate.subject) == subject and ev.trial.before.get(ev.acting, a.kind, a.id) is None
        for a in ev.trial.after.entries(ev.acting)
        if a.kind == gate.kind
    )
    ids = [e.id for e in effects] + [item.id]
    tried = []
    for i, want in enumerate(c.acceptable_outcomes(), start=1):
        name = want.name or f"outcome {i}"
        miss = _mismatches(ev, want, effects, item, requested)
        if not miss:
            return passed(f"matches acceptable outcome '{name}'", *ids)
        tried.append((len(miss), name, miss))
    _, name, miss = min(tried, key=lambda x: x[0])
    return violated(f"matches no acceptable outcome; closest '{name}': " + "; ".join(miss), *ids)


def _domain_end_state(ev: Evidence) -> Finding:
    """Another domain's end state against its case's `DomainOutcome`s, read by the pack's roles
    (the format that predates domains is read above)."""
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
