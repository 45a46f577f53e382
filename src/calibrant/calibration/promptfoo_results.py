"""promptfoo result files (`promptfoo eval -o results.json`) -> recorded verdict rows.

The file holds `results.results[]`, one per test case and prompt/provider, each with its
`vars` (also under `testCase.vars`) and a `gradingResult` whose `componentResults[]` are the
assertions' outcomes: `pass`, `score`, `reason` and the `assertion` (`type`, `value`, `metric`).
By default:

- item: the test's var `item` (`--item-from vars.KEY` for another var, or `description`);
- criterion: the assertion's `metric` (name each judge assertion `metric: CRITERION`);
  assertions without a metric (a `contains`, an `is-json`) are not verdicts and are left out
  (`--criterion-from type`: the assertion's type);
- label: `pass` true/false reads as pass/fail (`--label-from score`: the score, a whole number
  as itself, `--label-map` for the rest);
- rationale: the assertion's reason;
- judge version: `promptfoo/EVAL_ID` unless `--judge-version` names it;
- judged at: the run's `results.timestamp` (promptfoo keeps no time per result), for every
  row; a file without one leaves `judged_at` empty (never a guessed time).

A result without a gradingResult (the provider failed) gives no row: the judge abstains there.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files import read_text
from .verdict_rows import ImportMapping, Loc, RecordedVerdict, Where, parse_json, source_moment

__all__ = ["read_promptfoo"]

_PASS: dict[str, str | int] = {"true": "pass", "false": "fail"}


def _results(path: Path, data: Any) -> tuple[list[Any], Loc]:
    outer = data.get("results") if isinstance(data, dict) else None
    if isinstance(outer, dict) and isinstance(outer.get("results"), list):
        return outer["results"], ("results", "results")
    if isinstance(outer, list):
        return outer, ("results",)
    raise InputError(path, "promptfoo results hold a list at results.results", line=1)


def _run_moment(path: Path, text: str, data: Any, at: Loc) -> datetime | None:
    """When the run judged: the `timestamp` beside its results list (`results.timestamp`)."""
    holder = data.get("results") if len(at) == 2 else data
    value = holder.get("timestamp") if isinstance(holder, dict) else None
    if value in (None, ""):
        return None
    where = Where(str(path), text=lambda: text, fields={"judged_at": (*at[:-1], "timestamp")})
    return source_moment(where, value)


def _item(result: dict[str, Any], key: str) -> Any:
    if key == "description":
        case = result.get("testCase")
        return case.get("description") if isinstance(case, dict) else None
    name = key.removeprefix("vars.")
    for holder in (result.get("vars"), (result.get("testCase") or {}).get("vars")):
        if isinstance(holder, dict) and name in holder:
            return holder[name]
    return None


def _label(component: dict[str, Any], mapping: ImportMapping) -> Any:
    field = mapping.label_from or "pass"
    raw = component.get(field)
    key = json.dumps(raw) if isinstance(raw, bool) else str(raw)
    if key in mapping.labels:
        return mapping.labels[key], raw
    if field == "pass" and key in _PASS:
        return _PASS[key], raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw), raw
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw, raw
    return None, raw


def read_promptfoo(path: Path, mapping: ImportMapping) -> list[RecordedVerdict]:
    """Every named assertion of every result as a verdict row."""
    text = read_text(path)
    data = parse_json(str(path), text)
    results, at = _results(path, data)
    version = mapping.judge_version
    if version is None:
        eval_id = data.get("evalId")
        if not isinstance(eval_id, str) or not eval_id:
            raise InputError(path, "no evalId to name the judge: give --judge-version", line=1)
        version = f"promptfoo/{eval_id}"
    item_key = mapping.item_from or "vars.item"
    by = mapping.criterion_from or "metric"
    if by not in ("metric", "type"):
        raise InputError(
            path, f"--criterion-from {by}: promptfoo criteria come from metric or type"
        )
    judged_at = _run_moment(path, text, data, at)
    rows: list[RecordedVerdict] = []
    named = 0
    for k, result in enumerate(results):
        here: Loc = (*at, k)
        if not isinstance(result, dict):
            raise Where(str(path), text=lambda: text, fields={"item": here}).error(
                "a result is a JSON object", field="item"
            )
        grading = result.get("gradingResult")
        if not isinstance(grading, dict):
            continue  # the provider failed: no verdict, an abstention
        components = grading.get("componentResults")
        if not isinstance(components, list):
            continue
        item = _item(result, item_key)
        item_at: Loc = (
            (*here, "testCase", "description")
            if item_key == "description"
            else (*here, "vars", item_key.removeprefix("vars."))
        )
        for n, component in enumerate(components):
            c_at: Loc = (*here, "gradingResult", "componentResults", n)
            assertion = component.get("assertion") if isinstance(component, dict) else None
            crit = assertion.get(by) if isinstance(assertion, dict) else None
            if crit is None and by == "metric":
                continue  # not a judge's verdict (a contains, an is-json)
            named += 1
            w = Where(
                str(path),
                text=lambda: text,
                fields={
                    "item": item_at,
                    "criterion": (*c_at, "assertion", by),
                    "label": (*c_at, mapping.label_from or "pass"),
                },
            )
            if not isinstance(item, str | int) or isinstance(item, bool) or item == "":
                raise w.error(f"no var '{item_at[-1]}' naming the gold item", field="item")
            if not isinstance(crit, str) or not crit:
                raise w.error("no criterion name here", field="criterion")
            label, raw = _label(component, mapping)
            if label is None:
                raise w.error(f"{json.dumps(raw)} names no label: give --label-map", field="label")
            reason = component.get("reason")
            rows.append(
                RecordedVerdict(
                    str(item),
                    crit,
                    label,
                    version,
                    reason if isinstance(reason, str) else "",
                    w,
                    judged_at,
                )
            )
    if results and not named:
        raise InputError(
            path,
            "no assertion names a metric: give each judge assertion `metric: CRITERION`, or "
            "--criterion-from type",
        )
    return rows
