"""Audit of the service's input promises (issue 11, README "The service API" and "The
workbench"), against the real service on SQLite and PostgreSQL:

- request bodies over the limit get 413 (by Content-Length, chunked, or a huge declared
  length), a gzip body is not inflated, and the limit itself is accepted;
- malformed JSON, wrong types, off-rubric criteria and values, huge or unicode-tricky strings
  and ids (in a body or a URL) get a clear 4xx on both stores, never a 500;
- concurrent revisions of one label, decisions of one dispute, uploads of one transcript
  leave exactly one."""

from __future__ import annotations

import gzip
import html
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.browser import csrf_of, login
from tests.support.labeling import (
    ALL_CRITERIA,
    BACKENDS,
    GOLD,
    NDJSON,
    SMALL_LIMIT,
    aliases_of,
    gold_jsonl,
    small_limit_service,
)
from tests.support.service import Service

LIMIT = SMALL_LIMIT
CRITERIA = ALL_CRITERIA


@pytest.fixture(scope="module", params=BACKENDS)
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    with small_limit_service(request.param, tmp_path_factory.mktemp("audit-input")) as s:
        yield s


def test_bodies_over_the_limit_get_413_and_gzip_is_not_inflated(service: Service) -> None:
    admin = service.client(service.user("in-size", "admin"))
    over = b" " * (LIMIT + 1)
    got = admin.post("/api/transcripts?queue=in-big", content=over, headers=NDJSON)
    assert got.status_code == 413 and "limit" in got.json()["detail"]
    at = b" " * LIMIT  # at the limit: read and judged on its content (empty: 422)
    got = admin.post("/api/transcripts?queue=in-big", content=at, headers=NDJSON)
    assert got.status_code == 422, got.text

    def chunks(total: int) -> Iterator[bytes]:
        sent = 0
        while sent < total:
            yield b" " * 4096
            sent += 4096

    got = admin.post("/api/transcripts?queue=in-big", content=chunks(LIMIT * 4), headers=NDJSON)
    assert got.status_code == 413
    form_type = {"Content-Type": "application/x-www-form-urlencoded"}
    for path, headers in (("/api/labels", {}), ("/login", form_type)):
        got = admin.post(path, content=chunks(LIMIT * 2), headers=headers)
        assert got.status_code == 413, path
    # a form with a huge field is refused before it is parsed
    big_form = service.client().post("/login", data={"token": "x" * (LIMIT + 10)})
    assert big_form.status_code == 413
    # 1 MB of zeros gzipped is ~1 kB: a server that inflated it would take it as JSON
    bomb = gzip.compress(b"[" + b"0," * (LIMIT * 10) + b"0]")
    assert len(bomb) < LIMIT
    got = admin.post(
        "/api/transcripts?queue=in-big",
        content=bomb,
        headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
    )
    assert 400 <= got.status_code < 500 and got.status_code != 413, got.text
    assert admin.get("/api/items?queue=in-big").json() == []
    assert service.client().get("/api/health").status_code == 200


BAD_LABEL_BODIES: list[tuple[str, object]] = [
    ("not json", b"{oops"),
    ("a list", []),
    ("null", None),
    ("item a number", {"item": 81, "labels": []}),
    ("labels a string", {"item": "gold-083", "labels": "pass"}),
    ("no labels", {"item": "gold-083"}),
    ("empty labels", {"item": "gold-083", "labels": []}),
    ("extra key", {"item": "gold-083", "labels": [], "admin": True}),
    (
        "criterion off the rubric",
        {"item": "gold-083", "labels": [{"criterion": "tone", "label": "pass"}]},
    ),
    (
        "value off the scale",
        {"item": "gold-083", "labels": [{"criterion": "explains_next_step", "label": "PASS"}]},
    ),
    (
        "trailing space",
        {"item": "gold-083", "labels": [{"criterion": "explains_next_step", "label": "pass "}]},
    ),
    (
        "level out of range",
        {"item": "gold-083", "labels": [{"criterion": "overall_clarity", "label": 7}]},
    ),
    (
        "a boolean level",
        {"item": "gold-083", "labels": [{"criterion": "overall_clarity", "label": True}]},
    ),
    (
        "a float level",
        {"item": "gold-083", "labels": [{"criterion": "overall_clarity", "label": 2.5}]},
    ),
    (
        "n/a not allowed",
        {
            "item": "gold-083",
            "labels": [{"criterion": "explains_next_step", "label": "not_applicable"}],
        },
    ),
    (
        "null label",
        {"item": "gold-083", "labels": [{"criterion": "explains_next_step", "label": None}]},
    ),
    (
        "object label",
        {"item": "gold-083", "labels": [{"criterion": "explains_next_step", "label": {"$ne": 1}}]},
    ),
    (
        "twice",
        {"item": "gold-083", "labels": [{"criterion": "explains_next_step", "label": "pass"}] * 2},
    ),
    (
        "note too long",
        {
            "item": "gold-083",
            "labels": [{"criterion": "explains_next_step", "label": "pass", "note": "n" * 4001}],
        },
    ),
    (
        "note a number",
        {
            "item": "gold-083",
            "labels": [{"criterion": "explains_next_step", "label": "pass", "note": 5}],
        },
    ),
    (
        "huge item id",
        {"item": "i" * 40000, "labels": [{"criterion": "explains_next_step", "label": "pass"}]},
    ),
    (
        "NUL in the note",
        {
            "item": "gold-083",
            "labels": [{"criterion": "explains_next_step", "label": "pass", "note": "a\u0000b"}],
        },
    ),
    (
        "NUL in the item",
        {
            "item": "gold-083\u0000",
            "labels": [{"criterion": "explains_next_step", "label": "pass"}],
        },
    ),
    (
        "traversal",
        {
            "item": "../../etc/passwd",
            "labels": [{"criterion": "explains_next_step", "label": "pass"}],
        },
    ),
]


