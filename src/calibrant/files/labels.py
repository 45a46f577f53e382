"""Reading labels: a JSON Lines or CSV file of labels, each kept with the file and line it was
read from, so an error about it later points there."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..contracts import Label
from ..errors import InputError
from .located import (
    MAX_DEPTH,
    _describe,
    _pick_error,
    _validation_error,
    long_number,
    read_text,
)


@dataclass(frozen=True)
class LocatedLabel:
    """A label and where it was read: file and line (for errors that point at it)."""

    label: Label
    path: Path
    line: int

    def error(self, message: str, *, field: str) -> InputError:
        return InputError(self.path, message, line=self.line, field=field)


def load_labels(path: str | Path) -> list[Label]:
    """Read labels from JSONL (one object per line) or CSV (header: item,rater,criterion,label
    and optionally note). Integer-looking CSV labels become integers."""
    return [x.label for x in read_labels(path)]


def read_labels(path: str | Path) -> list[LocatedLabel]:
    """`load_labels`, keeping each label's file and line."""
    p = Path(path)
    return labels_from_text(p, read_text(p), csv_format=p.suffix.lower() == ".csv")


def json_lines(text: str) -> list[str]:
    """The lines of JSON Lines text: split at "\n" only (a "\r" before it dropped), never at the
    other characters `str.splitlines` takes for line ends (U+2028, U+0085, \x1c-\x1e...), which
    a JSON string may hold unescaped (any export written with ensure_ascii=False)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def jsonl_objects(p: Path, text: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """The objects of JSON Lines text read from `p`, each with its line number and text (blank
    lines skipped); a line that is not one JSON object is one InputError naming it."""
    for n, raw in enumerate(json_lines(text), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(p, f"malformed JSON: {exc.msg}", line=n) from None
        except ValueError:
            raise long_number(p, raw, line=n) from None
        except RecursionError:
            raise InputError(p, f"nested more than {MAX_DEPTH} levels deep", line=n) from None
        if not isinstance(data, dict):
            raise InputError(p, "each line is one JSON object", line=n)
        yield n, raw, data


def labels_from_text(p: Path, text: str, *, csv_format: bool = False) -> list[LocatedLabel]:
    """Labels from JSONL (or CSV) text read from `p` (a file, or a request body)."""
    if csv_format:
        return _labels_from_csv(p, text)
    labels: list[LocatedLabel] = []
    for n, raw, data in jsonl_objects(p, text):
        try:
            labels.append(LocatedLabel(Label.model_validate(data), p, n))
        except ValidationError as exc:
            raise _validation_error(p, raw, exc, base_line=n) from None
    if not labels:
        raise InputError(p, "no labels in file")
    return labels


def _labels_from_csv(p: Path, text: str) -> list[LocatedLabel]:
    reader = csv.DictReader(io.StringIO(text))
    required = {"item", "rater", "criterion", "label"}
    try:
        header = set(reader.fieldnames or [])
    except csv.Error as exc:  # a header field over csv's size limit, say
        raise InputError(p, f"malformed CSV header: {exc}", line=1) from None
    if not required <= header:
        missing = ", ".join(sorted(required - header))
        raise InputError(p, f"CSV header lacks column(s): {missing}", line=1)
    extra = header - required - {"note"}
    if extra:
        raise InputError(p, "unknown column", line=1, field=sorted(extra)[0])
    labels: list[LocatedLabel] = []
    try:
        for row in reader:
            n = reader.line_num
            data: dict[str, Any] = {k: v for k, v in row.items() if k is not None}
            value = (data.get("label") or "").strip()
            data["label"] = int(value) if value.lstrip("-").isdigit() else value
            if not data.get("note"):
                data.pop("note", None)
            try:
                labels.append(LocatedLabel(Label.model_validate(data), p, n))
            except ValidationError as exc:
                err = _pick_error(exc)
                field = ".".join(str(x) for x in err["loc"])
                raise InputError(p, _describe(err), line=n, field=field) from None
    except csv.Error as exc:
        raise InputError(p, f"malformed CSV: {exc}", line=reader.line_num) from None
    if not labels:
        raise InputError(p, "no labels in file")
    return labels
