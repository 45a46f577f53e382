"""Audit of the service's blindness and roles, written from its promises (issue 11, README "The
workbench"), against the real service on SQLite and PostgreSQL:

- no page and no API route shows an annotator another expert's label (or note, or name) or a
  judge's verdict, whatever route, query parameter or error message it tries;
- an annotator cannot act as another rater nor reach an adjudicator or admin route;
- adjudication shows the labels without rater identity (no name, and an order that does not
  follow the raters), records who decided and why, and cannot be done twice;
- an adjudicator is not offered its own dispute and cannot label what it adjudicated;
- a note or item id written by one expert is shown escaped to another;
- a normal session (label, disagree, adjudicate, export, load as gold) works end to end."""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from calibrant.files import load_rubric
from calibrant.gold import load_gold
from tests.support.browser import csrf_of, login
from tests.support.labeling import BACKENDS, GOLD, RUBRIC, gold_jsonl, labeling_service
from tests.support.service import Service

NDJSON = {"Content-Type": "application/x-ndjson"}
SECRET_NOTE = "A-PRIVATE-NOTE-7f3c"


def _labels(**values: object) -> list[dict[str, object]]:
    return [{"criterion": k, "label": v} for k, v in values.items()]


ALL_PASS = _labels(
    separates_done_from_pending="pass",
    explains_next_step="pass",
    no_claim_before_confirmed="pass",
    reports_access_problem="not_applicable",
    overall_clarity=3,
)


@pytest.fixture(scope="module", params=BACKENDS)
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    with labeling_service(request.param, tmp_path_factory.mktemp("audit-blind")) as s:
        admin = s.client(s.user("au-admin", "admin"))
        got = admin.post("/api/transcripts?queue=au", content=gold_jsonl(*range(70, 80)))
        assert got.is_success, got.text
        yield s


def test_an_annotator_sees_no_other_label_on_any_route(service: Service) -> None:
    first = service.client(service.user("au-first", "annotator"))
    mine = [{**x, "note": SECRET_NOTE} for x in ALL_PASS]
    alias = _alias(service, "gold-070", "gold-071")
    a70, a71 = alias["gold-070"], alias["gold-071"]
    assert first.post("/api/labels", json={"item": a70, "labels": mine}).is_success
    second_token = service.user("au-second", "annotator")
    api = service.client(second_token)
    browser = login(service, second_token)
    other = {"item": a71, "labels": _labels(explains_next_step="fail")}
    assert api.post("/api/labels", json=other).is_success
    probes = [
        "/api/labels",
        f"/api/labels?item={a70}",
        f"/api/labels?rater=au-second&item={a70}",
        f"/api/items/{a70}",
        f"/api/disagreements?item={a70}",
        "/api/labels?item=gold-070",
        "/api/labels?rater=au-second&item=gold-070",
        "/api/labels?rater=au-second&rater=au-first",
        "/api/labels?rater=au-first&rater=au-second",
        "/api/labels?item=gold-070&item=gold-071",
        "/api/labels?rater=AU-FIRST",
        "/api/labels?rater=au-first%20",
        "/api/labels?rater=",
        "/api/labels?rater=consensus",
        "/api/labels?rater=%25",
        "/api/labels?rater=*",
        "/api/items",
        "/api/items/gold-070",
        "/api/items/gold-070?rater=au-first",
        "/api/queues",
        "/api/disagreements",
        "/api/disagreements?item=gold-070&include_decided=true",
        "/api/adjudications",
        "/api/adjudications?item=gold-070",
        "/api/export/labels",
        "/api/export/labels/au-first",
        "/api/export/labels/consensus",
        "/api/export/labels?queue=au",
        "/api/runs",
        "/api/judges",
        "/api/rubrics",
        "/api/jobs",
        "/api/me",
        "/openapi.json",
    ]
    for path in probes:
        got = api.get(path)
        assert got.status_code < 500, path
        assert SECRET_NOTE not in got.text, path
        if got.is_success or "au-first" not in path:  # a refusal may echo what was asked
            assert "au-first" not in got.text, path
        for row in got.json() if got.status_code == 200 and path == "/api/labels" else []:
            assert row["rater"] == "au-second"
    for path in ("/api/disagreements", "/api/adjudications", "/api/export/labels", "/api/runs"):
        assert api.get(path).status_code == 403, path
    assert api.get("/api/labels?rater=au-first").status_code == 403
    for row in api.get(f"/api/labels?item={a70}").json():
        assert row["rater"] == "au-second"
    # the pages: labeling, home, adjudication and reports
    pages = ["/", f"/label/{a70}", f"/label/{a71}", "/adjudicate", f"/adjudicate/{a70}"]
    pages += ["/reports", f"/label/{a70}?rater=au-first", "/label/gold-999", "/label/gold-070"]
    for path in pages:
        got = browser.get(path)
        assert got.status_code < 500, path
        assert SECRET_NOTE not in got.text and "au-first" not in got.text, path
    assert browser.get("/adjudicate").status_code == 403
    assert browser.get("/reports").status_code in (401, 403)
    page = browser.get(f"/label/{a70}").text
    # nobody's choice is preselected (no input carries `checked`; the rubric's words may say it)
    assert "Save labels" in page and not re.search(r"<input[^>]*\schecked\b", page)


