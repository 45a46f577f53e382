"""Inspect AI eval logs -> recorded verdict rows.

A log is a `.json` file (`{"eval": {...}, "samples": [...]}`) or a `.eval` file (a zip archive
whose `header.json` holds the eval and `samples/*.json` one sample each). Each sample has an `id`,
an `epoch` and `scores`: scorer name -> `{value, answer, explanation, metadata}`. By default:

- item: the sample's `id` (`--item-from metadata.KEY`: a key of the sample's metadata);
- criterion: the scorer's name, or, when a score's value is an object of several values, each
  key of it (`--criterion-from metadata.KEY`: a key of the score's metadata);
- label: the value; Inspect's `C` (correct) reads as `pass`, `I` (incorrect) as `fail`, true and
  false as pass and fail, a whole number as itself (`--label-map FROM=TO,...` for the rest);
- rationale: the score's explanation;
- judge version: `inspect/TASK@TASK_VERSION` unless `--judge-version` names it;
- only epoch 1 is read (`--epoch N`); a sample that failed before it was scored (an `error`,
  no scores) gives no row: the judge abstains there;
- judged at: the sample's `completed_at`, else the run's (`stats.completed_at`, else
  `eval.created`); a log with none of them leaves `judged_at` empty (never a guessed time).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files import read_text
from .verdict_rows import (
    ImportMapping,
    Loc,
    RecordedVerdict,
    Where,
    dotted,
    parse_json,
    source_moment,
)

__all__ = ["read_inspect", "DEFAULT_LABELS"]

DEFAULT_LABELS: dict[str, str | int] = {"C": "pass", "I": "fail", "true": "pass", "false": "fail"}


Doc = tuple[str, Callable[[], str], Loc, Any]
"""A sample: the name errors give its file, its text (for lines), its path there, its data."""


def _documents(path: Path) -> tuple[dict[str, Any], Where, Iterator[Doc]]:
    """The eval header, where errors in it point, and the samples of a .json or .eval log."""
    if path.suffix.lower() == ".eval":
        try:
            archive = zipfile.ZipFile(path)
        except FileNotFoundError:
            raise InputError(path, "no such file") from None
        except (zipfile.BadZipFile, OSError) as exc:
            raise InputError(path, f"not an Inspect .eval archive (a zip): {exc}") from None

        def member(name: str) -> str:
            return archive.read(name).decode("utf-8", errors="replace")

        names = archive.namelist()
        if "header.json" not in names:
            raise InputError(path, "no header.json in this .eval archive (is it a log?)")
        head_name, head_text = f"{path}[header.json]", member("header.json")
        header = parse_json(head_name, head_text)
        if not isinstance(header, dict):
            raise InputError(head_name, "the header is a JSON object", line=1)

        def samples() -> Iterator[Doc]:
            for name in sorted(
                n for n in names if n.startswith("samples/") and n.endswith(".json")
            ):
                text = member(name)
                yield f"{path}[{name}]", _constant(text), (), parse_json(f"{path}[{name}]", text)

        return header, Where(head_name, text=lambda: head_text), samples()
    text = read_text(path)
    data = parse_json(str(path), text)
    if not isinstance(data, dict) or not isinstance(data.get("samples", []), list):
        raise InputError(path, "an Inspect log is a JSON object with a list of samples", line=1)

    def listed() -> Iterator[Doc]:
        for k, s in enumerate(data.get("samples") or []):
            yield str(path), (lambda: text), ("samples", k), s

    return data, Where(str(path), text=lambda: text), listed()


def _constant(text: str) -> Callable[[], str]:
    return lambda: text


def _get(data: Any, dotted_key: str) -> Any:
    for part in dotted_key.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _run_moment(header: dict[str, Any], head: Where) -> datetime | None:
    """When the run judged: its `stats.completed_at`, else its `eval.created`, else None."""
    for at in (("stats", "completed_at"), ("eval", "created")):
        value = _get(header, ".".join(at))
        if value not in (None, ""):
            return source_moment(Where(head.path, text=head.text, fields={"judged_at": at}), value)
    return None


def _label(value: Any, mapping: ImportMapping) -> str | int | None:
    """The rubric label a score value stands for, or None when none does."""
    key = json.dumps(value) if isinstance(value, bool) else str(value)
    if key in mapping.labels:
        return mapping.labels[key]
    if key in DEFAULT_LABELS:
        return DEFAULT_LABELS[key]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def read_inspect(path: Path, mapping: ImportMapping) -> list[RecordedVerdict]:
    """Every score of every sample (of the chosen epoch) as a verdict row."""
    header, head, docs = _documents(path)
    found = header.get("eval")
    spec: dict[str, Any] = found if isinstance(found, dict) else {}
    version = mapping.judge_version
    if version is None:
        task = spec.get("task")
        if not isinstance(task, str) or not task:
            raise InputError(head.path, "no eval.task to name the judge: give --judge-version")
        version = f"inspect/{task}@{spec.get('task_version', 0)}"
    run_moment = _run_moment(header, head)
    rows: list[RecordedVerdict] = []
    for name, text, at, sample in docs:
        where = Where(name, text=text, fields={"item": (*at,)})
        if not isinstance(sample, dict):
            raise where.error("a sample is a JSON object", field="item")
        if sample.get("epoch", 1) != mapping.epoch:
            continue
        item_key = mapping.item_from or "id"
        item = _get(sample, item_key)
        item_at: Loc = (*at, *item_key.split("."))
        scores = sample.get("scores")
        if scores is None and sample.get("error"):
            continue  # the sample failed before it was scored: no verdict, an abstention
        if not isinstance(scores, dict):
            raise Where(name, text=text, fields={"scores": (*at, "scores")}).error(
                "the sample has no scores (an object: scorer name -> score)", field="scores"
            )
        done = sample.get("completed_at")
        judged_at = (
            run_moment
            if done in (None, "")
            else source_moment(
                Where(name, text=text, fields={"judged_at": (*at, "completed_at")}), done
            )
        )
        for scorer, score in scores.items():
            score_at: Loc = (*at, "scores", scorer)
            value = score.get("value") if isinstance(score, dict) else None
            parts: list[tuple[Any, Any, Loc]]
            if mapping.criterion_from:
                crit = _get(score, mapping.criterion_from)
                crit_at: Loc = (*score_at, *mapping.criterion_from.split("."))
                parts = [(crit, value, crit_at)]
            elif isinstance(value, dict):
                parts = [(k, v, (*score_at, "value", k)) for k, v in value.items()]
            else:
                parts = [(scorer, value, score_at)]
            for crit, raw, crit_at in parts:
                value_at: Loc = crit_at if crit_at[-2:-1] == ("value",) else (*score_at, "value")
                w = Where(
                    name,
                    text=text,
                    fields={"item": item_at, "criterion": crit_at, "label": value_at},
                )
                if not isinstance(item, str | int) or isinstance(item, bool) or item == "":
                    raise w.error(f"no item id at {dotted(item_at)}", field="item")
                if not isinstance(crit, str) or not crit:
                    raise w.error("no criterion name here", field="criterion")
                label = _label(raw, mapping)
                if label is None:
                    raise w.error(
                        f"score value {json.dumps(raw)} names no label: give --label-map",
                        field="label",
                    )
                explanation = score.get("explanation") if isinstance(score, dict) else None
                rows.append(
                    RecordedVerdict(
                        str(item),
                        crit,
                        label,
                        version,
                        explanation if isinstance(explanation, str) else "",
                        w,
                        judged_at,
                    )
                )
    return rows
