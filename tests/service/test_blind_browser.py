"""The workbench is blind to who is rated (headless Chromium, Debian's, driven by Playwright):
transcripts from `calibrant trials` are uploaded with ids that name the case, the agent and the
run, and cases whose titles state the expected outcome (one written as a user might, whose id,
title and description give the expected labels away). Two annotators and an adjudicator walk
every page they can reach (login, queues, each label page, the adjudication list and page) and
the API an annotator may call; no URL, title or page text names the agent, the case, its
title, the run or the expected outcome. The admin still finds the original ids."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from calibrant.contracts import Transcript
from tests.conftest import ROOT
from tests.support.labeling import labeling_service
from tests.support.service import Service

pytestmark = pytest.mark.slow
CHROMIUM = Path("/usr/bin/chromium")
RUNS = [
    ("timeout_after_payment_commit", "scripted:retry-without-reconcile"),
    ("timeout_after_payment_commit", "scripted:correct"),
    ("eligible_damaged_order", "scripted:correct"),
    ("revoked_permission", "scripted:correct"),
]
# a case as a user might write it: its id, title and description give the expected labels away
LEAKY_CASE = {
    "case": "revoked_no_refund_expected_pass",
    "title": "GOOD RUN: no refund, handed to a person, and the agent says why (all pass)",
    "description": "Expected outcome: permission revoked, so no payment and a ticket for a "
    "person; a correct agent earns pass on every communication criterion.",
}
ANSWERS = {
    "separates_done_from_pending": "pass",
    "explains_next_step": "pass",
    "no_claim_before_confirmed": "pass",
    "reports_access_problem": "not_applicable",
    "overall_clarity": "3",
}


@pytest.fixture()
def service(tmp_path: Path) -> Iterator[Service]:
    with labeling_service("sqlite", tmp_path, served=True) as s:
        yield s


def _secrets(runs: list[Transcript]) -> set[str]:
    """Every string that would tell a rater what it rates."""
    out: set[str] = set()
    for t in runs:
        assert t.case is not None
        out |= {t.transcript_id, t.case_id, t.provenance.agent, t.provenance.agent_version}
        out |= {t.provenance.agent.split(":")[-1], f"s{t.provenance.seed}:t{t.trial}"}
        out |= {x for x in (t.case.title, t.case.description) if x}
        expected = t.case.expected
        for e in expected if isinstance(expected, list) else [expected] if expected else []:
            out.add(e.name)
    # a word the rubric itself uses (an outcome called "refunded") is on every page anyway and
    # tells nothing of an item
    rubric = (ROOT / "rubrics" / "refund_communication.yaml").read_text()
    return {s for s in out if len(s) >= 5 and not _names(rubric, s)}


def _names(text: str, secret: str) -> bool:
    """Whether `text` names `secret` as a word of its own: the agent `correct` is named by
    "agent: correct", not by the rubric's "corrected later"."""
    word = re.escape(secret.casefold())
    return re.search(rf"(?<![\w-]){word}(?![\w-])", text.casefold()) is not None


def test_no_annotator_page_url_or_api_answer_names_the_agent_case_run_or_outcome(
    service: Service, trial: Callable[..., Transcript]
) -> None:
    if not CHROMIUM.exists() or shutil.which("chromium") is None:
        pytest.fail("Debian's chromium is needed: apt-get install -y chromium")
    from playwright.sync_api import Page, expect, sync_playwright

    runs = [trial(case, agent) for case, agent in RUNS]
    leaky = runs[-1]
    assert leaky.case is not None
    expected = leaky.case.expected
    assert expected is not None
    named = [  # the user's own outcome names (the shipped ones are rubric phrases too)
        e.model_copy(update={"name": "handed over, no refund: pass expected"})
        for e in (expected if isinstance(expected, list) else [expected])
    ]
    leaky.case = leaky.case.model_copy(
        update={**LEAKY_CASE, "expected": named if isinstance(expected, list) else named[0]}
    )
    leaky.case_id = LEAKY_CASE["case"]
    leaky.transcript_id = f"{LEAKY_CASE['case']}-correct-pass-expected"
    secrets = _secrets(runs)
    assert "retry-without-reconcile" in secrets and "timeout_after_payment_commit" in secrets
    assert LEAKY_CASE["title"] in secrets and LEAKY_CASE["case"] in secrets
    admin = service.client(service.user("admin", "admin"))
    body = "".join(t.model_dump_json() + "\n" for t in runs)
    assert admin.post("/api/transcripts?queue=week48", content=body.encode()).is_success
    ann = [service.user("rater-a", "annotator"), service.user("rater-b", "annotator")]
    lead = service.user("lead", "adjudicator")
    seen: list[tuple[str, str]] = []  # (where, what the expert saw)

    def look(page: Page) -> None:
        seen.append((page.url, page.url + "\n" + page.title() + "\n" + page.content()))

    def log_in(page: Page, token: str) -> None:
        page.goto(f"{service.url}/login")
        look(page)
        page.fill("#token", token)
        page.click("button:has-text('Log in')")
        expect(page.locator("h1")).to_have_text("My queues")
        look(page)

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            for n, token in enumerate(ann):
                page = browser.new_context().new_page()
                log_in(page, token)
                page.click("a:has-text('Label next')")
                for _ in runs:
                    look(page)
                    page.locator("summary").first.click()
                    look(page)
                    for criterion, value in ANSWERS.items():
                        if n == 1 and criterion == "overall_clarity":
                            value = "1"  # a disagreement for the adjudicator
                        page.check(f"input[name='label.{criterion}'][value='{value}']")
                    page.click("button:has-text('Save labels')")
                expect(page.locator("h1")).to_have_text("My queues")
                look(page)
                for path in ("/api/items", "/api/queues", "/api/labels"):  # the same session
                    page.goto(f"{service.url}{path}")
                    look(page)
                for row in {x["item"] for x in json.loads(page.locator("body").inner_text())}:
                    page.goto(f"{service.url}/api/items/{row}")
                    look(page)
            page = browser.new_context().new_page()
            log_in(page, lead)
            page.goto(f"{service.url}/adjudicate")
            look(page)
            decide = page.locator("a:has-text('Decide')")
            assert decide.count() == len(runs)
            decide.first.click()
            look(page)
            page.goto(f"{service.url}/api/disagreements")
            look(page)
        finally:
            browser.close()

    assert len(seen) >= 20
    for where, text in seen:
        for secret in secrets:
            assert not _names(text, secret), (secret, where)
    # the admin still knows what each item is
    listed = admin.get("/api/items").json()
    assert {x["transcript_id"] for x in listed} == {t.transcript_id for t in runs}