def test_an_annotator_cannot_write_as_another_rater_or_reach_higher_roles(
    service: Service,
) -> None:
    api = service.client(service.user("au-sneaky", "annotator"))
    body = {"item": "gold-072", "labels": ALL_PASS, "rater": "au-admin"}
    assert api.post("/api/labels", json=body).status_code == 422  # no rater field accepted
    forged = {"item": "gold-072", "labels": [{**ALL_PASS[0], "rater": "au-admin"}]}
    assert api.post("/api/labels", json=forged).status_code == 422
    line = {"item": "gold-072", "rater": "au-other", "criterion": "explains_next_step"}
    writes = [
        ("/api/labels/import", json.dumps({**line, "label": "pass"}), NDJSON),
        ("/api/transcripts", gold_jsonl(80).decode(), NDJSON),
        ("/api/adjudications", "{}", {"Content-Type": "application/json"}),
        ("/api/rubrics", RUBRIC.read_text(), {"Content-Type": "application/yaml"}),
        ("/api/judges?name=x", "model: m\nrubric: r\n", {"Content-Type": "application/yaml"}),
        ("/api/jobs", '{"kind": "judge", "params": {}}', {"Content-Type": "application/json"}),
        ("/api/jobs/1/cancel", "", {}),
    ]
    for path, content, headers in writes:
        got = api.post(path, content=content, headers=headers)
        assert got.status_code == 403, (path, got.status_code, got.text)
    adj = service.client(service.user("au-adj-low", "adjudicator"))
    for path, content, headers in writes[:2] + writes[3:]:
        got = adj.post(path, content=content, headers=headers)
        assert got.status_code == 403, (path, got.status_code, got.text)
    admin = service.client(service.user("au-admin-2", "admin"))
    assert admin.get("/api/items/gold-080").status_code == 404  # nothing was uploaded
    assert admin.get("/api/labels?rater=au-other").json() == []


def _alias(service: Service, *ids: str) -> dict[str, str]:
    """Transcript id -> the opaque alias experts see it by (issue 19), as the admin knows it."""
    from calibrant.store import make_engine
    from calibrant.store.labeling import aliases

    engine = make_engine(service.database_url)
    try:
        return aliases(engine, ids)
    finally:
        engine.dispose()


