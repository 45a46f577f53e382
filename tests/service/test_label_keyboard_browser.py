"""Issue 35: an expert labels a 30-item queue in headless Chromium from the keyboard alone — a
number per criterion, Enter to save and go on, B and S to go back and skip — and the page says
"n of 30" as it goes, says what was saved, and keeps the rubric beside the conversation."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.keyboard_expert import CHROMIUM, LAUNCH_ARGS, label_item
from tests.support.labeling import gold_jsonl, labeling_service
from tests.support.service import Service

pytestmark = pytest.mark.slow
N = 30


@pytest.fixture()
def service(tmp_path: Path) -> Iterator[Service]:
    with labeling_service("sqlite", tmp_path, served=True) as s:
        yield s


def test_an_expert_labels_30_items_from_the_keyboard_alone(service: Service) -> None:
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.fail("Debian's chromium is needed: apt-get install -y chromium")
    from playwright.sync_api import expect, sync_playwright

    admin = service.client(service.user("kb-admin", "admin"))
    assert admin.post("/api/transcripts?queue=kb", content=gold_jsonl(*range(1, N + 1))).is_success
    alias = {x["transcript_id"]: x["alias"] for x in admin.get("/api/items?queue=kb").json()}
    in_order = sorted(alias.values())  # experts get the items in the aliases' order
    token = service.user("kb-expert", "annotator")
    typed: dict[str, dict[str, str]] = {}
    scrolled = False
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on(  # a failed load (the script above all); the browser's favicon guess aside
                "response",
                lambda r: (
                    errors.append(f"{r.status} {r.url}")
                    if r.status >= 400 and not r.url.endswith("/favicon.ico")
                    else None
                ),
            )
            page.goto(f"{service.url}/login")
            page.fill("#token", token)
            page.keyboard.press("Enter")
            expect(page.locator("h1")).to_have_text("My queues")
            page.goto(f"{service.url}/label/{in_order[0]}")  # the queue's "Label next" link
            progress = page.locator("#progress")
            help_line = page.locator("#keys")
            expect(help_line).to_be_visible()  # the script shows its keys
            expect(help_line).to_contain_text("Enter save & next")
            for n, expected in enumerate(in_order, start=1):
                expect(page.locator("h1")).to_have_text(f"Label {expected}")
                expect(progress.locator("b")).to_have_text(f"{n} of {N}")
                expect(progress).to_contain_text(f"{n - 1} labeled by you")
                if n > 1:  # what the last Enter saved, said on the page
                    expect(page.locator("#saved")).to_contain_text(
                        f"Saved: your labels of {in_order[n - 2]}"
                    )
                if n == 5:  # back to the one just saved, its labels shown; skip returns here
                    page.keyboard.press("b")
                    expect(page.locator("h1")).to_have_text(f"Label {in_order[3]}")
                    expect(progress.locator("b")).to_have_text(f"4 of {N}")
                    got = page.eval_on_selector_all(
                        "input[type=radio]:checked",
                        "els => Object.fromEntries(els.map(e => [e.name.slice(6), e.value]))",
                    )
                    assert got == typed[in_order[3]]
                    expect(page.locator("#saved")).to_contain_text("your labels of this item")
                    page.keyboard.press("s")
                    expect(page.locator("h1")).to_have_text(f"Label {expected}")
                tall = page.evaluate("() => document.body.scrollHeight > innerHeight + 150")
                if tall and not scrolled:  # the rubric stays beside the conversation, scrolled
                    scrolled = True
                    panel = page.locator("aside.rubric-panel")
                    conversation = page.locator("section.untrusted")
                    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
                    page.wait_for_function("() => window.scrollY > 150")
                    box, talk = panel.bounding_box(), conversation.bounding_box()
                    assert box is not None and talk is not None
                    assert 0 <= box["y"] < 50 and box["x"] > talk["x"] + talk["width"] - 1
                    page.evaluate("() => window.scrollTo(0, 0)")
                done = label_item(page, n, with_keys=True)
                assert done.alias == expected and done.keys == 6  # five numbers and Enter
                typed[expected] = done.labels
            expect(page.locator("h1")).to_have_text("My queues")  # the queue is done
            expect(page.locator("td", has_text=f"{N} of {N}")).to_be_visible()
            assert errors == [] and scrolled
        finally:
            browser.close()

    stored: dict[str, dict[str, str]] = {}
    for x in admin.get("/api/labels").json():
        assert x["rater"] == "kb-expert"
        stored.setdefault(alias[x["item"]], {})[x["criterion"]] = str(x["label"])
    assert stored == typed  # every label stored is the one its key chose on the page
    assert len(stored) == N and sum(len(v) for v in stored.values()) == 5 * N
    # the keys used every choice of every criterion at least once
    used = {(c, v) for labels in typed.values() for c, v in labels.items()}
    assert len(used) == 3 + 3 + 3 + 4 + 5
