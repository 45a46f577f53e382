"""Domain packs are found through real entry points (a dist-info on sys.path, read by
importlib.metadata), their declarations are checked against their models, and a pack that
cannot be loaded is one line naming its entry point while the others stay usable."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant import domains
from calibrant.contracts import FAULT_POINTS, Order
from calibrant.domains import DomainPack, DomainPackError, RecordSpec, UnknownDomain
from calibrant_refunds.agents.scripted import BEHAVIOURS
from tests.conftest import ROOT
from tests.domains.packs import TOURS, write_pack
from tests.support.cli import Result
from tests.support.domains import installed


def test_the_refund_shop_is_installed_with_its_real_roles() -> None:
    found = domains.get("refunds")
    assert found.entry_point == "refunds = calibrant_refunds:pack"
    pack = found.pack
    order = pack.record("order")
    assert order.model is Order
    assert (order.tenant_field, order.version_field) == ("tenant_id", "version")
    assert [(m.amount, m.currency) for m in order.money_fields] == [
        ("paid_minor_units", "currency")
    ]
    assert pack.record("refund").operation_id_fields == ("operation_id",)
    assert set(pack.record("customer").protected_fields) == {"name", "email"}
    # the agents and fault points it names are the harness's and the case contract's
    assert pack.agents == tuple(f"scripted:{b}" for b in BEHAVIOURS)
    assert pack.fault_points == FAULT_POINTS
    assert (pack.rubrics, pack.cases, pack.gold) == (
        ROOT / "rubrics",
        ROOT / "cases",
        ROOT / "gold",
    )


def test_a_pack_with_its_own_records_is_found_through_its_entry_point(tmp_path: Path) -> None:
    write_pack(tmp_path, "tours_pack", TOURS, "tours = tours_pack:pack")
    assert "tours" not in {p.pack.name for p in domains.available()}
    with installed(tmp_path):
        names = [p.pack.name for p in domains.available()]
        assert names == sorted(names) and {"refunds", "tours"} <= set(names)
        tours = domains.get("tours")
        assert tours.entry_point == "tours = tours_pack:pack"
        assert tours.distribution == "tours_pack 0.1"
        booking = tours.pack.record("booking")
        assert booking.model.__name__ == "Booking" and booking.quantity_fields == ("seats",)
        assert domains.broken() == ()
    assert "tours" not in {p.pack.name for p in domains.available()}  # uninstalled again


def test_an_unknown_domain_names_the_installed_ones() -> None:
    with pytest.raises(UnknownDomain) as caught:
        domains.get("payroll")
    message = str(caught.value)
    assert "\n" not in message
    assert "no domain pack named 'payroll'" in message and "installed: refunds" in message


BROKEN = [
    # (module source, entry point, what the one line says)
    ("import not_a_module_anywhere\n", "bad = bad_import:pack", "cannot import it"),
    ("pack = 42\n", "bad = bad_type:pack", "gives a int, not a calibrant.domains.DomainPack"),
    ("def pack():\n    raise RuntimeError('no\\nway')\n", "bad = bad_call:pack", "calling it"),
    ("x = 1\n", "bad = bad_attr:pack", "cannot import it: AttributeError"),
]


@pytest.mark.parametrize(("source", "entry", "said"), BROKEN)
def test_a_broken_pack_is_one_line_naming_its_entry_point(
    tmp_path: Path, source: str, entry: str, said: str
) -> None:
    module = entry.split("=")[1].strip().split(":")[0]
    write_pack(tmp_path, module, source, entry)
    with installed(tmp_path):
        (bad,) = domains.broken()
        line = str(bad)
        assert "\n" not in line and "Traceback" not in line
        assert line.startswith(f"domain pack entry point '{entry}' (from {module} 0.1): ")
        assert said in line
        # the other packs stay usable, and asking for the broken one says why
        assert domains.get("refunds").pack.name == "refunds"
        with pytest.raises(UnknownDomain, match=said):
            domains.get("bad")


def test_two_packs_of_one_name_are_both_refused(tmp_path: Path) -> None:
    write_pack(tmp_path, "tours_a", TOURS, "tours = tours_a:pack")
    write_pack(tmp_path, "tours_b", TOURS, "tours = tours_b:pack")
    with installed(tmp_path):
        assert "tours" not in {p.pack.name for p in domains.available()}
        lines = sorted(str(b) for b in domains.broken())
        assert len(lines) == 2
        for line in lines:
            assert "all declare domain 'tours'; uninstall one" in line
            assert "'tours = tours_a:pack'" in line and "'tours = tours_b:pack'" in line
        with pytest.raises(UnknownDomain, match="uninstall one"):
            domains.get("tours")


def test_an_entry_point_named_otherwise_than_its_domain_is_refused(tmp_path: Path) -> None:
    """A pack is found by its entry point's name (so a command loads only the pack it needs):
    an entry point named otherwise than the domain it gives is refused, saying the right name."""
    write_pack(tmp_path, "tours_elsewhere", TOURS, "tours-too = tours_elsewhere:pack")
    with installed(tmp_path):
        (bad,) = domains.broken()
        assert "'tours-too = tours_elsewhere:pack'" in str(bad)
        assert "it gives domain 'tours': name the entry point after its domain" in str(bad)
        with pytest.raises(UnknownDomain, match="no domain pack named 'tours'"):
            domains.get("tours")


def test_a_role_naming_no_field_is_refused_naming_pack_record_and_field(tmp_path: Path) -> None:
    with pytest.raises(DomainPackError) as caught:
        DomainPack(
            name="shop",
            title="Shop",
            version="1",
            description="A shop.",
            records=(
                RecordSpec(kind="order", model=Order, id_field="order_id", version_field="rev"),
            ),
            rubrics=tmp_path,
            cases=tmp_path,
        )
    message = str(caught.value)
    assert message.startswith(
        "domain pack 'shop': record 'order': version field 'rev' is not a field of Order"
    )
    assert "\n" not in message and "paid_minor_units" in message  # the fields it has
    # and through the registry: the entry point is named, the pack's line kept
    wrong = TOURS.replace('quantity_fields=("seats",)', 'quantity_fields=("seat",)')
    write_pack(tmp_path, "tours_typo", wrong, "tours = tours_typo:pack")
    with installed(tmp_path):
        (bad,) = domains.broken()
        assert "'tours = tours_typo:pack'" in str(bad)
        typo = "domain pack 'tours': record 'booking': quantity field 'seat' is not a field of"
        assert f"{typo} Booking" in str(bad)


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"name": "two words"}, "the name must be an id"),
        ({"description": "one\ntwo"}, "description must be one non-empty line"),
        ({"records": ()}, "declares no record"),
        (
            {"records": (RecordSpec("order", Order, "order_id"),) * 2},
            "two records of kind 'order'",
        ),
    ],
)
def test_a_wrong_declaration_is_refused_in_one_line(
    tmp_path: Path, change: dict[str, object], said: str
) -> None:
    fields: dict[str, object] = {
        "name": "shop",
        "title": "Shop",
        "version": "1",
        "description": "A shop.",
        "records": (RecordSpec("order", Order, "order_id"),),
        "rubrics": tmp_path,
        "cases": tmp_path,
    }
    with pytest.raises(DomainPackError, match=said):
        DomainPack(**{**fields, **change})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raised", "named"),
    [
        ("SystemExit(0)", "SystemExit: 0"),
        ("KeyboardInterrupt()", "KeyboardInterrupt"),
        ("BaseException('stop')", "BaseException: stop"),
    ],
)
def test_a_pack_whose_import_raises_anything_never_silences_the_gate(
    cli: Callable[..., Result], tmp_path: Path, raised: str, named: str
) -> None:
    """Issue 30 item 6: a pack whose import raises SystemExit(0) used to end `check
    --fail-on-violation` with exit 0 and no output. A command loads only the packs its files
    need (a refunds transcript: the refund shop's), and where every pack is loaded (`domains
    list`) or this one is asked for, it is one line naming its entry point."""
    write_pack(tmp_path, "exits_pack", f"raise {raised}\n", "exits = exits_pack:pack")
    violating = ROOT / "examples" / "transcripts" / "broken-false-completion.json"
    with installed(tmp_path):
        checked = cli("check", str(violating), "--fail-on-violation")
        assert checked.code == 1, (checked.code, checked.out, checked.err)
        assert "violated" in checked.out
        listed = cli("domains", "list")
        assert listed.code == 2, (listed.code, listed.out, listed.err)
        [said] = [x for x in listed.err.splitlines() if x.strip()]
        assert said.startswith(
            "calibrant: error: domain pack entry point 'exits = exits_pack:pack'"
        )
        assert f"cannot import it: {named}" in said
        assert "refunds" in listed.out  # the others are listed
        shown = cli("domains", "show", "exits")
        assert shown.code == 2 and shown.out == ""
        [said] = [x for x in shown.err.splitlines() if x.strip()]
        assert "domain 'exits'" in said and f"cannot import it: {named}" in said