@pytest.mark.parametrize(("case", "body"), BAD_LABEL_BODIES, ids=[c for c, _ in BAD_LABEL_BODIES])
def test_a_bad_label_body_gets_a_clear_4xx_and_stores_nothing(
    service: Service, case: str, body: object
) -> None:
    api = service.client(service.user(f"in-bad-{len(case)}-{abs(hash(case)) % 10**6}", "annotator"))
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    # the item as an expert names it (its alias): what is wrong is the rest of the body
    alias = aliases_of(service, "gold-083")["gold-083"]
    content = content.replace(b'"gold-083', f'"{alias}'.encode())
    got = api.post("/api/labels", content=content, headers={"Content-Type": "application/json"})
    assert got.status_code in (404, 422), (case, got.status_code, got.text[:300])
    detail = got.json()["detail"]
    assert detail and "Traceback" not in json.dumps(detail)
    assert api.get("/api/labels").json() == []


def test_lone_surrogates_and_unicode_tricks_are_4xx_or_kept_verbatim(service: Service) -> None:
    api = service.client(service.user("in-unicode", "annotator"))
    a84 = aliases_of(service, "gold-084")["gold-084"]
    lone = b'{"item": "%s", "labels": [{"criterion": "explains_next_step", ' % a84.encode()
    lone += b'"label": "pass", "note": "x\\ud800y"}]}'
    got = api.post("/api/labels", content=lone, headers={"Content-Type": "application/json"})
    assert got.status_code in (200, 422), got.text
    if got.status_code == 200:  # then it must read back
        assert api.get(f"/api/labels?item={a84}").status_code == 200
    tricky = "\u202egnp.exe \u200b\u200d\ufeff زبون 👩‍⚕️"
    body = {
        "item": a84,
        "labels": [{"criterion": "explains_next_step", "label": "pass", "note": tricky}],
    }
    assert api.post("/api/labels", json=body).status_code == 200
    back = api.get(f"/api/labels?item={a84}").json()
    assert [x["note"] for x in back] == [tricky]
    # an item name that only looks like another (a zero-width space) is not that item
    twin = {**body, "item": a84 + "\u200b"}
    assert api.post("/api/labels", json=twin).status_code in (404, 422)


