"""A regression case drafted from a transcript (a production failure, or a failed trial).

Kept: the starting state (the transcript's case fixture, or one read from the evaluator's
'before' snapshot), the fault points the transcript shows firing (as a fault schedule on the
same call of the same tool), and what the customer said. Redacted (`redact.Redactor`), with
stable placeholders: personal data in every text the draft copies from the transcript — the
customer's messages, a customer's note the starting state keeps, the transcript id (copied
into the title), the agent's name (copied into the description: a production agent may be
named by a person's email), and every comment line (what was observed, with the safety
messages and the agent's operation ids; the outcomes the original case accepted). Left to a
person: the expected outcome (`expected: null`, with what was observed and the original case's
outcomes as comments), which `trials` refuses until filled.

The starting state, and the fault point a lost answer stands for in a log without fault
events, are the pack's to say (`DomainPack.case_draft`); the rest is read by its roles (the
people's names, the effects committed, the work items at the end)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from ..contracts import CaseContract, DomainSnapshot, FaultSpec, Transcript
from ..domains import DomainPack, UnknownDomain
from ..domains import get as get_pack
from ..domains.conform import tenant_snapshot
from ..domains.records import Entry, RecordView
from ..errors import InputError
from ..harness.cases import case_problems
from ..safety import check_transcript
from .redact import Redactor

__all__ = ["Draft", "draft_case"]


@dataclass(frozen=True)
class Draft:
    """The drafted case, its YAML text (with the comments for the person who confirms it), and
    what redaction replaced (kind -> distinct values)."""

    case: CaseContract
    text: str
    redacted: dict[str, int]


def _drafting_pack(t: Transcript, source: str) -> DomainPack:
    """The transcript's pack, when it says how its cases are drafted (InputError otherwise)."""
    try:
        pack = get_pack(t.domain).pack
    except UnknownDomain as exc:
        raise InputError(source, str(exc), field="domain") from None
    if pack.case_draft is None:
        raise InputError(
            source,
            f"domain '{t.domain}': cases are drafted from the transcripts of a pack that says "
            "how to read their starting state (its case_draft), and this pack declares none "
            "yet: write the case by hand",
            field="domain",
        )
    return pack


def _view(pack: DomainPack, snap: DomainSnapshot | None, source: str) -> RecordView | None:
    """One evaluator snapshot's records through the pack (None: no snapshot)."""
    if snap is None:
        return None
    try:
        return RecordView(pack, [tenant_snapshot(pack, tenant) for tenant in snap.tenants])
    except ValidationError:
        raise InputError(
            source, f"a snapshot does not read as domain pack '{pack.name}' declares it"
        ) from None


def _fixture(pack: DomainPack, t: Transcript, r: Redactor, source: str) -> BaseModel:
    assert pack.case_draft is not None
    try:
        return pack.case_draft.fixture(t, r.text)
    except ValidationError:
        raise
    except ValueError as exc:
        raise InputError(source, str(exc)) from None


def _faults(pack: DomainPack, t: Transcript) -> list[FaultSpec]:
    """Fault points observed, on the n-th schema-valid call of their tool (as the tool box
    counts them), in the order they fired."""
    assert pack.case_draft is not None
    lost = pack.case_draft.lost
    nth: dict[str, int] = {}
    where: dict[str, tuple[str, int]] = {}
    for c in t.tool_calls:
        if c.error != "invalid_argument":
            nth[c.tool] = nth.get(c.tool, 0) + 1
            where[c.call_id] = (c.tool, nth[c.tool])
    seen: list[tuple[str, str, int]] = []
    for e in t.events:
        if e.fault is not None and e.fault in pack.fault_points and e.call_id in where:
            seen.append((e.fault, *where[e.call_id]))
    fired = {tool for _, tool, _ in seen}
    for c in t.tool_calls:  # answers lost without a fault event
        point = lost.get((c.outcome, c.tool))
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


def _people(views: list[RecordView | None]) -> list[str]:
    """The names of people in the snapshots (the fields with the person_name role)."""
    names: list[str] = []
    for view in views:
        for e in view.entries() if view else []:
            names += [str(v) for f in e.spec.name_fields if (v := e.value(f)) is not None]
    return list(dict.fromkeys(names))


def _str(e: Entry, name: str | None) -> str | None:
    value = e.value(name) if name is not None else None
    return None if value is None else str(value)


def _observed(
    pack: DomainPack, t: Transcript, before: RecordView | None, after: RecordView | None
) -> list[str]:
    """What the trial ended with, in words (no personal data: ids, amounts, states), by the
    pack's roles: the effects committed in the acting tenant, its work items at the end."""
    lines: list[str] = []
    if after is None or before is None:
        return ["(no evaluator snapshots: the end state is unknown)"]
    acting = t.acting_tenant
    if not after.has(acting) or not before.has(acting):
        return ["(the acting tenant is missing from the snapshots)"]
    for spec in pack.effects:
        new = [
            e
            for e in after.entries(acting)
            if e.kind == spec.kind and before.get(acting, e.kind, e.id) is None
        ]
        amounts = [_int(e, spec.amount) for e in new]
        total = "" if spec.amount is None else f", total {sum(amounts)}"
        lines.append(f"{spec.kind}s committed in the trial: {len(new)}{total}")
        for e, amount in zip(new, amounts, strict=True):
            shown = "" if spec.amount is None else f" {amount}"
            ops = ", ".join(e.operation_ids) or "none"
            lines.append(f"  {_str(e, spec.subject)}{shown} (operation {ops})")
    wi = pack.work_item
    items = [] if wi is None else [k for k in after.entries(acting) if k.kind == wi.kind]
    for k in items:
        assert wi is not None
        who = _str(k, wi.assignee_kind) or "unassigned"
        state = f"{_str(k, wi.state)}, held by {who}"
        if wi.reconciliation is not None:
            state += f", {_str(k, wi.reconciliation)}"
        lines.append(f"{wi.kind} {k.id}: {state}")
    bad = check_transcript(t).violated
    lines.append(f"safety check: {len(bad)} invariant(s) violated")
    lines += [f"  {o.invariant}: {o.message}" for o in bad]  # redacted with the rest in _yaml
    return lines


def _int(e: Entry, name: str | None) -> int:
    value = e.value(name) if name is not None else None
    return value if isinstance(value, int) else 0


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
    pack = _drafting_pack(t, source)
    before = _view(pack, t.snapshot_before, source)
    after = _view(pack, t.snapshot_after, source)
    r = Redactor(_people([before, after]), extra_terms or [], not_names=pack.not_names)
    fixture = _fixture(pack, t, r, source)
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
        faults=_faults(pack, t),
    )
    problems = case_problems(case, confirmed=False)
    if problems:
        loc, message = problems[0]
        raise InputError(source, f"the drafted case does not fit the dataset: {message}")
    observed = _observed(pack, t, before, after)
    return Draft(case, _yaml(case, t, r, origin, observed), r.replaced())


def _yaml(case: CaseContract, t: Transcript, r: Redactor, origin: str, observed: list[str]) -> str:
    data: dict[str, Any] = case.model_dump(mode="json", exclude_none=True, exclude={"expected"})
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    notes = ["TO CONFIRM: write the agreed acceptable outcome(s) here; trials refuse `null`."]
    notes += ["Observed in the transcript:"] + [f"  {line}" for line in observed]
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
