"""Reading user files into contracts. Every failure becomes one `InputError` line naming the
file, the line (when the parser knows it) and the field.

Transcripts, cases, rubrics and YAML or JSON documents here; labels in `files.labels`; reading,
parsing and locating an error in `files.located`; all exported from here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..contracts import CaseContract, Rubric, Transcript
from ..contracts.forms import reads_itself, unnamed_domain
from ..domains import UnknownDomain
from ..domains import get as get_pack
from ..domains.conform import conform_case, conform_transcript
from ..errors import InputError
from ..paths import expand_paths, write_atomic
from ..surrogates import lone_surrogate
from .labels import (
    LocatedLabel,
    json_lines,
    jsonl_objects,
    labels_from_text,
    load_labels,
    read_labels,
)
from .located import (
    MAX_DEPTH,
    M,
    _parse_json,
    _parse_yaml,
    _validate,
    _validation_error,
    field_error,
    line_of,
    long_number,
    read_text,
    validation_error,
)

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