def test_odd_item_ids_upload_cleanly_or_get_a_4xx(service: Service) -> None:
    admin = service.client(service.user("in-ids", "admin"))
    ann = login(service, service.user("in-ids-ann", "annotator"))
    base = json.loads((GOLD / "gold-085.json").read_text())
    for odd in ("a\u0000b", "x" * 5000, "", " ", "a\ud800b", "a\u202eb", "a\u200bb"):
        doc = {**base, "transcript_id": odd}
        got = admin.post(
            "/api/transcripts?queue=in-odd",
            content=json.dumps(doc).encode(),
            headers={"Content-Type": "application/json"},
        )
        assert got.status_code == 422, (odd[:20], got.status_code, got.text[:200])
    # an id with a space, a question mark or a hash is refused at upload, naming the field
    for odd in ("has space", "q?a", "frag#1", "q&a", "100%"):
        got = admin.post("/api/transcripts?queue=in-odd", json={**base, "transcript_id": odd})
        assert got.status_code == 422 and got.json()["field"] == "transcript_id", odd
    # an id with dot segments would be unreachable (browsers resolve them out of the URL)
    for odd in ("../x", "a/../b", "a/./b", "a//b", "/abs", "dir/"):
        got = admin.post("/api/transcripts?queue=in-odd", json={**base, "transcript_id": odd})
        assert got.status_code == 422 and got.json()["field"] == "transcript_id", odd
    # an id with a slash is fine: linked from the queue and labeled through the browser
    got = admin.post("/api/transcripts?queue=in-slash", json={**base, "transcript_id": "team/c-1"})
    assert got.status_code == 200, got.text
    # the expert sees the item's alias (issue 19: ids name the agent) and reaches it by that
    # alone (issue 30: the id is no name for an expert)
    alias = next(x["alias"] for x in admin.get("/api/items?queue=in-slash").json())
    hrefs = [html.unescape(h) for h in re.findall(r'href="(/label/[^"]+)"', ann.get("/").text)]
    assert f"/label/{alias}" in hrefs and "/label/team/c-1" not in hrefs, hrefs
    assert ann.get("/label/team/c-1").status_code == 404
    page = ann.get(f"/label/{alias}")
    assert page.status_code == 200
    form = {f"label.{k}": str(v) for k, v in CRITERIA.items()} | {"csrf": csrf_of(page.text)}
    assert ann.post(f"/label/{alias}", data=form).status_code == 303
    mine = admin.get("/api/labels?rater=in-ids-ann").json()
    assert {x["item"] for x in mine} == {"team/c-1"}


def test_concurrent_revisions_of_one_label_leave_exactly_one(service: Service) -> None:
    token = service.user("in-racer", "annotator")
    values = ["pass", "fail", "cant_tell"]
    a85 = aliases_of(service, "gold-085")["gold-085"]

    def post(i: int) -> int:
        with service.client() as c:
            body = {
                "item": a85,
                "labels": [
                    {
                        "criterion": "explains_next_step",
                        "label": values[i % 3],
                        "note": f"revision {i}",
                    }
                ],
            }
            return c.post(
                "/api/labels", json=body, headers={"Authorization": f"Bearer {token}"}
            ).status_code

    with ThreadPoolExecutor(20) as pool:
        codes = list(pool.map(post, range(60)))
    assert codes == [200] * 60, codes
    mine = service.client(token).get(f"/api/labels?item={a85}").json()
    assert len(mine) == 1
    n = int(mine[0]["note"].split()[-1])
    assert mine[0]["label"] == values[n % 3]  # the note and the label of the same revision


def test_a_nul_is_refused_the_same_way_by_every_path_on_every_store(service: Service) -> None:
    """PostgreSQL text cannot hold a NUL: a note or reason with one is 422 on both stores (not
    a 500 on one and stored on the other), by the API, the form and the import."""
    admin = service.client(service.user("in-nul-admin", "admin"))
    line = {"item": "gold-083", "rater": "in-nul-x", "criterion": "explains_next_step"}
    body = json.dumps({**line, "label": "pass", "note": "a\u0000b"}).encode()
    got = admin.post("/api/labels/import", content=body, headers=NDJSON)
    assert got.status_code == 422 and got.json()["field"] == "note", got.text
    long = json.dumps({**line, "label": "pass", "note": "n" * 4001}).encode()
    assert admin.post("/api/labels/import", content=long, headers=NDJSON).status_code == 422
    ann = login(service, service.user("in-nul-ann", "annotator"))
    a83 = aliases_of(service, "gold-083")["gold-083"]
    page = ann.get(f"/label/{a83}")
    form = {f"label.{k}": str(v) for k, v in CRITERIA.items()} | {"csrf": csrf_of(page.text)}
    got = ann.post(f"/label/{a83}", data={**form, "note.explains_next_step": "a\u0000b"})
    assert got.status_code == 422, got.text[:300]
    assert ann.get(f"/api/labels?item={a83}").json() == []
    assert ann.post(f"/label/{a83}", data=form).status_code == 303
    other = service.client(service.user("in-nul-ann2", "annotator"))
    flip = {"item": a83, "labels": [{"criterion": "explains_next_step", "label": "fail"}]}
    assert other.post("/api/labels", json=flip).is_success
    judge = service.client(service.user("in-nul-judge", "adjudicator"))
    decide = {"item": a83, "criterion": "explains_next_step", "label": "pass"}
    got = judge.post("/api/adjudications", json={**decide, "reason": "ok\u0000"})
    assert got.status_code == 422, got.text
    assert judge.post("/api/adjudications", json={**decide, "reason": "ok"}).status_code == 200


