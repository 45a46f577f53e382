"""The labeling API against the real service (uvicorn in its own process) on SQLite and
PostgreSQL: uploads all or nothing with the bad line and field named, labels checked against the
rubric, an annotator blind to everyone else's labels, disagreements shown without raters,
adjudications recording who and why, and an export that loads as a gold set."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from calibrant.files import load_rubric
from calibrant.gold import load_gold
from tests.support.domains import transcript_of_domain
from tests.support.labeling import (
    BACKENDS,
    GOLD,
    RUBRIC,
    aliases_of,
    gold_jsonl,
    labeling_service,
)
from tests.support.service import Service

NDJSON = {"Content-Type": "application/x-ndjson"}


@pytest.fixture(scope="module", params=BACKENDS)
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    with labeling_service(request.param, tmp_path_factory.mktemp("svc")) as s:
        yield s


def _labels(**values: object) -> list[dict[str, object]]:
    return [{"criterion": k, "label": v} for k, v in values.items()]


ALL_PASS = _labels(
    separates_done_from_pending="pass",
    explains_next_step="pass",
    no_claim_before_confirmed="pass",
    reports_access_problem="not_applicable",
    overall_clarity=3,
)


def test_upload_is_all_or_nothing_and_names_the_bad_line_and_field(service: Service) -> None:
    admin = service.client(service.user("up-admin", "admin"))
    body = gold_jsonl(1, 2, 3)
    bad = json.loads(gold_jsonl(4))
    bad["trial"] = 0
    broken = body + json.dumps(bad).encode() + b"\n"
    got = admin.post("/api/transcripts", content=broken, headers=NDJSON)
    assert got.status_code == 422, got.text
    assert got.json()["line"] == 4 and got.json()["field"] == "trial"
    assert "request body:4" in got.json()["detail"]
    assert admin.get("/api/items").json() == []  # nothing of the good lines was kept
    not_json = admin.post("/api/transcripts", content=body + b"{oops\n", headers=NDJSON)
    assert not_json.status_code == 422 and not_json.json()["line"] == 4
    # a JSON array: the line of the bad field inside the body
    docs = [json.loads((GOLD / f"gold-{n:03d}.json").read_text()) for n in (1, 2)]
    del docs[1]["case_id"]
    text = json.dumps(docs, indent=1)
    array = admin.post("/api/transcripts", content=text)
    assert array.status_code == 422 and array.json()["field"] == "1.case_id"
    assert array.json()["line"] == text.splitlines().index(" {", 2) + 1
    assert "required field is missing" in array.json()["detail"]

    ok = admin.post("/api/transcripts?queue=pilot", content=body, headers=NDJSON)
    assert ok.status_code == 200, ok.text
    assert ok.json() | {"rubric": None} == {
        "queue": "pilot",
        "rubric": None,
        "added": ["gold-001", "gold-002", "gold-003"],
        "already_present": [],
    }
    assert ok.json()["rubric"] == load_rubric(RUBRIC).content_hash
    again = admin.post("/api/transcripts?queue=pilot", content=gold_jsonl(1)).json()
    assert again["added"] == [] and again["already_present"] == ["gold-001"]
    changed = json.loads(gold_jsonl(2))
    changed["trial"] = 7
    clash = admin.post("/api/transcripts?queue=pilot", content=json.dumps(changed))
    assert clash.status_code == 409 and "gold-002" in clash.json()["detail"]
    twice = admin.post("/api/transcripts", content=gold_jsonl(5, 5), headers=NDJSON)
    assert twice.status_code == 422 and twice.json()["line"] == 2
    # a transcript of another domain than the queue's rubric: the whole upload refused
    tours = transcript_of_domain(json.loads(gold_jsonl(6)), "tours")
    mixed_body = gold_jsonl(7) + json.dumps(tours).encode() + b"\n"
    mixed = admin.post("/api/transcripts", content=mixed_body, headers=NDJSON)
    assert mixed.status_code == 422 and mixed.json()["line"] == 2
    assert mixed.json()["field"] == "domain"
    said = "domain 'tours', but rubric 'refund_communication' is domain 'refunds'"
    assert said in mixed.json()["detail"]
    assert "gold-007" not in [i["id"] for i in admin.get("/api/items").json()]
    assert [i["id"] for i in admin.get("/api/items?queue=pilot").json()] == [
        "gold-001",
        "gold-002",
        "gold-003",
    ]
    unknown = admin.post("/api/transcripts?rubric=sha256:nope", content=gold_jsonl(6))
    assert unknown.status_code == 404
    annotator = service.client(service.user("up-ann", "annotator"))
    assert annotator.post("/api/transcripts", content=gold_jsonl(6)).status_code == 403
    assert service.client().post("/api/transcripts", content=gold_jsonl(6)).status_code == 401


def test_labels_are_checked_against_the_rubric_and_revisable(service: Service) -> None:
    admin = service.client(service.user("lab-admin", "admin"))
    assert admin.post("/api/transcripts?queue=q2", content=gold_jsonl(10)).status_code == 200
    anonymous = service.client().post("/api/labels", json={"item": "gold-010", "labels": ALL_PASS})
    assert anonymous.status_code == 401
    ann = service.client(service.user("lab-ann", "annotator"))
    alias = aliases_of(service, "gold-010")["gold-010"]  # experts name items by alias

    def post(labels: list[dict[str, object]], item: str = alias) -> httpx.Response:
        return ann.post("/api/labels", json={"item": item, "labels": labels})

    bad_criterion = post(_labels(tone="pass"))
    assert bad_criterion.status_code == 422
    assert bad_criterion.json()["field"] == "labels.0.criterion"
    off_scale = post(_labels(explains_next_step="pass", overall_clarity=5))
    assert off_scale.json()["field"] == "labels.1.label"
    assert "allowed: 1, 2, 3, 4, 'cant_tell'" in off_scale.json()["detail"]
    # not_applicable only where the rubric allows it
    na = post(_labels(explains_next_step="not_applicable"))
    assert na.status_code == 422
    for junk in (True, 2.0, None, " pass"):
        assert post(_labels(explains_next_step=junk)).status_code == 422
    assert post(ALL_PASS, item="gold-999").status_code == 404
    assert post(ALL_PASS, item="gold-010").status_code == 404  # the transcript id: no name
    assert ann.get(f"/api/labels?item={alias}").json() == []  # nothing half-saved

    first = post([*ALL_PASS[:4], {"criterion": "overall_clarity", "label": "cant_tell"}])
    assert first.status_code == 200, first.text
    revised = post(_labels(overall_clarity=2, explains_next_step="fail"))
    assert revised.status_code == 200
    mine = {x["criterion"]: x["label"] for x in ann.get(f"/api/labels?item={alias}").json()}
    assert mine == {
        "separates_done_from_pending": "pass",
        "explains_next_step": "fail",
        "no_claim_before_confirmed": "pass",
        "reports_access_problem": "not_applicable",
        "overall_clarity": 2,
    }
    queues = {q["queue"]: q for q in ann.get("/api/queues").json()}
    assert queues["q2"] == {"queue": "q2", "items": 1, "done": 1, "next_item": None}


def test_an_annotator_reads_only_its_own_labels_by_every_route(service: Service) -> None:
    admin = service.client(service.user("blind-admin", "admin"))
    assert admin.post("/api/transcripts?queue=q3", content=gold_jsonl(20)).status_code == 200
    ann = service.client(service.user("blind-a", "annotator"))
    other = service.client(service.user("blind-b", "annotator"))
    secret = "B-THINKS-THE-EMAIL-COUNTS"
    b_labels = [dict(x, note=secret) for x in ALL_PASS]
    alias = aliases_of(service, "gold-020")["gold-020"]
    assert other.post("/api/labels", json={"item": alias, "labels": b_labels}).is_success
    assert ann.get("/api/labels").json() == []
    assert ann.get(f"/api/labels?item={alias}").json() == []
    assert ann.get("/api/labels?rater=blind-b").status_code == 403
    for path in (
        "/api/disagreements",
        "/api/adjudications",
        "/api/export/labels",
        "/api/export/labels/blind-b",
        "/api/export/labels/consensus",
    ):
        assert ann.get(path).status_code == 403, path
    item = ann.get(f"/api/items/{alias}")
    assert item.status_code == 200 and secret not in item.text and "blind-b" not in item.text
    page = ann.get(f"/label/{alias}")
    assert page.status_code == 200
    assert secret not in page.text and "blind-b" not in page.text
    # the other annotator sees its own labels, and an adjudicator everyone's
    assert {x["rater"] for x in other.get("/api/labels").json()} == {"blind-b"}
    judge = service.client(service.user("blind-adj", "adjudicator"))
    assert {x["rater"] for x in judge.get(f"/api/labels?item={alias}").json()} == {"blind-b"}


def test_disagreements_are_blind_and_adjudication_records_who_and_why(
    service: Service, tmp_path: Path
) -> None:
    admin = service.client(service.user("adj-admin", "admin"))
    assert admin.post("/api/transcripts?queue=q4", content=gold_jsonl(30, 31)).is_success
    a = service.client(service.user("adj-ann-a", "annotator"))
    b = service.client(service.user("adj-ann-b", "annotator"))
    alias = {x["transcript_id"]: x["alias"] for x in admin.get("/api/items?queue=q4").json()}
    for item in ("gold-030", "gold-031"):
        assert a.post("/api/labels", json={"item": alias[item], "labels": ALL_PASS}).is_success
    b_030 = [
        *ALL_PASS[:1],
        {"criterion": "explains_next_step", "label": "fail", "note": "no named person"},
        *ALL_PASS[2:],
    ]
    assert b.post("/api/labels", json={"item": alias["gold-030"], "labels": b_030}).is_success
    assert b.post("/api/labels", json={"item": alias["gold-031"], "labels": ALL_PASS}).is_success
    judge = service.client(service.user("adj-judge", "adjudicator"))
    open_ = judge.get(f"/api/disagreements?item={alias['gold-030']}")
    assert open_.json() == [
        {
            "item": alias["gold-030"],  # an expert sees the item's alias (issue 19)
            "criterion": "explains_next_step",
            "labels": [
                {"label": "fail", "note": "no named person"},
                {"label": "pass", "note": None},
            ],
        }
    ]
    assert "adj-ann" not in open_.text
    assert judge.get(f"/api/disagreements?item={alias['gold-031']}").json() == []

    def decide(**body: object) -> httpx.Response:
        return judge.post("/api/adjudications", json={"item": alias["gold-030"], **body})

    no_reason = decide(criterion="explains_next_step", label="pass", reason="")
    assert no_reason.status_code == 422
    cant = decide(criterion="explains_next_step", label="cant_tell", reason="unclear")
    assert cant.status_code == 422
    agreed = decide(criterion="overall_clarity", label=3, reason="both said 3")
    assert agreed.status_code == 409
    ok = decide(criterion="explains_next_step", label="pass", reason="a named role counts")
    assert ok.status_code == 200, ok.text
    assert ok.json()["decided_by"] == "adj-judge"
    read_back = judge.get(f"/api/adjudications?item={alias['gold-030']}").json()
    assert [(d["decided_by"], d["reason"]) for d in read_back] == [
        ("adj-judge", "a named role counts")
    ]
    assert read_back[0]["decided_at"].endswith(("Z", "+00:00"))  # UTC, said so
    assert judge.get(f"/api/disagreements?item={alias['gold-030']}").json() == []
    assert a.post("/api/adjudications", json={}).status_code == 403
    late = judge.post("/api/labels", json={"item": alias["gold-030"], "labels": ALL_PASS})
    assert late.status_code == 409 and "not be blind" in late.json()["detail"]

    # the export is the gold labels/ folder; with a manifest and the transcripts it loads (the
    # admin's: an adjudicator's names the items by alias)
    exported = admin.get("/api/export/labels?queue=q4")
    assert exported.status_code == 200
    assert exported.headers["content-type"] == "application/zip"
    root = tmp_path / "gold"
    zipfile.ZipFile(io.BytesIO(exported.content)).extractall(root)
    assert sorted(p.name for p in (root / "labels").iterdir()) == [
        "adj-ann-a.jsonl",
        "adj-ann-b.jsonl",
        "consensus.jsonl",
    ]
    (root / "transcripts").mkdir()
    manifest = yaml.safe_load((GOLD.parent / "manifest.yaml").read_text())
    keep = {k: manifest[k] for k in ("gold-030", "gold-031")}
    (root / "manifest.yaml").write_text(yaml.safe_dump(keep))
    for k in keep:
        shutil.copy(GOLD / f"{k}.json", root / "transcripts")
    gold = load_gold(root, split=None)
    gold.validate(load_rubric(RUBRIC))
    assert gold.labels_by("consensus", "explains_next_step") == {
        "gold-030": "pass",
        "gold-031": "pass",
    }
    assert gold.notes("consensus", "explains_next_step")["gold-030"] == (
        "adjudicated by adj-judge: a named role counts"
    )
    assert gold.labels_by("adj-ann-b", "explains_next_step")["gold-030"] == "fail"
    one = judge.get("/api/export/labels/adj-ann-b?queue=q4")
    assert one.headers["content-type"].startswith("application/x-ndjson")
    assert len(one.text.splitlines()) == 10
    assert {json.loads(x)["item"] for x in one.text.splitlines()} == set(alias.values())


def test_nobody_adjudicates_a_dispute_over_its_own_label(service: Service) -> None:
    admin = service.client(service.user("self-admin", "admin"))
    assert admin.post("/api/transcripts?queue=q5", content=gold_jsonl(35)).is_success
    ann = service.client(service.user("self-ann", "annotator"))
    both = service.client(service.user("self-adj", "adjudicator"))
    other = service.client(service.user("self-other", "adjudicator"))
    (alias,) = [x["alias"] for x in admin.get("/api/items?queue=q5").json()]
    assert ann.post("/api/labels", json={"item": alias, "labels": ALL_PASS}).is_success
    mine = _labels(overall_clarity=1)
    assert both.post("/api/labels", json={"item": alias, "labels": mine}).is_success
    assert both.get(f"/api/disagreements?item={alias}").json() == []
    seen = other.get(f"/api/disagreements?item={alias}").json()
    assert [(d["item"], d["criterion"]) for d in seen] == [(alias, "overall_clarity")]
    body = {"item": alias, "criterion": "overall_clarity", "label": 1, "reason": "mine"}
    refused = both.post("/api/adjudications", json=body)
    assert refused.status_code == 409 and "yourself" in refused.json()["detail"]
    assert other.post("/api/adjudications", json={**body, "reason": "fair"}).is_success


def test_labels_made_elsewhere_import_all_or_nothing_and_export_back(service: Service) -> None:
    admin = service.client(service.user("imp-admin", "admin"))
    numbers = range(81, 87)
    assert admin.post("/api/transcripts?queue=q6", content=gold_jsonl(*numbers)).is_success
    wanted = {f"gold-{n:03d}" for n in numbers}
    files = {
        rater: [
            line
            for line in (GOLD.parent / "labels" / f"{rater}.jsonl").read_text().splitlines()
            if json.loads(line)["item"] in wanted
        ]
        for rater in ("rater_a", "rater_b", "consensus")
    }
    good = "\n".join(files["rater_a"] + files["rater_b"]) + "\n"

    def refused(body: str, line: int, field: str, **headers: str) -> str:
        got = admin.post("/api/labels/import", content=body, headers=headers or NDJSON)
        assert got.status_code == 422, got.text
        assert (got.json()["line"], got.json()["field"]) == (line, field), got.json()
        return str(got.json()["detail"])

    n = len(files["rater_a"]) + 1  # the line after rater_a's
    elsewhere = json.dumps({"item": "gold-100", "rater": "x", "criterion": "c", "label": 1})
    assert "not uploaded" in refused(good.replace(files["rater_b"][0], elsewhere), n, "item")
    bad_value = files["rater_b"][0].replace('"label": "pass"', '"label": "great"')
    bad_value = bad_value.replace('"label": "fail"', '"label": "great"')
    assert "not on the scale" in refused(good.replace(files["rater_b"][0], bad_value), n, "label")
    assert "twice" in refused(good + files["rater_b"][0] + "\n", 2 * n - 1, "item")
    assert "adjudication" in refused(good + files["consensus"][0] + "\n", 2 * n - 1, "rater")
    assert refused(
        "item,rater,criterion,label\ngold-081,r,tone,pass\n",
        2,
        "criterion",
        **{"Content-Type": "text/csv"},
    )
    assert admin.get("/api/labels?item=gold-081").json() == []  # nothing of the good lines
    ann = service.client(service.user("imp-ann", "annotator"))
    assert ann.post("/api/labels/import", content=good, headers=NDJSON).status_code == 403

    done = admin.post("/api/labels/import", content=good, headers=NDJSON)
    assert done.status_code == 200, done.text
    assert done.json() == {"labels": 2 * (n - 1), "raters": 2, "items": 6}
    back = admin.get("/api/export/labels/rater_a?queue=q6").text.splitlines()

    def canonical(lines: list[str]) -> set[str]:  # the export says its schema_version
        return {
            json.dumps({"schema_version": 1, **json.loads(line)}, sort_keys=True) for line in lines
        }

    assert canonical(back) == canonical(files["rater_a"])
    # where the two raters agree, the service's consensus is the gold consensus
    consensus = admin.get("/api/export/labels/consensus?queue=q6").text.splitlines()
    gold = {(x["item"], x["criterion"]): x["label"] for x in map(json.loads, files["consensus"])}
    ours = {(x["item"], x["criterion"]): x["label"] for x in map(json.loads, consensus)}
    open_ = {(d["item"], d["criterion"]) for d in admin.get("/api/disagreements").json()}
    assert ours.keys() | {k for k in open_ if k[0] in wanted} == gold.keys()
    assert all(gold[k] == v for k, v in ours.items())


def test_no_account_may_be_called_consensus(tmp_path: Path) -> None:
    from calibrant.errors import ConfigError
    from calibrant.store import make_engine
    from calibrant.store.users import Users

    engine = make_engine(f"sqlite:///{tmp_path / 's.db'}")
    try:
        with pytest.raises(ConfigError, match="reserved for the consensus labels"):
            Users(engine).add("consensus", "annotator")
    finally:
        engine.dispose()
