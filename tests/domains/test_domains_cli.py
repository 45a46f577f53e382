"""`calibrant domains list` and `domains show`: the installed packs, readable at 80 columns, and
as JSON that validates into the published report model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import yaml

from calibrant.contracts.reports import DomainsReport
from tests.conftest import ROOT, Result
from tests.domains.packs import TOURS, write_pack
from tests.support.domains import installed

COLS80 = {"COLUMNS": "80"}


def _fits(text: str) -> None:
    assert max(len(line) for line in text.splitlines()) <= 80


def test_list_shows_the_refund_shop_and_what_it_ships(cli: Callable[..., Result]) -> None:
    r = cli("domains", "list", env=COLS80)
    assert r.code == 0, r.err
    _fits(r.out)
    row = next(line for line in r.out.splitlines() if "refunds" in line)
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    cases = len(list((ROOT / "cases").glob("*.yaml")))
    rubrics = len(list((ROOT / "rubrics").glob("*.yaml")))
    gold = len(yaml.safe_load((ROOT / "gold" / "manifest.yaml").read_text()))
    assert cells == ["refunds", "Refund shop", "1.0", "8", str(cases), str(rubrics), str(gold)]


def test_list_json_is_the_report_model(cli: Callable[..., Result], tmp_path: Path) -> None:
    write_pack(tmp_path, "tours_pack", TOURS, "tours = tours_pack:pack")
    with installed(tmp_path):
        r = cli("domains", "list", "--json")
    assert r.code == 0, r.err
    report = DomainsReport.model_validate(json.loads(r.out))
    assert [d.name for d in report.domains] == ["refunds", "tours"]
    tours = report.domains[1]
    assert tours.cases.exists is False and tours.cases.count is None and tours.gold is None
    roles = {(x.role, x.field) for x in tours.records[0].roles}
    assert {("quantity", "seats"), ("money", "fare_minor_units"), ("currency", "currency")} <= roles
    assert report.broken == []


def test_list_names_a_broken_pack_on_stderr_and_exits_2(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    write_pack(tmp_path, "oops_pack", "pack = 'not a pack'\n", "oops = oops_pack:pack")
    with installed(tmp_path):
        r = cli("domains", "list", env=COLS80)
    assert r.code == 2
    assert "refunds" in r.out  # the good packs are still listed
    assert r.err.strip() == (
        "calibrant: error: domain pack entry point 'oops = oops_pack:pack' (from oops_pack 0.1): "
        "it gives a str, not a calibrant.domains.DomainPack"
    )


def test_show_lists_records_roles_agents_fault_points_and_folders(
    cli: Callable[..., Result],
) -> None:
    r = cli("domains", "show", "refunds", env=COLS80)
    assert r.code == 0, r.err
    _fits(r.out)
    text = " ".join(r.out.split())
    assert "refunds — Refund shop, version 1.0" in text
    assert "entry point: refunds = calibrant_refunds:pack" in text
    for role in ("tenant: tenant_id", "protected: name, email", "version: version"):
        assert role in text
    assert "operation_id: operation_id" in text and "money: paid_minor_units" in text
    assert "correct agent: scripted:correct" in text
    assert "scripted:pays-before-approval" in text and "crash_after_notification_accept" in text
    assert f"cases: {ROOT / 'cases'} (10)" in text


def test_show_json_and_an_unknown_name(cli: Callable[..., Result]) -> None:
    r = cli("domains", "show", "refunds", "--json")
    report = DomainsReport.model_validate(json.loads(r.out))
    (d,) = report.domains
    assert d.name == "refunds" and d.gold is not None and d.gold.count is not None
    assert [rec.kind for rec in d.records][:3] == ["customer", "order", "refund"]
    assert d.records[1].model == "calibrant_refunds.records.Order"
    missing = cli("domains", "show", "payroll")
    assert missing.code == 2 and missing.out == ""
    assert missing.err.strip() == (
        "calibrant: error: no domain pack named 'payroll' is installed (installed: refunds); "
        "a pack is a distribution with a 'calibrant.domains' entry point"
    )
