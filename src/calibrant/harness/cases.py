"""Cases a trial can actually run: each case's fixture must fit the versioned base dataset
(known tenant, an order that exists and belongs to that tenant, a policy the tenant has, amounts
within what was paid) and its faults must name real tools. Checked for every case before any
trial runs; each problem is one line naming the file, the line and the field."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from ..contracts import CaseContract
from ..domains import UnknownDomain, same_domain
from ..domains import runtime as domain_runtime
from ..files import field_error, load_case
from ..ledger.dataset import DATASETS, base_rows
from ..ledger.tables import CustomerRow, OrderRow, PolicyRow, TenantRow
from .toolspec import tool_names

__all__ = [
    "case_problems",
    "refund_case_problems",
    "fault_tool_problems",
    "load_runnable_cases",
]

Loc = tuple[int | str, ...]


UNCONFIRMED = (
    "not filled: a person must confirm the expected outcome before trials run this case "
    "(it was drafted from a transcript; the comments above it say what was observed)"
)


def case_problems(case: CaseContract, *, confirmed: bool = True) -> list[tuple[Loc, str]]:
    """(location, message) of every inconsistency between the case and the dataset; with
    `confirmed`, a case whose expected outcome is not filled yet is one too (trials refuse it)."""
    if confirmed and case.expected is None:
        return [(("expected",), UNCONFIRMED)]
    try:
        runtime = domain_runtime(case.domain)
    except UnknownDomain as exc:
        return [(("domain",), str(exc))]
    return [(tuple(loc), message) for loc, message in runtime.case_problems(case)]


def refund_case_problems(case: CaseContract) -> list[tuple[Loc, str]]:
    """The refund shop's check of a case against its versioned dataset (its runtime's
    `case_problems`)."""
    fx = case.refunds_fixture
    if fx.dataset not in DATASETS:
        return [
            (("fixture", "dataset"), f"unknown dataset {fx.dataset}; known: {', '.join(DATASETS)}")
        ]
    rows = base_rows(fx.dataset)
    tenants = sorted(r.tenant_id for r in rows if isinstance(r, TenantRow))
    if fx.tenant not in tenants:
        return [(("fixture", "tenant"), f"unknown tenant {fx.tenant}; known: {', '.join(tenants)}")]
    orders = {r.order_id: r for r in rows if isinstance(r, OrderRow)}
    own = sorted(o for o, r in orders.items() if r.tenant_id == fx.tenant)
    order = orders.get(fx.order)
    if order is None:
        return [
            (
                ("fixture", "order"),
                f"no order {fx.order} in dataset {fx.dataset}; {fx.tenant} has {', '.join(own)}",
            )
        ]
    if order.tenant_id != fx.tenant:
        return [
            (
                ("fixture", "order"),
                f"order {fx.order} belongs to {order.tenant_id}, not to the case's tenant "
                f"{fx.tenant} (its orders: {', '.join(own)})",
            )
        ]
    problems: list[tuple[Loc, str]] = []
    if fx.customer is not None:
        owner = next(
            (
                r.tenant_id
                for r in rows
                if isinstance(r, CustomerRow) and r.customer_id == fx.customer
            ),
            None,
        )
        if owner != fx.tenant:
            where = "no such customer" if owner is None else f"a customer of {owner}"
            problems.append(
                (("fixture", "customer"), f"{fx.customer}: {where}, not of {fx.tenant}")
            )
    policies = sorted(
        r.policy_id for r in rows if isinstance(r, PolicyRow) and r.tenant_id == fx.tenant
    )
    if fx.policy_version not in policies:
        problems.append(
            (
                ("fixture", "policy_version"),
                f"{fx.tenant} has no policy {fx.policy_version}; it has {', '.join(policies)}",
            )
        )
    paid = fx.paid_minor_units
    prior = sum(r.amount_minor_units for r in fx.prior_refunds)
    if prior > paid:
        problems.append(
            (
                ("fixture", "prior_refunds"),
                f"earlier refunds total {prior}, over the {paid} paid for {fx.order}",
            )
        )
    problems += _expected_problems(case, paid - prior, f"paid {paid}, earlier refunds {prior}")
    return problems + fault_tool_problems(case, tool_names())


def fault_tool_problems(case: CaseContract, tools: Sequence[str]) -> list[tuple[Loc, str]]:
    """Faults scheduled on a tool the domain's service does not have (they would never fire):
    any pack's `case_problems` can use it with its own tools."""
    return [
        (
            ("faults", i, "on_tool"),
            f"no tool named {fault.on_tool}, so the fault would never fire; "
            f"tools: {', '.join(tools)}",
        )
        for i, fault in enumerate(case.faults)
        if fault.on_tool not in tools
    ]


def _expected_problems(case: CaseContract, left: int, why: str) -> list[tuple[Loc, str]]:
    """Expected refunds above what can still be refunded on the order."""
    problems: list[tuple[Loc, str]] = []
    outcomes = case.acceptable_outcomes()
    for i, outcome in enumerate(outcomes):
        at: Loc = ("expected", i) if isinstance(case.expected, list) else ("expected",)
        over = f"over the {left} refundable on {case.refunds_fixture.order} ({why})"
        total = outcome.refund_total_minor_units
        if total is not None and total > left:
            problems.append(((*at, "refund_total_minor_units"), f"{total} is {over}"))
        for j, refund in enumerate(outcome.refunds or []):
            if refund.order == case.refunds_fixture.order and refund.amount_minor_units > left:
                problems.append(
                    (
                        (*at, "refunds", j, "amount_minor_units"),
                        f"{refund.amount_minor_units} is {over}",
                    )
                )
    return problems


def load_runnable_cases(files: Iterable[Path]) -> list[CaseContract]:
    """Every case file, parsed and checked against its domain's world (the refund shop's
    dataset, another pack's `case_problems`); one case id per file, one domain for all. The
    first problem found raises an InputError naming file, line and field."""
    cases: list[CaseContract] = []
    seen: dict[str, Path] = {}
    for path in files:
        case = load_case(path)
        if cases:
            first = cases[0]
            of = str(seen[first.case])
            same_domain(path, case.domain, expected=first.domain, expected_from=of)
        problems = case_problems(case)
        if problems:
            loc, message = problems[0]
            raise field_error(path, loc, message)
        if case.case in seen:
            raise field_error(
                path,
                ("case",),
                f"case id {case.case} is also the id of {seen[case.case]}; trials of both would "
                "write the same transcript files",
            )
        seen[case.case] = path
        cases.append(case)
    return cases
