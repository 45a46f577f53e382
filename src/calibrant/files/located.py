"""Where a user's file went wrong, in one line: reading it as UTF-8, parsing its JSON or YAML
(a malformed document, a number too long, nesting too deep) and validating it, each failure an
`InputError` naming the file, the line (found from the field's path in the text) and the
field."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..errors import InputError

M = TypeVar("M", bound=BaseModel)


def read_text(path: Path) -> str:
    """A user's UTF-8 text file; a missing, unreadable or non-UTF-8 file is one InputError."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror}") from None


def _line_of(text: str, loc: Sequence[int | str]) -> tuple[int | None, str]:
    """Line (1-based) of the deepest node of `loc` present in the JSON/YAML `text`, and the
    field path made of the loc parts that name real keys or indexes."""
    try:
        node: Any = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        node = None
    line = None if node is None else node.start_mark.line + 1
    parts: list[str] = []
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key, value in node.value:
                if getattr(key, "value", None) == part:
                    child = (key, value)
                    break
            if child is None:
                # pydantic puts union member names in loc; skip what is not a key
                if parts and part[:1].isupper() or "[" in part:
                    continue
                parts.append(part)
                break
            parts.append(part)
            line = child[0].start_mark.line + 1
            node = child[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                parts.append(str(part))
                break
            node = node.value[part]
            parts.append(str(part))
            line = node.start_mark.line + 1
        else:
            if isinstance(part, str) and (part[:1].isupper() or "[" in part):
                continue
            parts.append(str(part))
    return line, ".".join(parts)


def _pick_error(exc: ValidationError) -> ErrorDetails:
    errors = exc.errors(include_url=False)
    # Unions report one error per member; the deepest location is the most specific.
    return max(errors, key=lambda e: len(e["loc"]))


def _describe(err: ErrorDetails) -> str:
    msg = str(err["msg"])
    if err["type"] == "extra_forbidden":
        return "unknown field"
    if err["type"] == "missing":
        return "required field is missing"
    if "input" in err and err["type"] not in ("model_type", "dict_type"):
        try:
            shown = json.dumps(err["input"], ensure_ascii=False, default=str)
        except (ValueError, RecursionError):  # an integer of thousands of digits
            shown = "a value too long to show"
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return f"{msg} (got {shown})"
    return msg


def _validation_error(
    path: Path,
    text: str,
    exc: ValidationError,
    *,
    base_line: int = 0,
    prefix: tuple[int | str, ...] = (),
) -> InputError:
    err = _pick_error(exc)
    line, field = _line_of(text, (*prefix, *err["loc"]))
    if base_line:
        line = base_line
    return InputError(path, _describe(err), line=line, field=field or None)


def _validate(model: type[M], path: Path, data: Any, text: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _validation_error(path, text, exc) from None


def long_number(path: str | Path, text: str, *, line: int | None = None) -> InputError:
    """The InputError for JSON `text` that Python will not read: an integer of more digits than
    its limit (`sys.get_int_max_str_digits()`, 4300 by default), on the line where it is (or
    `line`, for a line of a JSON Lines file)."""
    limit = sys.get_int_max_str_digits()
    found = re.search(rf"\d{{{limit + 1},}}", text) if limit else None
    if line is None and found is not None:
        line = text.count("\n", 0, found.start()) + 1
    return InputError(
        path, f"a number of more than {limit} digits: calibrant reads none that long", line=line
    )


MAX_DEPTH = 64
"""Deepest nesting of brackets a JSON or YAML input may have. Real transcripts, cases and
rubrics stay under 10; a parser given thousands of levels would exhaust Python's stack."""


def _too_deep(path: Path, text: str) -> InputError | None:
    """An InputError at the line where nesting first exceeds MAX_DEPTH (flow brackets outside
    strings, or block indentation), or None when the text is shallow enough."""
    depth, line, quote, escaped = 0, 1, "", False
    for ch in text:
        if ch == "\n":
            line += 1
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return InputError(path, f"nested more than {MAX_DEPTH} levels deep", line=line)
        elif ch in "]}":
            depth -= 1
    for n, raw in enumerate(text.splitlines(), start=1):
        indent = len(raw) - len(raw.lstrip(" "))
        if indent > 2 * MAX_DEPTH and raw.strip():
            return InputError(path, f"nested more than {MAX_DEPTH} levels deep", line=n)
    return None


def _parse_json(path: Path, text: str) -> Any:
    if not text.strip():
        raise InputError(path, "empty file", line=1)
    deep = _too_deep(path, text)
    if deep is not None:
        raise deep
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"malformed JSON: {exc.msg}", line=exc.lineno) from None
    except ValueError:  # an integer too long to read
        raise long_number(path, text) from None
    except RecursionError:  # nesting _too_deep cannot see
        raise InputError(path, f"nested more than {MAX_DEPTH} levels deep") from None


_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parse_yaml(path: Path, text: str) -> Any:
    if not text.strip():
        raise InputError(path, "empty file", line=1)
    deep = _too_deep(path, text)
    if deep is not None:
        raise deep
    try:
        try:  # libyaml's parser (ten times faster on a gold manifest), the same constructor
            return yaml.load(text, Loader=_FAST_LOADER)  # noqa: S506 - a safe loader
        except yaml.YAMLError:
            # what libyaml refuses, PyYAML's own parser reads or names as it always has
            return yaml.safe_load(text)
    except RecursionError:  # nesting _too_deep cannot see (`- - - - x` on one line)
        raise InputError(path, f"nested more than {MAX_DEPTH} levels deep") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        raise InputError(path, f"malformed YAML: {problem}", line=line) from None


def validation_error(
    path: Path, text: str, exc: ValidationError, *, prefix: tuple[int | str, ...] = ()
) -> InputError:
    """A pydantic error on data read from `text`, as one line naming file, line and field
    (`prefix`: where in `text` the validated value sits, e.g. its index in a JSON array)."""
    return _validation_error(path, text, exc, prefix=prefix)


def field_error(path: str | Path, loc: Sequence[int | str], message: str) -> InputError:
    """An InputError about the field at `loc` of a JSON/YAML file, with the line it is on."""
    p = Path(path)
    line, field = _line_of(read_text(p), loc)
    return InputError(p, message, line=line, field=field or None)


def line_of(text: str, loc: Sequence[int | str]) -> int | None:
    """The line (1-based) of the field at `loc` in JSON/YAML `text` (of its deepest part
    present), for errors about a document that is not a file of its own (a member of a zip)."""
    return _line_of(text, loc)[0]
