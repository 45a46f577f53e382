"""Another domain's records at the workbench: the warehouse pack of
tests/domains/test_domain_files.py, installed through a real dist-info entry point, its rubric in
the service's store (SQLite; the application in this process, and `calibrant serve` for
Chromium), and a warehouse transcript uploaded as an item.

The labeling page's records panel shows the customer's (the acting tenant's) records by kind,
each before and at the end, by the pack's roles: the amount with its currency, the quantity and
the version, the changed fields marked, the record created during the conversation. The expert's
view is a boundary: nothing of the other tenant is in the page, the API's item or the labeling
sheet — not its name, its stock, its supplier's address, nor a record of its planted in the
customer's own snapshot. Headless Chromium reads the same panel."""

from __future__ import annotations

import copy
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from calibrant.contracts import Transcript
from calibrant.judge.sheet import labeling_sheet
from tests.domains.packs import write_pack
from tests.domains.test_domain_files import RUBRIC, WAREHOUSE, good
from tests.support.browser import login
from tests.support.domains import installed
from tests.support.labeling import labeling_service, put_rubric
from tests.support.service import Service

pytestmark = pytest.mark.xdist_group("workbench-domains")  # one worker installs the pack
CHROMIUM = Path("/usr/bin/chromium")
# the other tenant's: its name, its stock's id (protected), its supplier's address (protected)
OTHERS = ("Bravo", "SKU-2002", "frost.example")


def _planted() -> dict[str, Any]:
    """The warehouse's correct trial, with the other tenant's stock record also held in the
    customer's snapshots (a record the customer's tenant does not own), and a stock record of
    the customer's that is gone by the end."""
    doc = good()
    gone = {**doc["snapshot_before"]["tenants"][0]["records"]["stock"][0], "sku": "SKU-1003"}
    doc["snapshot_before"]["tenants"][0]["records"]["stock"].append(gone)
    for which in ("snapshot_before", "snapshot_after"):
        alpha, bravo = doc[which]["tenants"]
        alpha["records"]["stock"].append(copy.deepcopy(bravo["records"]["stock"][0]))
    return doc


@contextmanager
def _planted_item(work: Path, served: bool) -> Iterator[tuple[Service, str]]:
    """The service with the planted warehouse transcript uploaded; (service, its alias)."""
    write_pack(work / "pack", "wb_warehouse_pack", WAREHOUSE, "warehouse = wb_warehouse_pack:pack")
    with installed(work / "pack"):
        rubric = work / "warehouse_rubric.yaml"
        rubric.write_text(RUBRIC, encoding="utf-8")
        with labeling_service("sqlite", work, served=served) as service:
            digest = put_rubric(service.database_url, rubric)
            admin = service.client(service.user("wd-admin", "admin"))
            got = admin.post(f"/api/transcripts?queue=wh&rubric={digest}", json=_planted())
            assert got.is_success, got.text
            [row] = admin.get("/api/items?queue=wh").json()
            yield service, row["alias"]


@pytest.fixture(scope="module")
def item(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, str]]:
    """The application in this process."""
    with _planted_item(tmp_path_factory.mktemp("wb-domains"), served=False) as got:
        yield got


@pytest.fixture(scope="module")
def served_item(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, str]]:
    """`calibrant serve` in its own process, for the browser."""
    with _planted_item(tmp_path_factory.mktemp("wb-domains-served"), served=True) as got:
        yield got


