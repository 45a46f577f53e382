"""The retail pack's declaration: found by calibrant's registry through a real entry point (a
dist-info on sys.path, as pip leaves it: see conftest), conforming to calibrant's checks (every
role on a field of its record, its cases and transcripts read against the pack by
`calibrant.domains.conform`), its runtime built lazily, its world the benchmark's data in
cents, and a bad case file said in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from calibrant_retail import DATA, OWNED_KINDS, pack
from calibrant_retail.cases import Fixture, load_cases
from calibrant_retail.invariants import INVARIANTS
from calibrant_retail.records import RetailSnapshot
from calibrant_retail.runtime import RetailRuntime
from calibrant_retail.service import TOOLS
from calibrant_retail.world import WORLD

from calibrant import domains
from calibrant.domains.conform import conform_case, conform_transcript
from calibrant.errors import CalibrantError
from calibrant.files import load_case
from calibrant.safety import registered

TAU2_TASKS = {"2", "3", "6", "17", "24", "33", "38", "40"}


def test_the_pack_loads_through_its_entry_point() -> None:
    found = domains.get("retail")
    assert found.entry_point == "retail = calibrant_retail:pack"
    assert not [b for b in domains.broken() if "retail" in b.entry_point]
    p = found.pack
    assert (p.name, p.title) == ("retail", "Retail customer service")
    assert p.snapshot is not None and p.snapshot.model is RetailSnapshot
    assert p.case_fixture is Fixture and p.case_outcome is None
    assert p.correct_agent == "scripted:retail-correct" and len(p.faulty_agents) == 4
    runtime = domains.runtime("retail")
    assert isinstance(runtime, RetailRuntime)
    assert list(runtime.agent_names()) == list(p.agents)


def test_listing_the_pack_imports_no_service_code() -> None:
    code = (
        "import sys, calibrant_retail; calibrant_retail.pack(); "
        "print(sorted(m for m in sys.modules if m.startswith('calibrant_retail.')))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    loaded = done.stdout.strip()
    for module in ("service", "runtime", "agents", "world"):
        assert f"calibrant_retail.{module}'" not in loaded, loaded


def test_customers_own_records_and_the_catalogue_is_nobodys() -> None:
    """One tenant (the shop); who owns a record is the pack's role (OWNED_KINDS); products and
    variants name no tenant and no customer."""
    p = pack()
    assert p.record("product").tenant_field is None and p.record("variant").tenant_field is None
    assert set(OWNED_KINDS) == {s.kind for s in p.records} - {"product", "variant"}
    for kind, field in OWNED_KINDS.items():
        assert field in p.record(kind).model.model_fields, (kind, field)
    refund = p.effect("refund")
    assert refund is not None and refund.bound is not None
    assert (refund.bound.kind, refund.bound.amount) == ("order", "paid_minor_units")
    assert p.record("customer").address_fields == ("email",)


def test_the_runtime_serves_the_benchmarks_tools_and_the_invariants() -> None:
    rt = RetailRuntime()
    names = [s["function"]["name"] for s in rt.tool_specs()]
    assert names == TOOLS.names() and len(names) == 13
    assert {"find_user_id_by_email", "cancel_pending_order", "modify_user_address"} <= set(names)
    mine = [inv.name for inv in rt.invariants()]
    assert mine == [
        "authenticated_before_acting",
        "explicit_yes_before_each_write",
        "own_records_only",
        "order_status_rules",
    ]
    assert not set(mine) & {inv.name for inv in registered()}
    assert all(inv.summary and "\n" not in inv.summary for inv in INVARIANTS)


def test_the_cases_conform_and_name_their_benchmark_tasks() -> None:
    p = pack()
    cases = load_cases()
    assert len(cases) >= 8 and {c.domain for c in cases} == {"retail"}
    named = set()
    for c in cases:
        conform_case(p, c)
        assert c.customer_script and c.domain_outcomes(), c.case
        assert not RetailRuntime().case_problems(c), c.case
        first = (p.cases / f"{c.case}.yaml").read_text(encoding="utf-8").splitlines()[0]
        if c.case.startswith("tau2_"):
            task = c.case.split("_")[1]
            assert f"retail task {task} " in first, first
            named.add(task)
    assert named == TAU2_TASKS


def test_a_trials_transcript_conforms_to_the_pack(tmp_path: Path) -> None:
    case = load_case(pack().cases / "tau2_38_cancel_pending.yaml")
    rt = RetailRuntime()
    t = rt.run_trial(
        case,
        "scripted:retail-correct",
        trial=1,
        seed=0,
        workdir=tmp_path,
        agent_factory=rt.make_agent,
    )
    conform_transcript(pack(), t)
    assert t.domain == "retail" and t.acting_tenant == "shop"
    assert t.snapshot_before is not None and {x.tenant_id for x in t.snapshot_before.tenants} == {
        "outlet",
        "shop",
    }


def test_the_world_is_the_benchmarks_subset_in_cents() -> None:
    assert len(WORLD.customers) == 7 and len(WORLD.orders) == 20 and len(WORLD.products) == 31
    order = next(o for o in WORLD.orders if o.order_id == "W9348897")
    assert (order.user_id, order.status, order.paid_minor_units) == (
        "daiki_sanchez_3253",
        "pending",
        116698,
    )
    lines = [x for x in WORLD.order_lines if x.order_id == "W9348897"]
    assert sum(x.price_minor_units for x in lines) == 116698
    card = next(m for m in WORLD.payment_methods if m.payment_method_id == "gift_card_8245350")
    assert card.balance_minor_units == 6000 and card.user_id == "isabella_lopez_6490"
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    assert "sierra-research/tau2-bench" in readme and "MIT" in readme
    assert "a2c024725189473d2d7cea3a5cfdbcc67478e41f" in readme


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("tenant: shop", "tenant: shop\n  params: {status_guard: maybe}", "fixture.params"),
        ('"status": "cancelled"}', '"stage": "cancelled"}', "expected.0.records"),
        ('"refund": 1,', '"refunds": 1,', "expected.0.created"),
    ],
)
def test_a_bad_case_file_is_one_line_naming_file_and_field(
    old: str, new: str, field: str, tmp_path: Path
) -> None:
    text = (DATA / "cases" / "tau2_38_cancel_pending.yaml").read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(CalibrantError) as caught:
        load_case(bad)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{bad}:"), message
    assert field in message, message


def test_a_case_naming_an_order_the_shop_lacks_cannot_run(tmp_path: Path) -> None:
    text = (DATA / "cases" / "cancel_delivered_unguarded.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("status_guard: false", "order_status: {W0000001: delivered}"))
    problems = RetailRuntime().case_problems(load_case(bad))
    assert problems == [
        (
            ("fixture", "params", "order_status", "W0000001"),
            "no order W0000001 in the shop (order ids without '#')",
        )
    ]