def test_disagreements_show_no_rater_identity_not_even_by_order(service: Service) -> None:
    aaa = service.client(service.user("aaa-rater", "annotator"))
    zzz = service.client(service.user("zzz-rater", "annotator"))
    alias = _alias(service, "gold-073", "gold-074")
    # the same two raters, the same order of submission, opposite labels on two items
    for item, (a, z) in {"gold-073": ("pass", "fail"), "gold-074": ("fail", "pass")}.items():
        for client, value in ((aaa, a), (zzz, z)):
            body = {
                "item": alias[item],
                "labels": [
                    {"criterion": "explains_next_step", "label": value, "note": f"note {value}"}
                ],
            }
            assert client.post("/api/labels", json=body).is_success
    judge_token = service.user("au-judge", "adjudicator")
    judge = service.client(judge_token)
    got = judge.get("/api/disagreements").json()
    named = {v: k for k, v in alias.items()}
    found = {
        named[d["item"]]: [x["label"] for x in d["labels"]]
        for d in got
        if d["item"] in named and d["criterion"] == "explains_next_step"
    }
    assert sorted(found) == ["gold-073", "gold-074"]
    # an order that follows the raters (by name, account or time) would put aaa's label first
    # in both: the order must depend on the labels alone
    assert found["gold-073"] == found["gold-074"], found
    for d in got:
        for x in d["labels"]:
            assert set(x) <= {"label", "note"}, x
    raw = judge.get("/api/disagreements").text
    assert "aaa-rater" not in raw and "zzz-rater" not in raw
    browser = login(service, judge_token)
    for item in ("gold-073", "gold-074"):
        page = browser.get(f"/adjudicate/{alias[item]}").text
        assert "aaa-rater" not in page and "zzz-rater" not in page
        shown = re.findall(r"note (pass|fail)", page)
        assert shown == found["gold-073"][: len(shown)] or not shown, (item, shown)
    listing = browser.get("/adjudicate").text
    assert "aaa-rater" not in listing and "zzz-rater" not in listing


def test_adjudication_records_who_and_why_once_and_is_checked(service: Service) -> None:
    a = service.client(service.user("au-r1", "annotator"))
    b = service.client(service.user("au-r2", "annotator"))
    a75 = _alias(service, "gold-075")["gold-075"]
    for client, value in ((a, "pass"), (b, "fail")):
        body = {"item": a75, "labels": _labels(explains_next_step=value, overall_clarity=2)}
        assert client.post("/api/labels", json=body).is_success
    judge = service.client(service.user("au-judge2", "adjudicator"))
    decide = {"item": a75, "criterion": "explains_next_step", "label": "fail"}
    assert judge.post("/api/adjudications", json=decide).status_code == 422  # no reason
    assert judge.post("/api/adjudications", json={**decide, "reason": ""}).status_code == 422
    assert judge.post("/api/adjudications", json={**decide, "reason": "   "}).status_code == 422
    off = {**decide, "label": "maybe", "reason": "r"}
    assert judge.post("/api/adjudications", json=off).status_code == 422
    agreed = {**decide, "criterion": "overall_clarity", "label": 2, "reason": "r"}
    assert judge.post("/api/adjudications", json=agreed).status_code in (404, 409, 422)
    for name in ("gold-999", "gold-075"):  # a transcript id, even a right one, names nothing
        unknown = {**decide, "item": name, "reason": "r"}
        assert judge.post("/api/adjudications", json=unknown).status_code == 404
    ok = judge.post("/api/adjudications", json={**decide, "reason": "the policy says so"})
    assert ok.status_code == 200, ok.text
    assert ok.json()["decided_by"] == "au-judge2" and ok.json()["reason"] == "the policy says so"
    # a second adjudicator cannot overwrite the decision (and erase who saw the labels); its
    # author may revise it
    other = service.client(service.user("au-judge3", "adjudicator"))
    again = other.post("/api/adjudications", json={**decide, "label": "pass", "reason": "no"})
    assert again.status_code == 409, again.text
    revised = judge.post("/api/adjudications", json={**decide, "reason": "the policy says so"})
    assert revised.status_code == 200, revised.text
    recorded = judge.get(f"/api/adjudications?item={a75}").json()
    assert [(d["label"], d["decided_by"], d["reason"]) for d in recorded] == [
        ("fail", "au-judge2", "the policy says so")
    ]
    # the adjudicator cannot now label the item it decided (its label would not be blind)
    late = {"item": a75, "labels": _labels(explains_next_step="pass")}
    assert judge.post("/api/labels", json=late).status_code in (403, 409)
    # a rater revising after the decision does not erase it
    assert a.post("/api/labels", json={**late, "labels": _labels(explains_next_step="fail")})
    assert len(judge.get(f"/api/adjudications?item={a75}").json()) == 1


