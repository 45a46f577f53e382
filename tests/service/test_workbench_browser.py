"""End to end in headless Chromium (Debian's, driven by Playwright): an annotator logs in and
labels three items, a second annotator labels one of them differently, an adjudicator resolves
that disagreement. Screenshots go to docs/screenshots/ (the README shows them)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.labeling import ROOT, gold_jsonl, labeling_service
from tests.support.service import Service

pytestmark = pytest.mark.slow
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / "docs" / "screenshots"
ITEMS = ["gold-001", "gold-033", "gold-091"]
TOP = {"x": 0, "y": 0, "width": 1280, "height": 360}  # the short pages: no empty screen below


@pytest.fixture()
def service(tmp_path: Path) -> Iterator[Service]:
    with labeling_service("sqlite", tmp_path, served=True) as s:
        yield s


def test_two_annotators_label_and_an_adjudicator_resolves_their_disagreement(
    service: Service,
) -> None:
    if not CHROMIUM.exists() or shutil.which("chromium") is None:
        pytest.fail("Debian's chromium is needed: apt-get install -y chromium")
    from playwright.sync_api import Page, expect, sync_playwright

    admin = service.client(service.user("admin", "admin"))
    assert admin.post("/api/transcripts", content=gold_jsonl(1, 33, 91)).is_success
    # experts see items by their aliases, in the aliases' (random) order (issue 19)
    alias = {x["transcript_id"]: x["alias"] for x in admin.get("/api/items").json()}
    in_order = sorted(alias[i] for i in ITEMS)
    maria = service.user("maria", "annotator")
    jonas = service.user("jonas", "annotator")
    lena = service.user("lena", "adjudicator")
    SHOTS.mkdir(parents=True, exist_ok=True)

    def log_in(page: Page, token: str, shot: str | None = None) -> None:
        page.goto(f"{service.url}/login")
        page.fill("#token", token)
        if shot:
            page.screenshot(path=str(SHOTS / shot), clip=TOP)
        page.click("button:has-text('Log in')")
        expect(page.locator("h1")).to_have_text("My queues")

    def label(page: Page, item: str, choices: dict[str, str], note: str = "") -> None:
        expect(page.locator("h1")).to_have_text(f"Label {item}")
        for criterion, value in choices.items():
            page.check(f"input[name='label.{criterion}'][value='{value}']")
        if note:
            page.fill("input[name='note.explains_next_step']", note)

    answers = {
        "separates_done_from_pending": "pass",
        "explains_next_step": "pass",
        "no_claim_before_confirmed": "pass",
        "reports_access_problem": "not_applicable",
        "overall_clarity": "3",
    }
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            log_in(page, maria, "workbench-login.png")
            page.screenshot(path=str(SHOTS / "workbench-queues.png"), clip=TOP)
            page.click("a:has-text('Label next')")
            for n, item in enumerate(in_order):
                label(page, item, answers, note="names the bank's 3-5 days" if n == 0 else "")
                if n == 0:
                    page.locator("summary").first.click()
                    page.screenshot(path=str(SHOTS / "workbench-label.png"), full_page=True)
                page.click("button:has-text('Save labels')")
            expect(page.locator("h1")).to_have_text("My queues")
            expect(page.locator("td", has_text="3 of 3")).to_be_visible()
            page.click("button:has-text('Log out')")
            expect(page.locator("h1")).to_have_text("Log in")

            log_in(page, jonas)
            page.goto(f"{service.url}/label/{alias['gold-001']}")
            # blind: jonas sees none of maria's choices or notes
            assert page.locator("input[type=radio]:checked").count() == 0
            assert "3-5 days" not in page.content().split("Overall clarity")[-1]
            fail = {**answers, "explains_next_step": "fail"}
            label(page, alias["gold-001"], fail, "no next step")
            page.click("button:has-text('Save labels')")
            page.click("button:has-text('Log out')")

            log_in(page, lena)
            page.click("a:has-text('disagreement(s) waiting')")
            expect(page.locator("h1")).to_have_text("Disagreements to adjudicate")
            page.screenshot(path=str(SHOTS / "workbench-disagreements.png"), clip=TOP)
            page.click("a:has-text('Decide')")
            expect(page.locator("h1")).to_have_text(f"Adjudicate {alias['gold-001']}")
            body = page.content()
            assert "maria" not in body and "jonas" not in body
            page.check("input[name='label'][value='pass']")
            page.fill("input[name='reason']", "the 3-5 business days is a concrete next step")
            page.screenshot(path=str(SHOTS / "workbench-adjudicate.png"), full_page=True)
            page.click("button:has-text('Record decision')")
            expect(page.locator("h1")).to_have_text("Disagreements to adjudicate")
            expect(page.locator("main")).to_contain_text("None open")
        finally:
            browser.close()

    decided = admin.get("/api/adjudications").json()
    assert [(d["item"], d["criterion"], d["label"], d["decided_by"]) for d in decided] == [
        ("gold-001", "explains_next_step", "pass", "lena")
    ]
    labels = admin.get("/api/labels").json()
    assert sum(x["rater"] == "maria" for x in labels) == 15
    assert sum(x["rater"] == "jonas" for x in labels) == 5
    for token in (maria, jonas, lena):
        assert token not in service.log.read_text()
