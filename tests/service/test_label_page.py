"""The labeling page without a browser's script (issue 35): "n of N", back and skip as links,
save-and-next round the queue, what was saved said on the next page, and the one script the
page loads served by the app under a policy that allows no other — still blind."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.labeling import GOLD, gold_jsonl, labeling_service
from tests.support.service import Service

ANSWERS = {
    "label.separates_done_from_pending": "pass",
    "label.explains_next_step": "fail",
    "label.no_claim_before_confirmed": "pass",
    "label.reports_access_problem": "not_applicable",
    "label.overall_clarity": "2",
}
NUMBERS = (11, 12, 13, 14)


@pytest.fixture()
def world(tmp_path: Path) -> Iterator[tuple[Service, httpx.Client, list[str], dict[str, str]]]:
    """Four items in queue "pg", and an annotator signed in; the aliases in the queue's order
    and each alias's transcript id."""
    with labeling_service("sqlite", tmp_path) as service:
        admin = service.client(service.user("pg-admin", "admin"))
        assert admin.post("/api/transcripts?queue=pg", content=gold_jsonl(*NUMBERS)).is_success
        ids = {x["alias"]: x["transcript_id"] for x in admin.get("/api/items?queue=pg").json()}
        browser = service.client()
        token = service.user("pg-ann", "annotator")
        assert browser.post("/login", data={"token": token}).status_code == 303
        yield service, browser, sorted(ids), ids


def _link(page: str, rel_id: str) -> str | None:
    found = re.search(rf'<a id="{rel_id}" rel="\w+" href="/label/([^"]+)"', page)
    return found.group(1) if found else None


def _save(browser: httpx.Client, alias: str) -> httpx.Response:
    page = browser.get(f"/label/{alias}").text
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
    assert csrf
    return browser.post(f"/label/{alias}", data={**ANSWERS, "csrf": csrf.group(1)})


def test_the_page_says_n_of_n_and_skip_back_and_save_go_round_the_queue(
    world: tuple[Service, httpx.Client, list[str], dict[str, str]],
) -> None:
    _, browser, a, _ = world
    first = browser.get(f"/label/{a[0]}").text
    assert "<b>1 of 4</b> in queue pg · 0 labeled by you" in first
    assert _link(first, "back") is None and '<span class="off">← Back</span>' in first
    assert _link(first, "skip") == a[1]
    assert 'id="saved"' not in first  # nothing saved yet, nothing said
    third = browser.get(f"/label/{a[2]}").text
    assert (
        "<b>3 of 4</b>" in third and _link(third, "back") == a[1] and _link(third, "skip") == a[3]
    )
    last = browser.get(f"/label/{a[3]}").text
    assert _link(last, "skip") == a[0]  # round the queue to the first one not labeled
    # save and next: the next item not labeled after this one
    saved = _save(browser, a[0])
    assert saved.status_code == 303 and saved.headers["location"] == f"/label/{a[1]}"
    second = browser.get(f"/label/{a[1]}").text
    assert "<b>2 of 4</b> in queue pg · 1 labeled by you" in second
    assert re.search(
        rf'✓ Saved: your labels of <a href="/label/{a[0]}">{a[0]}</a> at \d\d:\d\d:\d\d UTC', second
    )
    assert _link(second, "back") == a[0] and _link(second, "skip") == a[2]
    # skip the second, label the third and fourth: saving the fourth comes round to the second
    assert _save(browser, a[2]).headers["location"] == f"/label/{a[3]}"
    assert _save(browser, a[3]).headers["location"] == f"/label/{a[1]}"
    again = browser.get(f"/label/{a[1]}").text
    assert "<b>2 of 4</b> in queue pg · 3 labeled by you" in again
    assert _link(again, "skip") is None and "nothing else to label" in again
    assert _save(browser, a[1]).headers["location"] == "/"  # the queue is done
    home = browser.get("/").text
    assert "<td>4 of 4</td>" in home
    # back at a labeled item: it says so, and its labels come back checked
    revisit = browser.get(f"/label/{a[1]}").text
    assert "4 labeled by you, this one included" in revisit
    assert "✓ Saved: your labels of this item" in revisit
    assert len(re.findall(r" required checked>", revisit)) == 5


def test_the_one_script_is_the_apps_own_and_tells_nothing_of_the_item(
    world: tuple[Service, httpx.Client, list[str], dict[str, str]],
) -> None:
    service, browser, a, ids = world
    page = browser.get(f"/label/{a[0]}")
    policy = page.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "default-src 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    html = page.text
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/workbench.js" defer>']
    assert "</script>" in html and html.count("<script") == 1  # nothing inline
    assert not re.search(r"\son[a-z]+=", html)  # no inline handler
    # the keys' help is on the page (shown by the script, which is what makes the keys work)
    assert re.search(r'<p class="keys" id="keys" hidden>Keys: <kbd>1</kbd>–<kbd>5</kbd> pick', html)
    # without the script: radio buttons, a submit button in the form, links for skip and back
    form = html.split('<form id="labels" method="post"', 1)[1].split("</form>", 1)[0]
    assert form.count('type="radio"') == 3 + 3 + 3 + 4 + 5
    assert '<button type="submit">Save labels &amp; next</button>' in form
    assert 'name="csrf"' in form
    script = browser.get("/workbench.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.headers["x-content-type-options"] == "nosniff"
    assert "fetch(" not in script.text and "XMLHttpRequest" not in script.text
    # blind: neither the page nor the script names the transcript, its case, agent or run
    # (tests/service/test_expert_view.py walks every page for every such name)
    transcript = json.loads((GOLD / f"{ids[a[0]]}.json").read_text())
    hidden = [
        transcript["transcript_id"],
        transcript["case"]["title"],
        transcript["provenance"]["agent"],
        transcript["provenance"]["started_at"],
    ]
    for text in (html, script.text):
        assert not [x for x in hidden if x in text]
    words = ("case", "agent", "trial", "run", "rationale", "upload", "transcript", "item-")
    assert not [w for w in words if w in script.text.lower()]
    transcript_id = ids[a[0]]
    # an item the expert has not reached by alias is not found, whatever the page links to
    assert browser.get(f"/label/{transcript_id}").status_code == 404
    assert service.client().get("/workbench.js").status_code == 200  # static, no data


def test_the_reports_pages_wear_the_workbench_header_and_stylesheet(
    world: tuple[Service, httpx.Client, list[str], dict[str, str]],
) -> None:
    service, _, _, _ = world
    lena = service.client()
    token = service.user("pg-adj", "adjudicator")
    assert lena.post("/login", data={"token": token}).status_code == 303
    home, reports = lena.get("/").text, lena.get("/reports").text
    header = '<header class="top">\n  <a class="brand" href="/">calibrant workbench</a>'
    stylesheet = '<link rel="stylesheet" href="/workbench.css">'
    for page in (home, reports):
        assert header in page and stylesheet in page and "pg-adj · adjudicator" in page
    # the same session's logout form, with its CSRF token, on both
    csrf = re.findall(r'name="csrf" value="([0-9a-f]{64})"', home)
    assert csrf and re.findall(r'name="csrf" value="([0-9a-f]{64})"', reports) == csrf[:1]
    assert "<script" not in reports  # the reports pages need no script
    bearer = service.client(token).get("/reports")  # an API client: no form to log out with
    assert bearer.status_code == 200 and 'action="/logout"' not in bearer.text
