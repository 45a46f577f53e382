"""A span of personal data found in a text (start, end, kind, key), and what the recognizers
share to find one: folding a text to compare words, a value's digits or letters and digits, a
cue in the characters before a match."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    kind: str  # email, iban, card, national id, passport, phone, birth date, address, ...
    key: str  # what identifies the value (the same key, the same placeholder)


def fold(text: str) -> str:
    """`text` without accents and in lower case, one character for one (so spans carry over)."""
    return "".join(unicodedata.normalize("NFD", c.lower())[0] if c.isalpha() else c for c in text)


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


def _alnum(s: str) -> str:
    return re.sub(r"[^0-9A-Za-z]", "", s).upper()


def _cued(rx: re.Pattern[str], text: str, start: int, window: int = 30) -> bool:
    """Whether `rx` (a cue) occurs in the `window` characters before `start`."""
    return rx.search(text[max(0, start - window) : start]) is not None
