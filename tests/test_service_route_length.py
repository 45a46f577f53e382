"""Faces that only face (issue 34), for the HTTP face: a route parses its request, calls one
operation and returns its result, so no route function in src/calibrant/service is over 60
lines (from its `def` line to its last line, signature and docstring included). A route function
is one decorated as a route (`@router.get(...)`, `@app.post(...)`, ...) or any function in a
`routes*.py` module. The table below is every one still over 60 lines, with its length; it only
shrinks, as the CLI's does (tests/test_cli_function_length.py)."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[1] / "src" / "calibrant" / "service"
MOST = 60
VERBS = {"get", "post", "put", "patch", "delete", "head", "options", "api_route", "websocket"}

STILL_LONG: dict[str, int] = {}


def _is_route(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in VERBS
        for d in node.decorator_list
    )


def _route_lengths() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in sorted(SERVICE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if _is_route(node) or path.name.startswith("routes"):
                name = f"{path.relative_to(SERVICE).as_posix()}:{node.name}"
                out[name] = (node.end_lineno or node.lineno) - node.lineno + 1
    return out


def test_the_routes_are_found() -> None:
    # the rule is only worth what its search finds: the service's known routes are in it
    found = _route_lengths()
    for name in ("app.py:health", "api_labels.py:upload", "routes_audit.py:get_monitor"):
        assert name in found, f"{name} is not seen as a route function"
    assert len(found) > 40


def test_no_route_function_grows_past_60_lines() -> None:
    grown = {
        name: (STILL_LONG.get(name, MOST), n)
        for name, n in _route_lengths().items()
        if n > STILL_LONG.get(name, MOST)
    }
    assert grown == {}, (
        "these route functions are longer than before (was at most, now): a route parses its "
        "request, calls one operation in ops/ and returns its result"
    )


def test_the_table_of_long_route_functions_is_true() -> None:
    now = _route_lengths()
    shrunk = {
        name: (was, now.get(name, 0)) for name, was in STILL_LONG.items() if now.get(name, 0) < was
    }
    assert shrunk == {}, "shorter than the table says (was, now; 0: 60 lines or fewer): lower it"
