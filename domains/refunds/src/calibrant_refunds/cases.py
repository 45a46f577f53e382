"""The refund shop's check of a case before any trial runs it: its fixture must fit the
versioned base dataset (known tenant, an order that exists and belongs to that tenant, a policy
the tenant has, amounts within what was paid) and its faults must name real tools."""

from __future__ import annotations

from calibrant.contracts import CaseContract
from calibrant.harness.cases import fault_tool_problems

from .case_models import outcomes as acceptable
from .case_models import refunds_fixture
from .ledger.dataset import DATASETS, base_rows
from .ledger.tables import CustomerRow, OrderRow, PolicyRow, TenantRow
from .toolspec import tool_names

__all__ = ["refund_case_problems"]

Loc = tuple[int | str, ...]


def refund_case_problems(case: CaseContract) -> list[tuple[Loc, str]]:
    """The refund shop's check of a case against its versioned dataset (its runtime's
    `case_problems`)."""
    fx = refunds_fixture(case)
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


def _expected_problems(case: CaseContract, left: int, why: str) -> list[tuple[Loc, str]]:
    """Expected refunds above what can still be refunded on the order."""
    problems: list[tuple[Loc, str]] = []
    outcomes = acceptable(case)
    for i, outcome in enumerate(outcomes):
        at: Loc = ("expected", i) if isinstance(case.expected, list) else ("expected",)
        over = f"over the {left} refundable on {refunds_fixture(case).order} ({why})"
        total = outcome.refund_total_minor_units
        if total is not None and total > left:
            problems.append(((*at, "refund_total_minor_units"), f"{total} is {over}"))
        for j, refund in enumerate(outcome.refunds or []):
            if refund.order == refunds_fixture(case).order and refund.amount_minor_units > left:
                problems.append(
                    (
                        (*at, "refunds", j, "amount_minor_units"),
                        f"{refund.amount_minor_units} is {over}",
                    )
                )
    return problems