def _rows(html: str) -> list[tuple[str, str, list[str]]]:
    """(kind, row class, cell texts) of every row of the panel's record tables."""
    out = []
    for kind, body in re.findall(
        r'<table class="grid records" data-kind="([^"]+)">(.*?)</table>', html, re.S
    ):
        for cls, cells in re.findall(
            r'<tr class="([^"]*)" data-record="[^"]*">(.*?)</tr>', body, re.S
        ):
            texts = [
                re.sub(r"<[^>]+>", " ", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", cells, re.S)
            ]
            out.append((kind, cls, [" ".join(t.split()) for t in texts]))
    return out


def test_the_panel_shows_the_customers_records_by_role_and_nothing_of_another_tenant(
    item: tuple[Service, str],
) -> None:
    service, alias = item
    annotator = service.user("wd-ann", "annotator")
    page = login(service, annotator).get(f"/label/{alias}")
    assert page.status_code == 200, page.text
    html = page.text
    panel = html.split('Records <span class="badge ok">trusted</span>', 1)[1].split("</section>")[0]
    assert _rows(panel) == [
        (
            "stock",
            "changed",
            ["[SKU-1001] changed", "unit_cost_minor_units", "12.50 EUR", "12.50 EUR"],
        ),
        ("stock", "changed field-changed", ["quantity", "40", "35 changed"]),
        ("stock", "changed field-changed", ["version", "3", "4 changed"]),
        ("stock", "removed", ["[SKU-1003] removed", "unit_cost_minor_units", "12.50 EUR", "—"]),
        ("stock", "removed", ["quantity", "40", "—"]),
        ("stock", "removed", ["version", "3", "—"]),
        ("transfer", "created", ["[tr_1] created", "quantity", "—", "5"]),
        ("transfer", "created", ["sku", "—", "SKU-1001"]),
        ("transfer", "created", ["operation_id", "—", "op-1"]),
    ]
    assert "refund" not in panel.casefold() and "ledger" not in panel
    for secret in OTHERS:
        assert secret not in html, secret
    # the API an annotator reads, and the sheet an expert labels offline: the same boundary
    api = service.client(annotator).get(f"/api/items/{alias}").json()
    said = [r["text"] for r in api["records"]]
    assert (
        "no longer in the records at the end: stock SKU-1003 of wh_a: unit_cost_minor_units "
        "12.50 EUR, quantity 40, version 3" in said
    )
    sheet = labeling_sheet(Transcript.model_validate(_planted()), item="wh-1")
    assert "| `[SKU-1001]` changed | unit_cost_minor_units | 12.50 EUR | 12.50 EUR |" in sheet
    assert "|  | quantity | 40 | **35** (changed) |\n|  | version | 3 | **4** (changed) |" in sheet
    assert "| `[tr_1]` created | quantity | — | 5 |" in sheet
    for secret in OTHERS:
        assert secret not in str(api), secret
        assert secret not in sheet, secret


@pytest.mark.slow  # Chromium, on the served process
def test_chromium_reads_the_panel_of_another_domains_item(
    served_item: tuple[Service, str],
) -> None:
    item = served_item
    if not CHROMIUM.exists() or shutil.which("chromium") is None:
        pytest.fail("Debian's chromium is needed: apt-get install -y chromium")
    from playwright.sync_api import expect, sync_playwright

    service, alias = item
    token = service.user("wd-browser", "annotator")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.goto(f"{service.url}/login")
            page.fill("#token", token)
            page.click("button:has-text('Log in')")
            page.goto(f"{service.url}/label/{alias}")
            expect(page.locator("h1")).to_have_text(f"Label {alias}")
            trusted = page.locator("section.trusted")
            expect(trusted.locator("h3")).to_have_text(
                ["stock", "transfer", "Service log and messages"]
            )
            stock = trusted.locator("table[data-kind='stock'] tbody tr")
            expect(stock).to_have_count(6)
            changed = trusted.locator("tr.field-changed")
            expect(changed).to_have_text(
                [re.compile(r"quantity\s+40\s+35 changed"), re.compile(r"version\s+3\s+4 changed")]
            )
            expect(stock.first).to_contain_text("12.50 EUR")
            expect(trusted.locator("table[data-kind='transfer'] tr.created").first).to_contain_text(
                "[tr_1] created"
            )
            text = page.locator("body").inner_text()
            for secret in OTHERS:
                assert secret not in text, secret
        finally:
            browser.close()
