"""Reading and writing verdicts files: CSV and JSONL rows (each field checked for its shape, the
line named), the format sniffed from the name and content, Inspect logs and promptfoo results
through their readers; rows written back as CSV or JSONL, as `calibrate --verdicts` reads them.
What a row means against the gold set and the rubric is `recorded`'s check."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files import jsonl_objects, read_text
from .verdict_rows import (
    ImportMapping,
    RecordedVerdict,
    Where,
    source_moment,
)

COLUMNS = ("item", "criterion", "label", "judge_version")
"""The columns (JSONL keys) every verdict row has; `rationale` may follow."""
OPTIONAL = ("rationale", "judged_at")
FORMATS = ("auto", "csv", "jsonl", "inspect", "promptfoo")


def _label(raw: str) -> str | int:
    text = raw.strip()
    return int(text) if text.lstrip("-").isdigit() else text


def _text_field(where: Where, data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise where.error("required field is missing", field=key)
    if not isinstance(value, str):
        raise where.error(f"must be text (got {json.dumps(value)})", field=key)
    return value.strip()


def _row(where: Where, data: Mapping[str, Any]) -> RecordedVerdict:
    unknown = sorted(k for k in data if k not in COLUMNS and k not in OPTIONAL)
    if unknown:
        raise where.error("unknown field", field=unknown[0])
    item, criterion = _text_field(where, data, "item"), _text_field(where, data, "criterion")
    label = data.get("label")
    if isinstance(label, str):
        label = _label(label) if label.strip() else None
    if label is None:
        raise where.error("required field is missing", field="label")
    if isinstance(label, bool) or not isinstance(label, str | int):
        raise where.error(
            f"a label is a string or an integer, not {json.dumps(label)}", field="label"
        )
    rationale = data.get("rationale") or ""
    if not isinstance(rationale, str):
        raise where.error("must be text", field="rationale")
    version = _text_field(where, data, "judge_version")
    when = None if data.get("judged_at") in (None, "") else source_moment(where, data["judged_at"])
    return RecordedVerdict(item, criterion, label, version, rationale, where, when)


def _csv_rows(path: Path, text: str) -> list[RecordedVerdict]:
    reader = csv.DictReader(io.StringIO(text.removeprefix("\ufeff")))  # a spreadsheet's BOM
    try:
        header = list(reader.fieldnames or [])
    except csv.Error as exc:
        raise InputError(path, f"malformed CSV header: {exc}", line=1) from None
    lacking = [c for c in COLUMNS if c not in header]
    if lacking:
        raise InputError(path, "CSV header lacks this column", line=1, field=lacking[0])
    unknown = [c for c in header if c not in COLUMNS and c not in OPTIONAL]
    if unknown:
        raise InputError(path, "unknown column", line=1, field=unknown[0])
    rows = []
    try:
        for raw in reader:
            if None in raw:
                raise InputError(path, "more values than columns", line=reader.line_num)
            data = {k: v for k, v in raw.items() if k not in OPTIONAL or v}
            rows.append(_row(Where(str(path), reader.line_num), data))
    except csv.Error as exc:
        raise InputError(path, f"malformed CSV: {exc}", line=reader.line_num) from None
    return rows


def _jsonl_rows(path: Path, text: str) -> list[RecordedVerdict]:
    return [_row(Where(str(path), n), data) for n, _, data in jsonl_objects(path, text)]


def _sniff(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in (".csv", ".jsonl"):
        return suffix[1:]
    if suffix == ".eval":
        return "inspect"
    if suffix == ".json":
        text = read_text(path)
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            data = None
        if isinstance(data, dict) and ("samples" in data or "eval" in data):
            return "inspect"
        if isinstance(data, dict) and isinstance(data.get("results"), dict | list):
            return "promptfoo"
        raise InputError(
            path,
            "neither an Inspect eval log (eval, samples) nor promptfoo results (results[]); "
            "give --verdicts-format",
            line=1,
        )
    raise InputError(
        path,
        "unknown kind of verdicts file: give a .csv, .jsonl, Inspect .eval/.json log or "
        "promptfoo results .json",
    )


def read_verdicts(
    path: Path, fmt: str = "auto", mapping: ImportMapping | None = None
) -> tuple[str, list[RecordedVerdict]]:
    """The rows of a verdicts file and the format they were read as (`auto`: by the file's
    suffix, and for .json by its content). Shape errors only: `check_verdicts` does the rest."""
    from .inspect_log import read_inspect
    from .promptfoo_results import read_promptfoo

    if fmt not in FORMATS:
        raise InputError(path, f"unknown verdicts format '{fmt}' (formats: {', '.join(FORMATS)})")
    kind = _sniff(path) if fmt == "auto" else fmt
    if kind == "inspect":
        rows = read_inspect(path, mapping or ImportMapping())
    elif kind == "promptfoo":
        rows = read_promptfoo(path, mapping or ImportMapping())
    else:
        text = read_text(path)
        rows = _csv_rows(path, text) if kind == "csv" else _jsonl_rows(path, text)
    if not rows:
        raise InputError(path, "no verdicts in file")
    return kind, rows


def _uploaded(name: Path, text: str, fmt: str) -> tuple[str, list[RecordedVerdict]]:
    """The rows of an uploaded verdicts file `name` (CSV or JSONL, by `fmt` or its suffix)."""
    kind = name.suffix.lower()[1:] if fmt == "auto" else fmt
    if kind not in ("csv", "jsonl"):
        raise InputError(
            name,
            "an uploaded verdicts file is CSV or JSONL (a .csv or .jsonl name, or format csv "
            "or jsonl): turn an Inspect log or promptfoo results into one with `calibrant "
            "verdicts import`, or name the file on the server",
        )
    rows = _csv_rows(name, text) if kind == "csv" else _jsonl_rows(name, text)
    if not rows:
        raise InputError(name, "no verdicts in file")
    return kind, rows


def verdicts_jsonl(rows: Sequence[RecordedVerdict]) -> str:
    """Rows as JSONL, as `calibrate --verdicts` reads them."""
    return "".join(json.dumps(r.row().json_data(), ensure_ascii=False) + "\n" for r in rows)


def verdicts_csv(rows: Sequence[RecordedVerdict]) -> str:
    """Rows as CSV, as `calibrate --verdicts` reads them (`judged_at` when a row has it)."""
    out = io.StringIO()
    timed = any(r.judged_at is not None for r in rows)
    names = [*COLUMNS, *(c for c in OPTIONAL if timed or c != "judged_at")]
    writer = csv.DictWriter(out, fieldnames=names, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for r in rows:
        writer.writerow({**dict.fromkeys(OPTIONAL, ""), **r.row().json_data()})
    return out.getvalue()