def test_a_nul_or_odd_id_in_a_url_is_a_4xx_on_every_store(service: Service) -> None:
    token = service.user("in-url-judge", "admin")
    api = service.client(token)
    browser = login(service, token)
    odd = ["a%00b", "%00", "gold-081%00", "%C0%AF", "a%ED%A0%80b", "x" * 3000]
    for value in odd:
        for path in (
            f"/api/items/{value}",
            f"/api/labels?item={value}",
            f"/api/labels?rater={value}",
            f"/api/disagreements?item={value}",
            f"/api/adjudications?item={value}",
            f"/api/export/labels/{value}",
            f"/api/export/labels?queue={value}",
            f"/api/items?queue={value}",
            f"/api/rubrics/{value}",
            f"/api/judges/{value}",
            f"/api/runs/{value}",
            f"/api/jobs/{value}",
        ):
            got = api.get(path)
            assert 400 <= got.status_code < 500, (path[:80], got.status_code, got.text[:200])
        for path in (f"/label/{value}", f"/adjudicate/{value}", f"/reports/{value}"):
            got = browser.get(path)
            assert 400 <= got.status_code < 500, (path[:80], got.status_code, got.text[:200])


def test_two_adjudicators_deciding_at_once_leave_one_decision(service: Service) -> None:
    a84 = aliases_of(service, "gold-084")["gold-084"]
    for name, value in (("in-race-a", "pass"), ("in-race-b", "fail")):
        client = service.client(service.user(name, "annotator"))
        body = {"item": a84, "labels": [{"criterion": "overall_clarity", "label": value}]}
        body["labels"][0]["label"] = 1 if value == "pass" else 3
        assert client.post("/api/labels", json=body).is_success
    tokens = [service.user(f"in-race-judge{i}", "adjudicator") for i in range(8)]

    def decide(i: int) -> int:
        with service.client() as c:
            body = {
                "item": a84,
                "criterion": "overall_clarity",
                "label": 1 + i % 3,
                "reason": f"judge {i}",
            }
            headers = {"Authorization": f"Bearer {tokens[i]}"}
            return c.post("/api/adjudications", json=body, headers=headers).status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(decide, range(8)))
    assert sorted(codes) == [200] + [409] * 7, codes
    winner = codes.index(200)
    got = service.client(tokens[0]).get(f"/api/adjudications?item={a84}").json()
    assert [(d["decided_by"], d["reason"], d["label"]) for d in got] == [
        (f"in-race-judge{winner}", f"judge {winner}", 1 + winner % 3)
    ]


def test_the_same_upload_sent_at_once_by_several_admins_is_stored_once(service: Service) -> None:
    tokens = [service.user(f"in-up{i}", "admin") for i in range(6)]
    body = gold_jsonl(87, 88)
    assert len(body) < LIMIT

    def upload(i: int) -> tuple[int, str]:
        with service.client() as c:
            got = c.post(
                "/api/transcripts?queue=in-race",
                content=body,
                headers={**NDJSON, "Authorization": f"Bearer {tokens[i]}"},
            )
            return got.status_code, got.text

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(upload, range(6)))
    assert all(code in (200, 409) for code, _ in answers), answers
    added = [json.loads(text)["added"] for code, text in answers if code == 200]
    assert sorted(x for a in added for x in a) == ["gold-087", "gold-088"], answers
    items = service.client(tokens[0]).get("/api/items?queue=in-race").json()
    assert sorted(x["id"] for x in items) == ["gold-087", "gold-088"]


def test_a_csv_with_a_field_over_the_csv_limit_is_a_line_error_not_a_crash() -> None:
    from calibrant.errors import InputError
    from calibrant.files import labels_from_text

    huge = "n" * 200_000  # over the csv module's field limit (131072), under the body limit
    for body in (
        f"{huge},rater,criterion,label\n",
        f"item,rater,criterion,label,note\na,b,c,pass,{huge}\n",
    ):
        with pytest.raises(InputError) as refused:
            labels_from_text(Path("request body"), body, csv_format=True)
        assert "CSV" in str(refused.value) and refused.value.line in (1, 2)
