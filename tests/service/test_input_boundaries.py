"""Input the service must refuse with a 422 on every store, never a 500 (issue 19, item 8):
a lone surrogate inside an uploaded transcript's text (JSON allows the escape, UTF-8 and
PostgreSQL cannot hold it), and a NUL in a job's parameters (PostgreSQL text cannot hold it,
and a path with one cannot even be looked up)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.support.labeling import BACKENDS, GOLD, NDJSON, labeling_service
from tests.support.pg import fresh_schema
from tests.support.service import Service, running_service

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module", params=BACKENDS)
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    with labeling_service(request.param, tmp_path_factory.mktemp("boundaries")) as s:
        yield s


@pytest.mark.parametrize("where", ["conversation", "notification", "note", "array", "jsonl"])
def test_a_lone_surrogate_in_an_uploaded_transcript_is_422(service: Service, where: str) -> None:
    admin = service.client(service.user(f"up-{where}", "admin"))
    doc = json.loads((GOLD / "gold-085.json").read_text())
    doc["transcript_id"] = f"surrogate-{where}"
    if where == "notification":
        doc["notifications"]["attempts"][0]["body"] = "PLACEHOLDER"
    elif where == "note":
        doc["ledger_before"]["tenants"][0]["orders"][0]["customer_note"] = "PLACEHOLDER"
    else:
        doc["conversation"][1]["text"] = "PLACEHOLDER"
    text = json.dumps(doc, indent=1).replace("PLACEHOLDER", "refund \\ud83d of 42 \\udc00")
    body = f"[{text}]" if where == "array" else text
    if where == "jsonl":
        good = json.dumps({**json.loads(json.dumps(doc).replace("PLACEHOLDER", "ok")),
                           "transcript_id": "surrogate-ok"})  # fmt: skip
        body = good + "\n" + json.dumps(json.loads(text), ensure_ascii=True) + "\n"
    headers = NDJSON if where == "jsonl" else JSON
    got = admin.post(f"/api/transcripts?queue=q-{where}", content=body.encode(), headers=headers)
    assert got.status_code == 422, (got.status_code, got.text[:300])
    detail = got.json()
    assert "surrogate" in json.dumps(detail) and detail.get("line"), detail
    if where == "jsonl":
        assert detail["line"] == 2
    # nothing of the refused body was stored
    listed = admin.get(f"/api/items?queue=q-{where}")
    assert listed.status_code == 200 and listed.json() == []


@pytest.mark.postgres
def test_a_nul_in_job_parameters_is_422_on_postgresql(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with fresh_schema() as url, running_service(url, tmp_path_factory.mktemp("jobs-nul")) as s:
        admin = s.client(s.user("nul-admin", "admin"))
        for kind, params in [
            ("judge", {"judge": "emb\u0000edded", "paths": ["examples"]}),
            ("judge", {"judge": "x", "paths": ["examples\u0000/x"]}),
            ("calibrate", {"judge": "x", "gold": "gold\u0000"}),
            ("compare", {"a": "x\u0000", "b": "y"}),
            ("score", {"judge": "x", "paths": ["p"], "calibration_run": "r\u0000"}),
        ]:
            got = admin.post("/api/jobs", json={"kind": kind, "params": params})
            assert got.status_code == 422, (kind, got.status_code, got.text[:300])
            assert "NUL" in got.text, got.text[:300]
        assert admin.get("/api/jobs").json() == []


# --- issue 30 item 8: malformed input is a 422 naming the field, never a 500 ------------------


@pytest.mark.parametrize("number", ["NaN", "1e309", "-Infinity"])
def test_a_number_json_cannot_hold_in_a_label_is_422(service: Service, number: str) -> None:
    """`NaN`, `Infinity` and `1e309` (infinite once read) are not JSON numbers, but a body may
    hold them: refused naming the label, and the answer itself is JSON."""
    api = service.client(service.user(f"nan-{number.strip('-')}", "annotator"))
    body = '{"item": "gold-085", "labels": [{"criterion": "overall_clarity", "label": %s}]}'
    got = api.post("/api/labels", content=(body % number).encode(), headers=JSON)
    assert got.status_code == 422, (got.status_code, got.text[:300])
    [error] = got.json()["detail"]
    assert error["loc"][-3:] == ["labels", 0, "label"] or "label" in error["loc"], error


def test_a_bare_number_of_thousands_of_digits_is_422(service: Service) -> None:
    admin = service.client(service.user("digits-admin", "admin"))
    for body in ("9" * 5000, "[\n" + "1" * 5000 + "]"):
        got = admin.post("/api/transcripts?queue=digits", content=body.encode(), headers=JSON)
        assert got.status_code == 422, (got.status_code, got.text[:300])
        assert "a number of more than 4300 digits" in got.json()["detail"]
        assert got.json()["line"] == (1 if body[0] == "9" else 2)


@pytest.mark.parametrize("shape", ["block", "after-an-apostrophe"])
def test_a_rubric_nested_deeper_than_the_stack_is_422(service: Service, shape: str) -> None:
    """Nesting deep enough to exhaust Python's stack (RecursionError), in shapes the bracket
    and indentation count cannot see: `- - - ... x` on one line, or brackets after a word's
    apostrophe (taken for an opening quote)."""
    admin = service.client(service.user(f"deep-{shape}", "admin"))
    if shape == "block":
        body = "rubric_id: deep\ncriteria:\n  " + "- " * 3000 + "x\n"
    else:
        body = "rubric_id: it's deep\ncriteria: " + "[" * 3000 + "]" * 3000 + "\n"
    got = admin.post("/api/rubrics", content=body.encode())
    assert got.status_code == 422, (got.status_code, got.text[:300])
    assert "nested more than 64 levels deep" in got.json()["detail"]


@pytest.mark.parametrize("path", ["/api/agreement-over-time", "/api/monitor"])
@pytest.mark.parametrize("seed", ["-1", str(2**32)])
def test_a_seed_out_of_range_is_422_naming_it(service: Service, path: str, seed: str) -> None:
    api = service.client(service.user(f"seed-{path.rsplit('/', 1)[1]}-{seed}", "adjudicator"))
    got = api.get(path, params={"seed": seed})
    assert got.status_code == 422, (got.status_code, got.text[:300])
    assert [e["loc"] for e in got.json()["detail"]] == [["query", "seed"]]
