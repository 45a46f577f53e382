"""Where a field of a trace file is, for one-line errors: the file, the line (the JSONL line, or
the line of the field in a JSON file) and the field's path (e.g. messages[3].tool_call_id)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files import field_error, json_lines, long_number, read_text
from ..surrogates import lone_surrogate

__all__ = ["FORMAT_HELP", "Locator", "read_documents", "dotted"]

Loc = tuple[int | str, ...]

FORMAT_HELP = "write it in the form docs/import.md gives (What each format must hold)"
"""What to do about a field that is not in its format, when nothing more specific can be said."""


def dotted(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


@dataclass(frozen=True)
class Locator:
    """Errors about one document: a whole JSON file (line None) or one JSONL line."""

    path: Path
    line: int | None = None

    def error(self, loc: Loc, message: str, do: str = FORMAT_HELP) -> InputError:
        """One line: where, which field, what is wrong, and `do`: what to do about it."""
        message = f"{message}; {do}"
        if self.line is None:
            err = field_error(self.path, loc, message)
            return InputError(self.path, message, line=err.line, field=dotted(loc) or None)
        return InputError(self.path, message, line=self.line, field=dotted(loc) or None)

    @property
    def where(self) -> str:
        return str(self.path) if self.line is None else f"{self.path}:{self.line}"


def read_documents(path: Path) -> Iterator[tuple[Locator, Any]]:
    """The JSON documents of a trace file: one for .json, one per non-blank line for .jsonl
    (each with its line). Malformed JSON, a lone surrogate escape (no character: no transcript
    can hold it) or an integer too long to read is one error naming the file and line."""
    text = read_text(path)
    if path.suffix == ".jsonl":
        for n, raw in enumerate(json_lines(text), start=1):
            if raw.strip():
                yield Locator(path, n), _parse(path, raw, line=n)
        return
    if not text.strip():
        raise InputError(
            path, "empty file; give a file that holds a trace, or leave it out", line=1
        )
    yield Locator(path), _parse(path, text)


_FIX_JSON = {
    False: "fix the JSON there (a .json file is one JSON document)",
    True: "fix the JSON on that line (each line of a .jsonl file is one whole JSON document)",
}


def _parse(path: Path, text: str, *, line: int | None = None) -> Any:
    if (lone := lone_surrogate(path, text, base_line=line or 0)) is not None:
        raise lone
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            path,
            f"malformed JSON: {exc.msg}; {_FIX_JSON[line is not None]}",
            line=line or exc.lineno,
        ) from None
    except ValueError:  # an integer of thousands of digits
        raise long_number(path, text, line=line) from None
    except RecursionError:
        raise InputError(
            path, f"malformed JSON: nested too deep; {_FIX_JSON[line is not None]}", line=line
        ) from None
