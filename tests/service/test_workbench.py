"""The workbench pages against the real service (SQLite and PostgreSQL): login sets an
HttpOnly, SameSite=Strict cookie; every form post needs the session's CSRF token; the labeling
page puts the trusted records beside the escaped, marked-untrusted conversation; an annotator
never sees another expert's label; no token is ever in a page or the log."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest

from tests.support.labeling import BACKENDS, GOLD, gold_jsonl, labeling_service
from tests.support.service import Service

ANSWERS = {
    "label.separates_done_from_pending": "pass",
    "label.explains_next_step": "fail",
    "label.no_claim_before_confirmed": "pass",
    "label.reports_access_problem": "not_applicable",
    "label.overall_clarity": "2",
}


@pytest.fixture(scope="module", params=BACKENDS)
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    """The application in this process."""
    with labeling_service(request.param, tmp_path_factory.mktemp("wb")) as s:
        yield s


@pytest.fixture(scope="module", params=BACKENDS)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    """`calibrant serve` in its own process: the test that reads its access log."""
    with labeling_service(request.param, tmp_path_factory.mktemp("wb-s"), served=True) as s:
        yield s


def login(service: Service, token: str) -> httpx.Client:
    browser = service.client()
    got = browser.post("/login", data={"token": token})
    assert got.status_code == 303 and got.headers["location"] == "/"
    cookie = got.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    return browser


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
    assert found, "no CSRF token in the page"
    return found.group(1)


def test_login_refuses_a_bad_token_and_pages_need_a_session(service: Service) -> None:
    anonymous = service.client()
    for path in ("/", "/label/anything", "/adjudicate"):
        got = anonymous.get(path)
        assert got.status_code == 303 and got.headers["location"] == "/login", path
    bad = anonymous.post("/login", data={"token": "cal_not-a-real-token"})
    assert bad.status_code == 401 and "That token is not valid." in bad.text
    assert "set-cookie" not in bad.headers and "cal_not-a-real-token" not in bad.text
    token = service.user("wb-ann-x", "annotator")
    elsewhere = {"Sec-Fetch-Site": "cross-site"}  # what a browser says of another site's form
    forged = anonymous.post("/login", data={"token": token}, headers=elsewhere)
    assert forged.status_code == 403 and "set-cookie" not in forged.headers
    ann = login(service, service.user("wb-ann0", "annotator"))
    refused = ann.get("/adjudicate")
    assert refused.status_code == 403 and "This page needs the adjudicator role." in refused.text
    missing = ann.get("/label/no-such-item")
    assert missing.status_code == 404 and "no such item" in missing.text
    home = ann.get("/")
    assert home.status_code == 200 and "wb-ann0 · annotator" in home.text
    assert "default-src 'none'" in home.headers["content-security-policy"]
    assert "<script" not in home.text
    out = ann.post("/logout", data={"csrf": csrf_of(home.text)})
    assert out.status_code == 303 and 'calibrant_session=""' in out.headers["set-cookie"]


def test_a_form_post_without_the_right_csrf_token_is_refused(service: Service) -> None:
    admin = service.client(service.user("wb-admin", "admin"))
    assert admin.post("/api/transcripts?queue=wb", content=gold_jsonl(40, 41)).is_success
    ann = login(service, service.user("wb-ann1", "annotator"))
    alias = {x["transcript_id"]: x["alias"] for x in admin.get("/api/items?queue=wb").json()}
    a40, a41 = alias["gold-040"], alias["gold-041"]  # experts name items by alias (issue 30)
    page = ann.get(f"/label/{a40}")
    token = csrf_of(page.text)
    missing = ann.post(f"/label/{a40}", data=ANSWERS)
    assert missing.status_code == 403 and "CSRF" in missing.text
    wrong = ann.post(f"/label/{a40}", data={**ANSWERS, "csrf": "0" * 64})
    assert wrong.status_code == 403
    cross = ann.post(
        f"/label/{a40}",
        data={**ANSWERS, "csrf": token},
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    assert cross.status_code == 403
    # another user's form token is no good either
    other = login(service, service.user("wb-ann2", "annotator"))
    foreign = csrf_of(other.get("/").text)
    assert ann.post(f"/label/{a40}", data={**ANSWERS, "csrf": foreign}).status_code == 403
    # the API with the cookie (not a bearer token) needs the token in X-CSRF-Token
    body = {"item": a40, "labels": [{"criterion": "explains_next_step", "label": "pass"}]}
    assert ann.post("/api/labels", json=body).status_code == 403
    assert ann.post("/api/labels", json=body, headers={"X-CSRF-Token": token}).is_success
    assert (
        service.client(service.user("wb-adj0", "adjudicator"))
        .get(f"/api/labels?item={a40}")
        .json()[0]["rater"]
        == "wb-ann1"
    )
    # with the token: saved, and on to the next item of the queue
    saved = ann.post(f"/label/{a40}", data={**ANSWERS, "csrf": token, "note.overall_clarity": "x"})
    # the next unfinished item, by its alias (experts never see transcript ids, issue 19)
    assert saved.status_code == 303 and saved.headers["location"] == f"/label/{alias['gold-041']}"
    mine = ann.get(f"/api/labels?item={a40}").json()
    assert {x["criterion"]: x["label"] for x in mine}["overall_clarity"] == 2
    assert {x["criterion"]: x["note"] for x in mine}["overall_clarity"] == "x"
    again = ann.get(f"/label/{a40}").text  # the expert's own labels come back checked
    assert re.search(r'value="fail" required checked', again)
    # a form missing a criterion is refused, naming it, and saves nothing
    partial = {k: v for k, v in ANSWERS.items() if "clarity" not in k}
    refused = ann.post(f"/label/{a41}", data={**partial, "csrf": token})
    assert refused.status_code == 422 and "Overall clarity" in refused.text
    long = {**ANSWERS, "csrf": token, "note.overall_clarity": "x" * 4001}
    assert ann.post(f"/label/{a41}", data=long).status_code == 422
    assert ann.get(f"/api/labels?item={a41}").json() == []


def test_the_page_shows_records_beside_the_escaped_untrusted_conversation(
    service: Service,
) -> None:
    doc = json.loads((GOLD / "gold-050.json").read_text())
    doc["transcript_id"] = "wb/hostile"
    attack = '<script>alert("x")</script><img src=x onerror=alert(1)> {{ 7*7 }}'
    doc["conversation"][0]["text"] = attack
    admin = service.client(service.user("wb-admin2", "admin"))
    assert admin.post("/api/transcripts?queue=wb-h", json=doc).is_success
    (alias,) = [x["alias"] for x in admin.get("/api/items?queue=wb-h").json()]
    page = login(service, service.user("wb-ann3", "annotator")).get(f"/label/{alias}")
    html = page.text
    # the one script is the workbench's own (issue 35's keys), the conversation's is escaped
    own = '<script src="/workbench.js" defer></script>'
    assert html.count("<script") == 1 and html.count(own) == 1
    assert "<img" not in html and "{{ 7*7 }}" in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    conversation = html.split('<section class="untrusted">', 1)[1].split("</section>", 1)[0]
    assert "49" not in conversation
    trusted = html.index('Records <span class="badge ok">trusted</span>')
    untrusted = html.index('Conversation <span class="badge warn">untrusted</span>')
    assert trusted < untrusted
    assert "refund policy in force" in html[trusted:untrusted]
    # the rubric, its examples, and a "can't tell" for every criterion
    assert html.count('value="cant_tell"') == 5
    assert html.count('value="not_applicable"') == 1
    assert "Processed." in html and "Does the agent tell the customer what happens next" in html


@pytest.mark.slow  # ends by reading the served process's access log
def test_blind_pages_and_adjudication_without_rater_names(served: Service) -> None:
    service = served
    admin = service.client(service.user("wb-admin3", "admin"))
    assert admin.post("/api/transcripts?queue=wb-b", content=gold_jsonl(60)).is_success
    (alias,) = [x["alias"] for x in admin.get("/api/items?queue=wb-b").json()]
    first_token = service.user("wb-first", "annotator")
    first = login(service, first_token)
    token = csrf_of(first.get(f"/label/{alias}").text)
    note = "FIRST-EXPERT-REASONING"
    form = {**ANSWERS, "csrf": token, "note.explains_next_step": note}
    assert first.post(f"/label/{alias}", data=form).status_code == 303
    second = login(service, service.user("wb-second", "annotator"))
    before = second.get(f"/label/{alias}").text
    assert note not in before and "wb-first" not in before
    # no choice preselected from the first expert's (no input carries `checked`; the rubric may
    # say the word)
    assert not re.search(r"<input[^>]*\schecked\b", before)
    token2 = csrf_of(before)
    changed = {**ANSWERS, "label.explains_next_step": "pass", "csrf": token2}
    assert second.post(f"/label/{alias}", data=changed).status_code == 303
    after = second.get(f"/label/{alias}").text  # still blind after submitting
    assert note not in after and "wb-first" not in after
    assert second.get(f"/adjudicate/{alias}").status_code == 403

    judge = login(service, service.user("wb-judge", "adjudicator"))
    listing = judge.get("/adjudicate").text
    assert alias in listing and "gold-060" not in listing  # the alias, not the transcript id
    assert "wb-first" not in listing and "wb-second" not in listing
    page = judge.get(f"/adjudicate/{alias}").text
    assert note in page and "wb-first" not in page and "wb-second" not in page
    assert "Label 1" in page and "Label 2" in page and 'value="cant_tell"' not in page
    t = csrf_of(page)
    decision = {"criterion": "explains_next_step", "label": "pass", "csrf": t}
    assert judge.post(f"/adjudicate/{alias}", data=decision).status_code == 422  # no reason
    assert judge.post(f"/adjudicate/{alias}", data={**decision, "reason": "ok"}).status_code == (
        303
    )
    got = service.client(service.user("wb-adj1", "adjudicator")).get(
        f"/api/adjudications?item={alias}"
    )
    assert [(d["decided_by"], d["reason"]) for d in got.json()] == [("wb-judge", "ok")]
    assert first_token not in service.log.read_text()
