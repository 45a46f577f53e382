"""Does the end state match one acceptable outcome of the case contract?"""

from __future__ import annotations

from ...contracts.forms import form_of
from ...domains.records import Entry, TrialEnd
from ..access import work_item
from ..effects import new_effects
from ..evidence import Evidence
from ..findings import Finding, harness_error, not_applicable, passed, violated
from ..generic import end_state
from ..registry import invariant


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
    check = form.outcome_mismatches
    if check is None:
        return harness_error(
            f"domain '{form.domain}' reads its cases' outcomes in its own model, and its file "
            "form declares no check for them (outcome_mismatches)"
        )
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
    end = TrialEnd(pack, tuple(effects), item, requested)
    ids = [e.id for e in effects] + [item.id]
    tried = []
    for i, want in enumerate(c.acceptable_outcomes(), start=1):
        name = getattr(want, "name", None) or f"outcome {i}"
        miss = check(want, end)
        if not miss:
            return passed(f"matches acceptable outcome '{name}'", *ids)
        tried.append((len(miss), name, miss))
    _, name, miss = min(tried, key=lambda x: x[0])
    return violated(f"matches no acceptable outcome; closest '{name}': " + "; ".join(miss), *ids)


def _domain_end_state(ev: Evidence) -> Finding:
    """An end state against its case's `DomainOutcome`s, read by the pack's roles (an outcome
    in the pack's own model is checked by its form, above)."""
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
