"""Lone surrogates in JSON text: `"\\ud83d"` alone is valid JSON but no character, and neither
UTF-8 output nor the store (PostgreSQL or SQLite) can hold it. Every reader of transcripts
refuses it as bad input, naming the line and the field."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .errors import InputError

__all__ = ["lone_surrogate"]

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)


def _lone_escape(text: str) -> int | None:
    """Where `text` (JSON) escapes half a surrogate pair with no other half, or None."""
    pending: re.Match[str] | None = None  # a high half waiting for its low half
    for m in _ESCAPE.finditer(text):
        code = int(m.group(1), 16) if m.group(1) else -1
        if pending is not None:
            if 0xDC00 <= code <= 0xDFFF and m.start() == pending.end():
                pending = None
                continue
            return pending.start()
        if 0xD800 <= code <= 0xDBFF:
            pending = m
        elif 0xDC00 <= code <= 0xDFFF:
            return m.start()
    return None if pending is None else pending.start()


def _surrogate_loc(data: Any, loc: tuple[int | str, ...] = ()) -> tuple[int | str, ...] | None:
    if isinstance(data, str):
        return loc if any("\ud800" <= ch <= "\udfff" for ch in data) else None
    items = (
        data.items()
        if isinstance(data, dict)
        else enumerate(data)
        if isinstance(data, list)
        else ()
    )
    for key, value in items:
        found = _surrogate_loc(key, loc) or _surrogate_loc(value, (*loc, key))
        if found is not None:
            return found
    return None


def lone_surrogate(path: str | Path, text: str, *, base_line: int = 0) -> InputError | None:
    """An InputError when the JSON `text` escapes a lone surrogate (`"\\ud83d"` alone): JSON
    allows it, but it is no character, and UTF-8 output and the store cannot hold it. Names the
    line and, when the text parses, the field; None when there is none (a fast scan)."""
    if not _SURROGATE_ESCAPE.search(text) or (at := _lone_escape(text)) is None:
        return None
    try:
        loc = _surrogate_loc(json.loads(text)) or ()
    except (ValueError, RecursionError):  # not JSON, or an integer too long to read
        loc = ()
    line = base_line or text.count("\n", 0, at) + 1
    escape = text[at : at + 6]
    message = f"a lone surrogate escape ({escape}) is not a character; write the text as UTF-8"
    field = ".".join(str(part) for part in loc) or None
    return InputError(Path(path), message, line=line, field=field)
