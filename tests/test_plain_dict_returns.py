"""Typed reports end to end (issue 34): a function of src/calibrant returns a model, not a plain
dict. A plain dict is a return annotated `dict`, `dict[K, Any]`, `dict[K, object]`, or a map whose
values hold one (`dict[K, dict[str, Any]]`); a map of typed values (`dict[str, int]`,
`dict[str, Report]`) is typed. Some functions are where JSON is made or read:
they may return a plain dict, each named in ALLOWED with why. The rest is what is left to type,
counted per function name in STILL_PLAIN (by name, not module: moving a function between
modules changes nothing here). The table only shrinks: a new plain-dict function, or more of a
name, fails (return a model: calibrant.contracts.reports has the report parts); fewer fails too,
until the count here is lowered, so the table stays the true size of what is left. The issue's
target: at most 20 in all, each at a JSON boundary."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "calibrant"

ALLOWED = {
    "json_data": "a report model (or a part) as the JSON written to disk and served (contracts)",
    "data": "an operation's report as JSON data (OpResult.data: what --json prints and files hold)",
    "openapi_document": "the sandbox's OpenAPI document",
    "load_json_document": "a user's JSON file as read, before its model validates it",
    # the wire: what goes to a model provider or comes from an external agent, as JSON
    "request_body": "a provider batch line: the chat-completions body, as the provider reads it",
    "call_kwargs": "litellm's keyword arguments for one call",
    "endpoint_kwargs": "litellm's keyword arguments for an explicit endpoint",
    "answer_schema": "the JSON Schema a model's answer is constrained to",
    "schemas": "the JSON Schema of each report kind (what docs/schemas/ holds)",
    "_snapshot_schema": "a pack's snapshot JSON Schema, printed by `calibrant schema snapshot`",
    "tools_schema": "the tools' JSON Schema given to the embedded model",
    "_schema_from_response_format": "the JSON Schema inside an OpenAI response_format",
    "log_config": "uvicorn's logging dictConfig",
    # a file's own spelling, read or written, before or after its model
    "_read_form": "a transcript file's JSON read into the generic spelling",
    "_file_form": "a model's dump written in its pack's file spelling",
    "_no_other_spelling": "a transcript file's JSON, checked for another pack's spelling",
}

STILL_PLAIN: dict[str, int] = {}


def _plain(a: ast.expr | None) -> bool:
    """Whether the annotation `a` is a plain dict (or one or None)."""
    if isinstance(a, ast.Constant) and isinstance(a.value, str):
        a = ast.parse(a.value, mode="eval").body
    if isinstance(a, ast.BinOp) and isinstance(a.op, ast.BitOr):
        none = (ast.Constant,)
        return (_plain(a.left) and isinstance(a.right, none) and a.right.value is None) or (
            _plain(a.right) and isinstance(a.left, none) and a.left.value is None
        )
    if isinstance(a, ast.Name):
        return a.id in ("dict", "Json")
    if isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name) and a.value.id == "dict":
        value = a.slice.elts[-1] if isinstance(a.slice, ast.Tuple) else a.slice
        return _untyped(value)
    return False


def _untyped(value: ast.expr) -> bool:
    """Whether a map's value type holds untyped JSON: `Any`, `object` or a bare `dict`, at any
    depth (`dict[str, dict[str, Any]]`, `dict[str, list[dict] | None]` are plain dicts too);
    a callable's signature is not JSON (`dict[str, Callable[..., Any]]` is a typed map)."""
    if isinstance(value, ast.Name):
        return value.id in ("Any", "object", "dict")
    if isinstance(value, ast.Subscript):
        if isinstance(value.value, ast.Name) and value.value.id == "Callable":
            return False
        parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        return any(_untyped(p) for p in parts)
    if isinstance(value, ast.BinOp):
        return _untyped(value.left) or _untyped(value.right)
    return False


def plain_dict_functions() -> Counter[str]:
    found: Counter[str] = Counter()
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _plain(node.returns):
                found[node.name] += 1
    return found


def test_no_new_function_returns_a_plain_dict() -> None:
    now = plain_dict_functions()
    grown = {
        name: (STILL_PLAIN.get(name, 0), n)
        for name, n in now.items()
        if name not in ALLOWED and n > STILL_PLAIN.get(name, 0)
    }
    assert grown == {}, (
        "these functions return a plain dict (was, now): return a model (see "
        "calibrant.contracts.reports), or name a JSON boundary in ALLOWED with why"
    )


def test_the_table_of_plain_dict_functions_is_true() -> None:
    now = plain_dict_functions()
    shrunk = {name: (was, now[name]) for name, was in STILL_PLAIN.items() if now[name] < was}
    assert shrunk == {}, "fewer plain-dict functions than the table says (was, now): lower it"


def test_what_is_left_is_at_most_20_json_boundaries() -> None:
    """Issue 34's done-when: at most 20 functions return a plain dict, each at a JSON boundary
    named in ALLOWED (nothing left to type)."""
    now = plain_dict_functions()
    assert STILL_PLAIN == {}
    assert set(now) <= set(ALLOWED), sorted(set(now) - set(ALLOWED))
    assert sum(now.values()) <= 20, now
    unused = sorted(set(ALLOWED) - set(now))
    assert unused == [], f"ALLOWED names a boundary no function has any more: {unused}"


def test_the_check_sees_a_plain_dict() -> None:
    def returns(src: str) -> ast.expr | None:
        fn = ast.parse(src).body[0]
        assert isinstance(fn, ast.FunctionDef)
        return fn.returns

    for plain in (
        "dict",
        "dict[str, Any]",
        "dict[str, object] | None",
        "'dict[str, Any]'",
        "dict[str, dict[str, Any]]",
        "dict[str, list[dict] | None]",
        "dict[str, tuple[int, Any]]",
    ):
        assert _plain(returns(f"def f() -> {plain}: ...")), plain
    for typed in (
        "dict[str, int]",
        "Report",
        "list[dict[str, Any]]",
        "None",
        "dict[str, dict[str, int]]",
        "dict[Key, Judgment | bool]",
        "dict[str, Callable[..., Any]]",
    ):
        assert not _plain(returns(f"def f() -> {typed}: ...")), typed