def test_an_adjudicator_is_not_offered_its_own_dispute(service: Service) -> None:
    judge = service.client(service.user("au-judge-labels", "adjudicator"))
    other = service.client(service.user("au-r3", "annotator"))
    alias = _alias(service, "gold-076")["gold-076"]
    for client, value in ((judge, "pass"), (other, "fail")):
        body = {"item": alias, "labels": _labels(no_claim_before_confirmed=value)}
        assert client.post("/api/labels", json=body).is_success
    mine = [d for d in judge.get("/api/disagreements").json() if d["item"] == alias]
    assert mine == []
    decide = {"item": alias, "criterion": "no_claim_before_confirmed", "label": "pass"}
    got = judge.post("/api/adjudications", json={**decide, "reason": "mine is right"})
    assert got.status_code in (403, 409), got.text
    browser = login(service, service.user("au-judge-labels-2", "adjudicator"))
    assert alias in browser.get("/adjudicate").text  # someone else is offered it


def test_a_note_and_an_item_id_from_one_expert_are_escaped_for_another(
    service: Service,
) -> None:
    doc = json.loads((GOLD / "gold-077.json").read_text())
    doc["transcript_id"] = 'au-<b onmouseover="x">id'
    admin = service.client(service.user("au-admin-3", "admin"))
    got = admin.post("/api/transcripts?queue=au-x", json=doc)
    assert got.status_code in (200, 422), got.text
    transcript_id = doc["transcript_id"] if got.status_code == 200 else "gold-077"
    item = _alias(service, transcript_id)[transcript_id]  # what experts name it by
    attack = '</textarea><script>alert(1)</script><!-- "><img src=x onerror=alert(2)>'
    for name, value in (("au-x1", "pass"), ("au-x2", "fail")):
        client = service.client(service.user(name, "annotator"))
        body = {
            "item": item,
            "labels": [{"criterion": "explains_next_step", "label": value, "note": attack}],
        }
        assert client.post("/api/labels", json=body).is_success
    browser = login(service, service.user("au-judge4", "adjudicator"))
    for path in ("/adjudicate", f"/adjudicate/{item}"):
        page = browser.get(path)
        assert page.status_code == 200, (path, page.text)
        assert "<script" not in page.text and "<img" not in page.text, path
        assert "<b onmouseover" not in page.text and '<!-- "' not in page.text, path
    assert "&lt;/textarea&gt;&lt;script&gt;" in browser.get(f"/adjudicate/{item}").text


