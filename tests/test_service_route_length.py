"""Faces that only face (issue 34), for the HTTP face: a route parses its request, calls one
operation and returns its result, and the factory that builds the app wires named parts
(middleware, error handlers, routers) rather than holding them. So no function in
src/calibrant/service is over 60 lines — routes, the app factory, helpers, nested functions
alike — counted as tests/test_cli_function_length.py counts the CLI's: from its `def` line to
its last line, signature and docstring included (decorators not). The table below is every one
still over 60 lines, with its length; it only shrinks, as the CLI's does."""

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


def _functions() -> list[tuple[str, bool, int]]:
    """Every function of the service (module level, nested, methods): its name
    (`file:function`), whether it is a route function (decorated as a route, `@router.get(...)`,
    `@app.post(...)`, ..., or in a `routes*.py` module) and its length in lines."""
    out: list[tuple[str, bool, int]] = []
    for path in sorted(SERVICE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            name = f"{path.relative_to(SERVICE).as_posix()}:{node.name}"
            route = _is_route(node) or path.name.startswith("routes")
            out.append((name, route, (node.end_lineno or node.lineno) - node.lineno + 1))
    return out


def _lengths() -> dict[str, int]:
    """The longest function of each name (two nested helpers may share one)."""
    out: dict[str, int] = {}
    for name, _route, n in _functions():
        out[name] = max(n, out.get(name, 0))
    return out


def test_every_function_of_the_service_is_counted() -> None:
    # the rule is only worth what its search finds: the known routes, the app factory and the
    # parts it wires, helpers of other modules, nested error handlers
    found = _functions()
    routes = {name for name, route, _ in found if route}
    for name in ("app.py:health", "api_labels.py:upload", "routes_audit.py:get_monitor"):
        assert name in routes, f"{name} is not seen as a route function"
    assert len(routes) > 40
    names = {name for name, _, _ in found}
    for name in ("app.py:create_app", "app.py:_input_error", "security.py:current_user"):
        assert name in names, f"{name} is not counted"
    assert len(names) > len(routes) + 20


def test_no_service_function_grows_past_60_lines() -> None:
    grown = {
        name: (STILL_LONG.get(name, MOST), n)
        for name, n in _lengths().items()
        if n > STILL_LONG.get(name, MOST)
    }
    assert grown == {}, (
        "these service functions are longer than before (was at most, now): a route parses its "
        "request, calls one operation in ops/ and returns its result; a factory wires named parts"
    )


def test_the_table_of_long_service_functions_is_true() -> None:
    now = _lengths()
    shrunk = {
        name: (was, now.get(name, 0)) for name, was in STILL_LONG.items() if now.get(name, 0) < was
    }
    assert shrunk == {}, "shorter than the table says (was, now; 0: 60 lines or fewer): lower it"
