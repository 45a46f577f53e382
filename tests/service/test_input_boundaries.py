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