def test_a_normal_session_ends_in_a_gold_set_that_loads(service: Service, tmp_path: Path) -> None:
    ann = [login(service, service.user(f"au-e2e{i}", "annotator")) for i in range(2)]
    alias = _alias(service, "gold-078", "gold-079")
    items = [alias["gold-078"], alias["gold-079"]]
    for i, browser in enumerate(ann):
        for item in items:
            page = browser.get(f"/label/{item}")
            assert page.status_code == 200
            form = {
                "csrf": csrf_of(page.text),
                "label.separates_done_from_pending": "pass",
                "label.explains_next_step": "pass" if i == 0 else "fail",
                "label.no_claim_before_confirmed": "cant_tell",
                "label.reports_access_problem": "not_applicable",
                "label.overall_clarity": "3",
                "note.explains_next_step": f"e2e {i}",
            }
            assert browser.post(f"/label/{item}", data=form).status_code == 303
    judge = login(service, service.user("au-e2e-judge", "adjudicator"))
    listing = judge.get("/adjudicate").text
    assert alias["gold-078"] in listing
    page = judge.get(f"/adjudicate/{alias['gold-078']}").text
    decision = {"csrf": csrf_of(page), "criterion": "explains_next_step", "label": "pass"}
    done = judge.post(
        f"/adjudicate/{alias['gold-078']}", data={**decision, "reason": "steps are given"}
    )
    assert done.status_code == 303, done.text
    # an adjudicator's export names the items as it knows them: by alias
    blind = service.client(service.user("au-e2e-reader", "adjudicator"))
    lines = blind.get("/api/export/labels/consensus?queue=au").text.splitlines()
    named = {json.loads(x)["item"] for x in lines}
    assert alias["gold-078"] in named and all(re.fullmatch(r"item-[0-9a-f]{12}", i) for i in named)
    # the admin's names them by transcript id: a gold folder beside the transcripts
    api = service.client(service.user("au-e2e-exporter", "admin"))
    exported = api.get("/api/export/labels?queue=au")
    assert exported.status_code == 200
    gold = tmp_path / "gold"
    (gold / "labels").mkdir(parents=True)
    (gold / "transcripts").mkdir()
    with zipfile.ZipFile(io.BytesIO(exported.content)) as z:
        names = z.namelist()
        assert all("/" not in n.removeprefix("labels/") and ".." not in n for n in names)
        z.extractall(gold)
    assert (gold / "labels" / "consensus.jsonl").exists(), names
    consensus = [
        json.loads(x) for x in (gold / "labels" / "consensus.jsonl").read_text().splitlines()
    ]
    decided = [
        x for x in consensus if x["item"] == "gold-078" and x["criterion"] == "explains_next_step"
    ]
    assert len(decided) == 1 and decided[0]["label"] == "pass"
    assert "au-e2e-judge" in json.dumps(decided[0]) and "steps are given" in json.dumps(decided[0])
    agreed = [x for x in consensus if x["item"] == "gold-079"]
    assert {x["criterion"] for x in agreed} >= {"separates_done_from_pending", "overall_clarity"}
    # a "can't tell" both agreed on is no consensus label (it waits for adjudication)
    assert all(x["label"] != "cant_tell" for x in consensus)
    manifest = yaml.safe_load((GOLD.parent / "manifest.yaml").read_text())
    exported_items = {
        json.loads(line)["item"]
        for f in (gold / "labels").iterdir()
        for line in f.read_text().splitlines()
    }
    keep = {k: manifest[k] for k in exported_items}
    (gold / "manifest.yaml").write_text(yaml.safe_dump(keep))
    for k in keep:
        shutil.copy(GOLD / f"{k}.json", gold / "transcripts")
    loaded = load_gold(gold, split=None)
    loaded.validate(load_rubric(RUBRIC))
    consensus_of = loaded.labels_by("consensus", "explains_next_step")
    assert consensus_of["gold-078"] == "pass" and "gold-079" not in consensus_of
    assert loaded.labels_by("au-e2e1", "explains_next_step") == {
        "gold-078": "fail",
        "gold-079": "fail",
    }


def test_an_imported_rater_name_cannot_escape_the_exported_folder(service: Service) -> None:
    admin = service.client(service.user("au-importer", "admin"))
    judge = service.client(service.user("au-exporter", "adjudicator"))
    for rater in ("../../evil", "sub/dir", "..", "a/../../b"):
        line = {"item": "gold-077", "rater": rater, "criterion": "explains_next_step"}
        body = json.dumps({**line, "label": "pass"}).encode()
        got = admin.post("/api/labels/import", content=body, headers=NDJSON)
        assert got.status_code in (200, 422), got.text
        if got.status_code == 422:
            assert got.json()["field"] == "rater"
            continue
        exported = judge.get("/api/export/labels")
        with zipfile.ZipFile(io.BytesIO(exported.content)) as z:
            for name in z.namelist():
                parts = name.split("/")
                assert parts[0] == "labels" and len(parts) == 2 and ".." not in parts, name


