"""Transcripts sent to the service: one JSON object, a JSON array, or JSON Lines; every
failure is an InputError naming the body's line and the field."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from ..contracts import Transcript
from ..errors import InputError
from ..files import (
    against_pack,
    json_lines,
    long_number,
    transcript_from_line,
    validation_error,
)
from ..surrogates import lone_surrogate

__all__ = ["BODY", "MAX_TEXT", "body_text", "parse_transcripts", "text_problem"]

BODY = "request body"
MAX_TEXT = 4000
"""Longest note or adjudication reason, in characters."""


def text_problem(text: str, what: str) -> str | None:
    """Why a note or a reason cannot be kept, or None: too long, or holding a NUL character
    (PostgreSQL text cannot, and the same input must not pass on SQLite only)."""
    if len(text) > MAX_TEXT:
        return f"{what} has at most {MAX_TEXT} characters"
    if "\x00" in text:
        return f"{what} holds a NUL character"
    return None


def body_text(body: bytes) -> str:
    """The request body as text (UTF-8, or a 422 saying where it is not)."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(BODY, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def parse_transcripts(body: bytes, content_type: str = "") -> list[tuple[int, Transcript]]:
    """Transcripts from a request body: one JSON object, a JSON array of them, or JSON Lines
    (one per line). Returns (line, transcript); the first bad one raises an InputError naming
    its line and field."""
    text = body_text(body)
    if not text.strip():
        raise InputError(BODY, "empty body: send a transcript (JSON) or transcripts (JSONL)")
    stripped = text.lstrip()
    lines = [(n, raw) for n, raw in enumerate(json_lines(text), start=1) if raw.strip()]
    ndjson = "ndjson" in content_type or "jsonl" in content_type
    if not ndjson and len(lines) > 1 and not stripped.startswith("["):
        ndjson = _each_line_is_an_object(lines)
    if ndjson:
        return _reachable([(n, transcript_from_line(BODY, n, raw)) for n, raw in lines])
    if (lone := lone_surrogate(BODY, text)) is not None:
        raise lone
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(BODY, f"malformed JSON: {exc.msg}", line=exc.lineno) from None
    except ValueError:  # an integer of thousands of digits
        raise long_number(BODY, text) from None
    except RecursionError:
        raise InputError(BODY, "nested too deep") from None
    docs = data if isinstance(data, list) else [data]
    if not docs:
        raise InputError(BODY, "an empty list: send at least one transcript", line=1)
    out = []
    for index, doc in enumerate(docs):
        if not isinstance(doc, dict):
            raise InputError(BODY, "a transcript is a JSON object", line=1, field=str(index))
        try:
            t = Transcript.model_validate(doc)
            against_pack(t)  # another domain's: its kinds, points and records, by its pack
            out.append((index + 1, t))
        except ValidationError as exc:
            raise _in_document(text, exc, index if isinstance(data, list) else None) from None
    return _reachable(out)


def _reachable(found: list[tuple[int, Transcript]]) -> list[tuple[int, Transcript]]:
    """Refuse an item id the workbench could not link to: one whose path segments are empty,
    '.' or '..' (a browser resolves those out of /label/ID before asking)."""
    for line, t in found:
        if any(part in ("", ".", "..") for part in t.transcript_id.split("/")):
            raise InputError(
                BODY,
                f"transcript id {t.transcript_id!r} has an empty, '.' or '..' segment: "
                "the workbench could not link to it",
                line=line,
                field="transcript_id",
            )
    return found


def _each_line_is_an_object(lines: list[tuple[int, str]]) -> bool:
    try:
        return all(isinstance(json.loads(raw), dict) for _, raw in lines[:2])
    except (ValueError, RecursionError):  # not JSON, or not readable: said by the parser
        return False


def _in_document(text: str, exc: ValidationError, index: int | None) -> InputError:
    """The validation error of transcript `index` of a JSON array (or of the one object), with
    the line of the offending field in the body."""
    prefix: tuple[int | str, ...] = () if index is None else (index,)
    return validation_error(Path(BODY), text, exc, prefix=prefix)
