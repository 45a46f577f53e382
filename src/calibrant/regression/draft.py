"""A regression case drafted from a transcript (a production failure, or a failed trial).

Kept: the starting state (the transcript's case fixture, or one read from the evaluator's
'before' snapshot), the fault points the transcript shows firing (as a fault schedule on the
same call of the same tool), and what the customer said. Redacted (`redact.Redactor`), with
stable placeholders: personal data in every text the draft copies from the transcript — the
customer's messages, the order's note, the transcript id (copied into the title), the agent's
name (copied into the description: a production agent may be named by a person's email), and
every comment line (what was observed, with the safety messages and the agent's operation ids;
the outcomes the original case accepted). Left to a person:
the expected outcome (`expected: null`, with what was observed and the original case's
outcomes as comments), which `trials` refuses until filled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from ..contracts import (
    FAULT_POINTS,
    CaseContract,
    FaultSpec,
    Fixture,
    PriorRefund,
    Transcript,
)
from ..contracts.forms import reads_itself
from ..errors import InputError
from ..harness.cases import case_problems
from ..safety import check_transcript
from .redact import Redactor

__all__ = ["Draft", "draft_case"]

# a lost answer with no fault event (a production log): the fault point it stands for
_LOST = {
    ("timeout", "create_refund"): "timeout_after_payment_commit",
    ("crash", "create_refund"): "crash_after_refund_commit",
    ("crash", "send_notification"): "crash_after_notification_accept",
}


@dataclass(frozen=True)
class Draft:
    """The drafted case, its YAML text (with the comments for the person who confirms it), and
    what redaction replaced (kind -> distinct values)."""

    case: CaseContract
    text: str
    redacted: dict[str, int]


def _fixture(t: Transcript, r: Redactor, source: str) -> Fixture:
    if t.case is not None:
        fx: Fixture = t.case.fixture  # the first pack's Fixture (its form's case_fixture)
        note = None if fx.customer_note is None else r.text(fx.customer_note)
        return fx.model_copy(update={"customer_note": note})
    before = t.ledger_before.tenant(t.acting_tenant) if t.ledger_before else None
    if before is None:
        raise InputError(source, "no case and no 'before' snapshot: the starting state is unknown")
    ticket = next((k for k in before.tickets if k.order_id), None)
    order = next((o for o in before.orders if ticket and o.order_id == ticket.order_id), None)
    if ticket is None or order is None:
        raise InputError(source, "the 'before' snapshot has no ticket about an order")
    grants = [p for p in before.permissions if p.principal == t.agent_principal]
    writable = [p for p in grants if "refund:write" in p.scopes]
    permission = "active"
    if writable and all(p.revoked_seq is not None for p in writable):
        permission = "revoked"
    return Fixture(
        tenant=t.acting_tenant,
        order=order.order_id,
        paid_minor_units=order.paid_minor_units,
        prior_refunds=[
            PriorRefund(operation_id=x.operation_id, amount_minor_units=x.amount_minor_units)
            for x in before.refunds
            if x.order_id == order.order_id
        ],
        policy_version=t.provenance.policy_version,
        customer=order.customer_id,
        ticket=ticket.ticket_id,
        order_status=order.status,
        write_permission=permission,
        customer_note=None if order.customer_note is None else r.text(order.customer_note),
    )


def _faults(t: Transcript) -> list[FaultSpec]:
    """Fault points observed, on the n-th schema-valid call of their tool (as the tool box
    counts them), in the order they fired."""
    nth: dict[str, int] = {}
    where: dict[str, tuple[str, int]] = {}
    for c in t.tool_calls:
        if c.error != "invalid_argument":
            nth[c.tool] = nth.get(c.tool, 0) + 1
            where[c.call_id] = (c.tool, nth[c.tool])
    seen: list[tuple[str, str, int]] = []
    for e in t.events:
        if e.fault is not None and e.fault in FAULT_POINTS and e.call_id in where:
            seen.append((e.fault, *where[e.call_id]))
    fired = {tool for _, tool, _ in seen}
    for c in t.tool_calls:  # answers lost without a fault event
        point = _LOST.get((c.outcome, c.tool))
        if point and c.writes and c.call_id in where and c.tool not in fired:
            seen.append((point, *where[c.call_id]))
    out: list[FaultSpec] = []
    for point, tool, n in dict.fromkeys(seen):
        scheduled = [
            f
            for f in t.provenance.fault_schedule
            if f.point == point and f.on_tool == tool and f.occurrence <= n
        ]
        # the schedule that fired it, with its parameters, when the transcript names one
        spec = scheduled[-1] if scheduled else None
        if spec is None or (spec.occurrence != n and not spec.params.get("persistent")):
            spec = FaultSpec(point=point, on_tool=tool, occurrence=n)
        if spec not in out:
            out.append(spec)
    return out


def _people(t: Transcript) -> list[str]:
    names: list[str] = []
    for snap in (t.ledger_before, t.ledger_after):
        for tenant in snap.tenants if snap else []:
            names += [c.name for c in tenant.customers]
    return list(dict.fromkeys(names))


def _observed(t: Transcript, r: Redactor) -> list[str]:
    """What the trial ended with, in words (no personal data: ids, amounts, states)."""
    lines: list[str] = []
    if t.ledger_after is None or t.ledger_before is None:
        return ["(no evaluator snapshots: the end state is unknown)"]
    after, before = t.ledger_after.tenant(t.acting_tenant), t.ledger_before.tenant(t.acting_tenant)
    if after is None or before is None:
        return ["(the acting tenant is missing from the snapshots)"]
    old = {x.refund_id for x in before.refunds}
    new = [x for x in after.refunds if x.refund_id not in old]
    total = sum(x.amount_minor_units for x in new)
    lines.append(f"refunds committed in the trial: {len(new)}, total {total}")
    lines += [f"  {x.order_id} {x.amount_minor_units} (operation {x.operation_id})" for x in new]
    for k in after.tickets:
        who = k.assignee_kind or "unassigned"
        lines.append(f"ticket {k.ticket_id}: {k.state}, held by {who}, {k.reconciliation}")
    bad = check_transcript(t).violated
    lines.append(f"safety check: {len(bad)} invariant(s) violated")
    lines += [f"  {o.invariant}: {o.message}" for o in bad]  # redacted with the rest in _yaml
    return lines


def draft_case(
    t: Transcript,
    *,
    case_id: str,
    tag: str = "regression",
    extra_terms: list[str] | None = None,
    source: str = "transcript",
) -> Draft:
    """Draft a case from `t`; raises InputError (naming `source`) when the transcript's
    starting state does not fit the dataset the service is built from."""
    if not reads_itself(t.domain):
        raise InputError(
            source,
            f"domain '{t.domain}': cases are drafted from the refund shop's transcripts only so "
            "far",
            field="domain",
        )
    r = Redactor(_people(t), extra_terms or [])
    fixture = _fixture(t, r, source)
    origin = r.text(t.transcript_id)  # a production id may hold an email or a name
    agent = r.text(t.provenance.agent)  # so may the agent's name ("ops.bot+ana.ruiz@shop.es")
    script = [r.text(turn.text) for turn in t.conversation if turn.role == "customer"]
    kept: dict[str, Any] = {} if t.case is None else {"invariants": t.case.invariants}
    case = CaseContract(
        **kept,
        domain=t.domain,  # the case is of its transcript's domain
        case=case_id,
        title=f"Regression drafted from transcript {origin}",
        description=(
            f"Drafted by `calibrant case from-transcript` from {origin} (agent "
            f"{agent}, {t.provenance.started_at:%Y-%m-%d}); personal data replaced "
            "by placeholders. The expected outcome must be confirmed by a person."
        ),
        tags=[tag],
        fixture=fixture,
        expected=None,
        customer_script=script,
        faults=_faults(t),
    )
    problems = case_problems(case, confirmed=False)
    if problems:
        loc, message = problems[0]
        raise InputError(source, f"the drafted case does not fit the dataset: {message}")
    return Draft(case, _yaml(case, t, r, origin), r.replaced())


def _yaml(case: CaseContract, t: Transcript, r: Redactor, origin: str) -> str:
    data: dict[str, Any] = case.model_dump(mode="json", exclude_none=True, exclude={"expected"})
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    notes = ["TO CONFIRM: write the agreed acceptable outcome(s) here; trials refuse `null`."]
    notes += ["Observed in the transcript:"] + [f"  {line}" for line in _observed(t, r)]
    if t.case is not None and t.case.expected is not None:
        original = yaml.safe_dump(
            {"expected": t.case.model_dump(mode="json", exclude_none=True)["expected"]},
            sort_keys=False,
            width=96,
        )
        notes += ["The case the transcript ran expected:"]
        notes += [f"  {line}" for line in original.splitlines()]
    # every comment line is the transcript's text: ids an agent chose, messages quoting data
    comment = "".join(f"# {r.text(line)}\n".replace("#   \n", "#\n") for line in notes)
    head = f"# Regression case drafted from transcript {origin}.\n"
    return head + body + comment + "expected: null\n"
