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


# Every field too: no object in /openapi.json (answers, request bodies, their parts) leaves its
# contents unsaid. An object is untyped when it has neither properties nor typed values
# (`{"type": "object"}`, `additionalProperties: true` or of any shape), or when it has properties
# but lets any other key in (`additionalProperties: true`). A value of any shape (a schema that
# says nothing: `{}`, or a ref to one) where a field, an item or a map's value is expected is
# untyped too. Free-form JSON said so (a JsonTree: scalars, lists and maps of JsonTree) is typed.
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_TYPING = {
    "type",
    "$ref",
    "anyOf",
    "oneOf",
    "allOf",
    "enum",
    "const",
    "properties",
    "items",
    "additionalProperties",
    "patternProperties",
    "not",
    "prefixItems",
}

# Where the document may say "any": each named, with why. Nothing of calibrant's own reports.
ALLOWED = {
    "ValidationError.ctx": "FastAPI's own 422 answer: pydantic's error context, free-form",
    "ValidationError.input": "FastAPI's own 422 answer: the input that failed, as given",
    # a domain pack's records and settings: their shape is the pack's model, which the core
    # does not name (JsonValue: any JSON)
    "CommittedWrite.fields": "the record's fields a write set (the pack's record model)",
    "DomainFixture.records": "the records a case seeds (the pack's record models)",
    "DomainFixture.params": "the pack's own fixture settings (its case_fixture model)",
    "DomainOutcome.records": "the records a case requires at the end (the pack's models)",
    "DomainOutcome.params": "the pack's own outcome conditions (its case_outcome model)",
    "DomainTenant.records": "a tenant's records (the pack's record models)",
    "ToolCall.arguments": "an agent's tool call as it made it (the pack's tools' arguments)",
    "ToolCall.response": "what the tool answered the agent, as it answered it",
}
_DOMAIN_RECORDS = ("CommittedWrite", "DomainFixture", "DomainOutcome", "DomainTenant", "ToolCall")


def _deref(schema: Any, spec: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _any(schema: Any, spec: dict[str, Any]) -> bool:
    """A schema that says nothing of its value (after its ref)."""
    target = _deref(schema, spec)
    return isinstance(target, dict) and not (_TYPING & set(target))


def _untyped_object(schema: dict[str, Any], spec: dict[str, Any]) -> str | None:
    props = schema.get("properties")
    extra = schema.get("additionalProperties")
    pattern = schema.get("patternProperties")
    if not (schema.get("type") == "object" or props or extra is not None or pattern):
        return None
    if extra is True:
        return "an object open to any other key (additionalProperties: true)"
    if not props and not pattern and (extra is None or _any(extra, spec)):
        return "an object without properties or typed values"
    return None


def _walk(schema: Any, where: str, spec: dict[str, Any], out: list[str]) -> None:
    """Every untyped object and value of any shape in `schema` (a ref is checked where it is
    defined, a ref to a schema of any shape where it is used)."""
    if not isinstance(schema, dict) or "$ref" in schema:
        return
    why = _untyped_object(schema, spec)
    if why:
        out.append(f"{where}: {why}")
    subs = [(f"{where}.{k}", v) for k, v in (schema.get("properties") or {}).items()]
    subs += [(f"{where}{{}}", v) for v in (schema.get("patternProperties") or {}).values()]
    if isinstance(schema.get("additionalProperties"), dict):
        subs.append((f"{where}{{}}", schema["additionalProperties"]))
    if "items" in schema:
        subs.append((f"{where}[]", schema["items"]))
    for key in _SCHEMA_LISTS:
        subs += [(f"{where}|{i}", v) for i, v in enumerate(schema.get(key) or ())]
    for at, sub in subs:
        if _any(sub, spec) and not at.endswith("{}"):
            out.append(f"{at}: a value of any shape (no schema)")
        elif _any(sub, spec):
            out.append(f"{at}: values of any shape (no schema)")
        _walk(sub, at, spec, out)


def untyped_fields(spec: dict[str, Any]) -> list[str]:
    """Where /openapi.json has an untyped object or value: `Schema.field.sub` in components,
    `METHOD /path body|200 (media)` in the operations; those ALLOWED (or inside them) left out."""
    out: list[str] = []
    for name, schema in sorted(spec.get("components", {}).get("schemas", {}).items()):
        _walk(schema, name, spec, out)
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            at = f"{method.upper()} {path}"
            body = (op.get("requestBody") or {}).get("content") or {}
            for media, content in body.items():
                _walk(content.get("schema"), f"{at} body ({media})", spec, out)
            for code, response in (op.get("responses") or {}).items():
                for media, content in (response.get("content") or {}).items():
                    _walk(content.get("schema"), f"{at} {code} ({media})", spec, out)
            for p in op.get("parameters") or ():
                _walk(p.get("schema"), f"{at} parameter {p.get('name')}", spec, out)
    return [
        x
        for x in out
        if not any(x[len(a) : len(a) + 1] in (":", "{", "[") and x.startswith(a) for a in ALLOWED)
    ]


def _refs_to_any_allowed(spec: dict[str, Any]) -> list[str]:
    """The uses of an ALLOWED schema of any shape are only where the reason says."""
    return sorted(
        name
        for name, schema in spec["components"]["schemas"].items()
        if "JsonValue" in str(schema) and name not in _DOMAIN_RECORDS
    )


def test_no_object_in_the_openapi_document_is_untyped(tmp_path: Path) -> None:
    spec = create_app(f"sqlite:///{tmp_path / 'store.db'}").openapi()
    assert len(spec["components"]["schemas"]) >= 100  # the reports' parts are all there
    found = untyped_fields(spec)
    assert _refs_to_any_allowed(spec) == []
    assert not found, f"{len(found)} untyped object(s) in /openapi.json:\n" + "\n".join(found)


def test_the_field_check_sees_each_kind_of_untyped_object() -> None:
    """The check itself, on a document with one of each: a bare object, an open one, an object
    with properties open to any other key, a field of any shape, a request body of bare
    objects; typed maps, typed objects and refs pass."""
    spec = {
        "components": {
            "schemas": {
                "Report": {
                    "type": "object",
                    "properties": {
                        "bare": {"type": "object"},
                        "open": {"type": "object", "additionalProperties": True},
                        "anything": {},
                        "either": {"anyOf": [{"type": "object"}, {"type": "null"}]},
                        "rows": {"type": "array", "items": {"type": "object"}},
                        "shares": {"type": "object", "additionalProperties": {"type": "number"}},
                        "ok": {"$ref": "#/components/schemas/Fine"},
                    },
                    "additionalProperties": False,
                },
                "Loose": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                    "additionalProperties": True,
                },
                "Fine": {"type": "object", "properties": {"a": {"type": "string"}}},
            }
        },
        "paths": {
            "/up": {
                "post": {
                    "requestBody": {
                        "content": {"application/json": {"schema": {"type": "object"}}}
                    },
                    "responses": {
                        "200": {
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Fine"}
                                }
                            }
                        }
                    },
                }
            }
        },
    }
    assert untyped_fields(spec) == [
        "Loose: an object open to any other key (additionalProperties: true)",
        "Report.bare: an object without properties or typed values",
        "Report.open: an object open to any other key (additionalProperties: true)",
        "Report.anything: a value of any shape (no schema)",
        "Report.either|0: an object without properties or typed values",
        "Report.rows[]: an object without properties or typed values",
        "POST /up body (application/json): an object without properties or typed values",
    ]
