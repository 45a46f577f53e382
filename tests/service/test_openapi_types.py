"""Every JSON route of the service says what it answers: its 200 (or 201/202) response in
/openapi.json is a schema with named properties (or a list of such), never an untyped object
(`additionalProperties: true`, no properties) or nothing. File downloads (a zip, JSON Lines)
are the only routes without one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from calibrant.service.app import create_app

DOWNLOADS = {"application/zip", "application/x-ndjson"}


def _resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = spec["components"]["schemas"][name]
    return schema


def _untyped(schema: dict[str, Any] | None, spec: dict[str, Any]) -> str | None:
    """Why `schema` says nothing of the answer's shape, or None when it is typed."""
    if not schema:
        return "no schema"
    schema = _resolve(schema, spec)
    if schema.get("type") == "array":
        return _untyped(schema.get("items"), spec)
    if "anyOf" in schema or "oneOf" in schema:
        parts = schema.get("anyOf") or schema.get("oneOf")
        reasons = [_untyped(p, spec) for p in parts if p.get("type") != "null"]
        return next((r for r in reasons if r), None)
    if schema.get("type") == "object" or "properties" in schema:
        if not schema.get("properties"):
            return "an object without properties"
        if schema.get("additionalProperties") is True:
            return "an open object (additionalProperties: true)"
        return None
    return f"not an object ({schema.get('type')})"


def _offenders(spec: dict[str, Any]) -> list[str]:
    out = []
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            ok = [op["responses"][c] for c in ("200", "201", "202") if c in op["responses"]]
            if not ok:
                out.append(f"{method.upper()} {path}: no success response")
                continue
            for response in ok:
                content = response.get("content") or {}
                if set(content) and set(content) <= DOWNLOADS:
                    continue  # a file download
                schema = (content.get("application/json") or {}).get("schema")
                why = _untyped(schema, spec)
                if why:
                    out.append(f"{method.upper()} {path}: {why}")
    return out


def test_every_json_route_answers_a_typed_schema(tmp_path: Path) -> None:
    spec = create_app(f"sqlite:///{tmp_path / 'store.db'}").openapi()
    routes = [(m, p) for p, ms in spec["paths"].items() for m in ms]
    assert len(routes) >= 26  # the service's operations, those added later too
    offenders = _offenders(spec)
    assert not offenders, "untyped responses:\n" + "\n".join(offenders)


def test_the_check_sees_an_untyped_route() -> None:
    """The check itself: an open object and a missing schema are reported."""
    spec = {
        "components": {"schemas": {"Open": {"type": "object", "additionalProperties": True}}},
        "paths": {
            "/a": {
                "get": {
                    "responses": {
                        "200": {
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Open"}
                                }
                            }
                        }
                    }
                }
            },
            "/b": {"post": {"responses": {"201": {"content": {"application/json": {}}}}}},
            "/c": {"get": {"responses": {"200": {"content": {"application/zip": {}}}}}},
        },
    }
    assert _offenders(spec) == ["GET /a: an object without properties", "POST /b: no schema"]


def test_a_run_answer_carries_its_report_models() -> None:
    """GET /api/runs/{id}: the report is one of the report models (or the JSON as stored)."""
    spec = create_app("sqlite:///:memory:").openapi()
    detail = spec["components"]["schemas"]["RunDetail"]
    names = {p.get("$ref", "").rsplit("/", 1)[-1] for p in detail["properties"]["report"]["anyOf"]}
    assert {"CalibrationReport", "ScoreReport", "ComparisonReport", "ProbeReport"} <= names