def test_an_error_page_escapes_what_was_asked(service: Service) -> None:
    browser = login(service, service.user("au-err", "annotator"))
    for path in (
        "/label/%3Cscript%3Ealert(1)%3C/script%3E",
        "/label/x%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E",
    ):
        got = browser.get(path)
        assert got.status_code == 404
        assert "<script" not in got.text and "<img" not in got.text, got.text
        assert got.headers["content-type"].startswith("text/html")


def test_an_adjudicator_who_saw_the_labels_of_an_item_can_no_longer_label_it(
    service: Service,
) -> None:
    """Blindness is about what an expert saw before labeling: once an adjudicator has been shown
    other experts' labels of an item (disagreements, label list, export, the adjudication page),
    a new or revised label of that item from it is refused; items it has not seen stay open."""
    admin = service.client(service.user("bl-admin", "admin"))
    assert admin.post("/api/transcripts?queue=bl", content=gold_jsonl(80, 81, 82)).is_success
    a = service.client(service.user("bl-a", "annotator"))
    b = service.client(service.user("bl-b", "annotator"))
    alias = _alias(service, "gold-080", "gold-081", "gold-082")
    for client, value in ((a, "pass"), (b, "fail")):
        for item in ("gold-080", "gold-081"):
            body = {"item": alias[item], "labels": _labels(explains_next_step=value)}
            assert client.post("/api/labels", json=body).is_success
    mine = {"item": alias["gold-082"], "labels": _labels(explains_next_step="pass")}

    # the disagreements route shows the labels of gold-080 and gold-081 (without names)
    lena = service.client(service.user("bl-lena", "adjudicator"))
    assert lena.post("/api/labels", json=mine).is_success  # before looking: fine
    shown = {d["item"] for d in lena.get("/api/disagreements").json()}
    assert {alias["gold-080"], alias["gold-081"]} <= shown
    refused = lena.post(
        "/api/labels",
        json={"item": alias["gold-080"], "labels": _labels(explains_next_step="pass")},
    )
    assert refused.status_code == 409 and "would not be blind" in refused.json()["detail"]
    assert lena.post("/api/labels", json=mine).is_success  # an item it was not shown

    # a label list of one item counts for that item only
    omar = service.client(service.user("bl-omar", "adjudicator"))
    assert omar.get("/api/labels", params={"item": alias["gold-081"]}).is_success
    again = {"item": alias["gold-081"], "labels": _labels(explains_next_step="fail")}
    assert omar.post("/api/labels", json=again).status_code == 409
    assert omar.post("/api/labels", json=mine).is_success

    # its own labels alone are not other experts' labels: an annotator reading its own is free
    assert a.get("/api/labels").is_success
    revise = {"item": alias["gold-080"], "labels": _labels(explains_next_step="fail")}
    assert a.post("/api/labels", json=revise).is_success

    # the export shows everyone's labels
    ines = service.client(service.user("bl-ines", "adjudicator"))
    assert ines.get("/api/export/labels").is_success
    late = {"item": alias["gold-080"], "labels": _labels(explains_next_step="pass")}
    assert ines.post("/api/labels", json=late).status_code == 409

    # the adjudication page of an item, in the browser
    browser = login(service, service.user("bl-page", "adjudicator"))
    page = browser.get(f"/adjudicate/{alias['gold-081']}").text
    assert alias["gold-081"] in page and "gold-081" not in page
    api = service.client(service.user("bl-page-api", "adjudicator"))
    assert api.post("/api/labels", json=mine).is_success  # another account: unaffected
