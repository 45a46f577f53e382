"""Typed reports end to end (issue 34): a function of src/calibrant returns a model, not a plain
dict. A plain dict is a return annotated `dict`, `dict[K, Any]`, `dict[K, object]` (a map of
typed values, e.g. `dict[str, int]`, is typed). Some functions are where JSON is made or read:
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
    "as_json": "a figure or a stored record as the JSON a report or the API writes",
    "to_dict": "an agreement or monitor result as the JSON a report quotes",
    "checked": "the producers' last step: the report as JSON data, validated by its model",
    "schemas": "the published JSON Schemas (docs/schemas/)",
    "openapi_document": "the sandbox's OpenAPI document",
    "load_json_document": "a user's JSON file as read, before its model validates it",
    "data": "a report's part as JSON data, for the wording shared with the terminal",
    # the wire: what goes to a model provider or comes from an external agent, as JSON
    "request_body": "a provider batch line: the chat-completions body, as the provider reads it",
    "call_kwargs": "litellm's keyword arguments for one call",
    "endpoint_kwargs": "litellm's keyword arguments for an explicit endpoint",
    "answer_schema": "the JSON Schema a model's answer is constrained to",
    "_snapshot_schema": "a pack's snapshot JSON Schema, printed by `calibrant schema snapshot`",
    "tools_schema": "the tools' JSON Schema given to the embedded model",
    "_schema_from_response_format": "the JSON Schema inside an OpenAI response_format",
    "dispatch": "the sandbox's JSON answer to an external agent's call",
    "reply": "the sandbox's JSON answer to trial_reply",
    "_refusal": "the sandbox's JSON refusal of a call outside a turn",
    "_invalid": "the sandbox's JSON invalid_argument answer",
    "log_config": "uvicorn's logging dictConfig",
    # a file's own spelling, read or written, before or after its model
    "_read_form": "a transcript file's JSON read into the generic spelling",
    "_file_form": "a model's dump written in its pack's file spelling",
    "_no_other_spelling": "a transcript file's JSON, checked for another pack's spelling",
}

STILL_PLAIN = {
    "_applicability": 2,
    "_attributes": 1,
    "_cost_figure": 1,
    "_criterion": 1,
    "_item_out": 1,
    "_judge_and_report": 1,
    "_next": 1,
    "_norm": 1,
    "_per_trial_figures": 1,
    "_pick_error": 1,
    "_probes": 1,
    "_read_marker": 1,
    # moved out of CLI command bodies into ops/ (issue 34, item 3): the report they build was a
    # dict inside the command before; typing it is issue 34, item 1
    "agree": 1,
    "propose": 1,
    "_recorded_report": 1,
    "_reject": 1,
    "_safety": 1,
    "_session": 1,
    "_started_first": 1,
    "_transcript_context": 1,
    "_uploaded": 1,
    "add": 1,
    "add_known": 1,
    "calibration_report": 1,
    "call": 3,
    "call_json": 2,
    "cased": 1,
    "clusters": 1,
    "compare_judges": 1,
    "compare_trials": 1,
    "comparison_json": 1,
    "criterion_report": 1,
    "describe": 1,
    "doc": 3,
    "figure": 1,
    "finish_queued": 1,
    "get": 1,
    "job_info": 1,
    "judge_entry": 1,
    "judge_info": 1,
    "judge_report": 1,
    "label_row": 1,
    "latest_calibration": 1,
    "latest_probe": 1,
    "load": 1,
    "measure": 6,
    "net_shift": 1,
    "print_trial_report": 1,
    "probe_report": 1,
    "probe_report_settings": 1,
    "process_record": 1,
    "propose_for_gold": 1,
    "rater_agreement": 1,
    "report": 1,
    "robustness_section": 1,
    "rubric_info": 1,
    "run_calibration": 1,
    "run_probes": 1,
    "safety_summary": 1,
    "shown": 1,
    "spec": 1,
    "start": 1,
    "stat_json": 1,
    "summary": 1,
    "summary_doc": 1,
    "to_json": 1,
    "transcript_entry": 1,
    "trial_report": 1,
    "update_arguments": 1,
    "work": 1,
}


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
        return isinstance(value, ast.Name) and value.id in ("Any", "object")
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


def test_the_check_sees_a_plain_dict() -> None:
    def returns(src: str) -> ast.expr | None:
        fn = ast.parse(src).body[0]
        assert isinstance(fn, ast.FunctionDef)
        return fn.returns

    for plain in ("dict", "dict[str, Any]", "dict[str, object] | None", "'dict[str, Any]'"):
        assert _plain(returns(f"def f() -> {plain}: ...")), plain
    for typed in ("dict[str, int]", "Report", "list[dict[str, Any]]", "None"):
        assert not _plain(returns(f"def f() -> {typed}: ...")), typed
