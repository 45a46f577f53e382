"""An admin's answer for one item (`GET /api/items/{id}`) matches the schema /openapi.json
publishes for it, and carries the transcript as its file holds it. A pack writes its transcript
files in a spelling of its own (the refund shop's: `ledger_before`, no `domain`, its typed case
fixture), which the generic `Transcript` schema the answer used to promise does not describe:
every refund transcript read back broke it. (Found by the slow tier's schemathesis run, which
hit it only when a fuzzed upload happened to be read back.)"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from tests.support.labeling import gold_jsonl, labeling_service


def _validator(openapi: dict[str, object], name: str) -> jsonschema.Validator:
    schema = {"$ref": f"#/components/schemas/{name}", "components": openapi["components"]}
    return jsonschema.Draft202012Validator(schema)


def test_an_admins_item_answer_matches_its_published_schema(tmp_path: Path) -> None:
    with labeling_service("sqlite", tmp_path) as service:
        admin = service.client(service.user("schema-admin", "admin"))
        assert admin.post("/api/transcripts?queue=q", content=gold_jsonl(11, 77)).is_success
        openapi = admin.get("/openapi.json").json()
        ids = [x["transcript_id"] for x in admin.get("/api/items?queue=q").json()]
        assert len(ids) == 2
        for item in ids:
            answer = admin.get(f"/api/items/{item}")
            assert answer.status_code == 200
            body = answer.json()
            errors = [e.message for e in _validator(openapi, "ItemDetail").iter_errors(body)]
            assert errors == [], (item, errors[:3])
            sent = json.loads(
                (Path(__file__).parents[2] / "gold" / "transcripts" / f"{item}.json").read_text()
            )
            assert body["transcript"] == sent  # the transcript as its file holds it
