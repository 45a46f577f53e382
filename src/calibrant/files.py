"""Reading user files into contracts. Every failure becomes one `InputError` line naming the
file, the line (when the parser knows it) and the field."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from .contracts import CaseContract, Label, Rubric, Transcript
from .contracts.forms import reads_itself, unnamed_domain
from .domains import UnknownDomain
from .domains import get as get_pack
from .domains.conform import conform_case, conform_transcript
from .errors import InputError
from .paths import expand_paths, write_atomic
from .surrogates import lone_surrogate

__all__ = [
    "expand_paths",
    "json_lines",
    "load_transcript",
    "conformed",
    "against_pack",
    "domain_of_bytes",
    "load_case",
    "load_rubric",
    "load_labels",
    "read_labels",
    "labels_from_text",
    "jsonl_objects",
    "LocatedLabel",
    "write_atomic",
    "load_yaml_model",
    "load_yaml_mapping",
    "yaml_model_from_text",
    "validation_error",
    "field_error",
    "line_of",
    "read_text",
    "long_number",
]

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


def _pick_error(exc: ValidationError) -> dict[str, Any]:
    errors = exc.errors(include_url=False)
    # Unions report one error per member; the deepest location is the most specific.
    return dict(max(errors, key=lambda e: len(e["loc"])))


def _describe(err: dict[str, Any]) -> str:
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


def _parse_yaml(path: Path, text: str) -> Any:
    if not text.strip():
        raise InputError(path, "empty file", line=1)
    deep = _too_deep(path, text)
    if deep is not None:
        raise deep
    try:
        return yaml.safe_load(text)
    except RecursionError:  # nesting _too_deep cannot see (`- - - - x` on one line)
        raise InputError(path, f"nested more than {MAX_DEPTH} levels deep") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        raise InputError(path, f"malformed YAML: {problem}", line=line) from None


def load_transcript(path: str | Path) -> Transcript:
    """Read and validate one transcript JSON file."""
    p = Path(path)
    text = read_text(p)
    if (lone := lone_surrogate(p, text)) is not None:
        raise lone
    try:
        t = Transcript.model_validate_json(text)
    except ValidationError as exc:
        if any(e["type"] == "json_invalid" for e in exc.errors()):
            _parse_json(p, text)  # raises with the parser's line number
        data = _parse_json(p, text)
        if not isinstance(data, dict):
            raise InputError(p, "a transcript is a JSON object", line=1) from None
        raise _validation_error(p, text, exc) from None
    return conformed(t, p, text)


def conformed(model: M, path: Path, text: str, *, base_line: int = 0) -> M:
    """A transcript or case of another domain checked against its installed pack (its record
    kinds, fault points, snapshots' records, fixture and outcomes: `domains.conform`); a
    mismatch is one InputError naming the file, the line and the field. A file its pack's form
    reads itself, or one whose pack is not installed (the checker then says harness_error), is
    returned as is."""
    try:
        against_pack(model)
    except ValidationError as exc:
        raise _validation_error(path, text, exc, base_line=base_line) from None
    return model


def against_pack(model: BaseModel) -> None:
    """Check a transcript or case of another domain against its installed pack; a mismatch is
    a ValidationError located at the field (for callers that report it their own way, e.g. a
    request body). A file its pack's form reads itself, or one whose pack is not
    installed, passes."""
    domain = getattr(model, "domain", None)
    if not isinstance(domain, str) or reads_itself(domain):
        return
    try:
        pack = get_pack(domain).pack
    except UnknownDomain:
        return
    if isinstance(model, Transcript):
        conform_transcript(pack, model)
    elif isinstance(model, CaseContract):
        conform_case(pack, model)


def load_yaml_mapping(path: str | Path, what: str) -> tuple[dict[str, Any], str]:
    """A YAML file that must hold a mapping: (the data, the text for error lines)."""
    p = Path(path)
    text = read_text(p)
    data = _parse_yaml(p, text)
    if not isinstance(data, dict):
        raise InputError(p, f"a {what} is a YAML mapping", line=1)
    return data, text


def yaml_model_from_text(model: type[M], text: str, what: str, source: str) -> M:
    """`load_yaml_model` for YAML text that is not a file (a request body): errors name
    `source` in place of a path, with the line and field."""
    p = Path(source)
    data = _parse_yaml(p, text)
    if not isinstance(data, dict):
        raise InputError(p, f"a {what} is a YAML mapping", line=1)
    return _validate(model, p, data, text)


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


def load_yaml_model(model: type[M], path: str | Path, what: str) -> M:
    data, text = load_yaml_mapping(path, what)
    return _validate(model, Path(path), data, text)


def load_case(path: str | Path) -> CaseContract:
    """Read and validate one case contract (YAML); a case of another domain is checked against
    its pack."""
    data, text = load_yaml_mapping(path, "case contract")
    case = _validate(CaseContract, Path(path), data, text)
    return conformed(case, Path(path), text)


def load_rubric(path: str | Path) -> Rubric:
    """Read and validate one rubric (YAML)."""
    return load_yaml_model(Rubric, path, "rubric")


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


def transcript_from_line(path: str | Path, line: int, text: str) -> Transcript:
    """One transcript from one line of a JSON Lines file; errors name the file and that line."""
    p = Path(path)
    if (lone := lone_surrogate(p, text, base_line=line)) is not None:
        raise lone
    try:
        return conformed(Transcript.model_validate_json(text), p, text, base_line=line)
    except ValidationError as exc:
        if any(e["type"] == "json_invalid" for e in exc.errors()):
            try:
                json.loads(text)
            except json.JSONDecodeError as jexc:
                raise InputError(p, f"not JSON: {jexc.msg}", line=line) from None
            except ValueError:
                raise long_number(p, text, line=line) from None
            except RecursionError:
                raise InputError(
                    p, f"nested more than {MAX_DEPTH} levels deep", line=line
                ) from None
        if not text.lstrip().startswith("{"):
            raise InputError(
                p, "each line must be one transcript (a JSON object)", line=line
            ) from None
        raise _validation_error(p, text, exc, base_line=line) from None


def load_json_document(path: str | Path, what: str) -> dict[str, Any]:
    """A JSON object from a file (e.g. a saved report); errors name the file and the line."""
    p = Path(path)
    text = read_text(p)
    data = _parse_json(p, text)
    if not isinstance(data, dict):
        raise InputError(p, f"a {what} is a JSON object", line=1)
    return data


def domain_of_bytes(raw: bytes) -> str:
    """The domain a transcript's JSON bytes name (when they name none: the domain of the pack
    that reads such files), without validating them: for bytes read and validated before (the
    judge's cache of files). Bytes that never spell `"domain"` (nor any \\u escape, which could
    spell it) name none and are not parsed."""
    if b'"domain"' not in raw and b"\\u" not in raw:
        return unnamed_domain("transcript")
    try:
        data = json.loads(raw)
    except ValueError:
        return unnamed_domain("transcript")  # not a transcript: its loader reports it
    found = data.get("domain") if isinstance(data, dict) else None
    return found if isinstance(found, str) else unnamed_domain("transcript")
