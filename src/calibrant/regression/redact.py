"""Personal data out of free text, with stable placeholders: the same person, email or number
gets the same placeholder everywhere in one case ("[person 1]", "[email 1]", "[phone 1]"), so a
message still reads as it did and two messages about the same person still agree.

What is replaced: every email address; the names of the people the transcript's records know
(customers of both tenants: full names, then each part of three letters or more); a name the
customer gives ("I'm Ana", "my name is Ana Ruiz"); phone numbers; long digit runs (cards,
accounts); and any extra term the caller names. Order ids, amounts and dates stay: the case
needs them, and they are the service's data, not the person's."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

__all__ = ["Redactor"]

_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}")
_PHONE = re.compile(r"(?<!\w)\+?\d[\d \-().]{7,}\d(?!\w)")
_DIGITS = re.compile(r"(?<![\w_])\d{9,}(?![\w])")
_SELF_NAMED = re.compile(
    r"\b(?i:I'm|I am|my name is|this is|name's)\s+([A-Z][a-z'\-]+(?:\s+[A-Z][a-z'\-]+)?)"
)
_PLACEHOLDER = re.compile(r"\[(?:person|email|phone|number|redacted) \d+\]")


class Redactor:
    """Replace personal data in text; `known_names` and `extra` are matched as whole words."""

    def __init__(self, known_names: Iterable[str] = (), extra: Iterable[str] = ()) -> None:
        self._map: dict[tuple[str, str], str] = {}
        self._counts: dict[str, int] = {}
        self._used: set[str] = set()
        self._terms: list[tuple[str, str]] = []  # (term, kind), longest first
        for name in known_names:
            self._add_name(name)
        for term in extra:
            if term.strip():
                self._terms.append((term.strip(), "redacted"))
        self._sort()

    def _sort(self) -> None:
        self._terms = sorted(set(self._terms), key=lambda t: (-len(t[0]), t[0]))

    def _add_name(self, name: str) -> None:
        name = " ".join(name.split())
        if not name:
            return
        self._terms.append((name, "person"))
        for part in name.split():
            if len(part) >= 3:
                self._terms.append((part, "person"))
        self.person(name)

    def _slot(self, kind: str, value: str, key: str | None = None) -> str:
        """The placeholder of `value` (a person's parts share the full name's placeholder)."""
        k = (kind, (key or value).casefold())
        if k not in self._map:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            self._map[k] = f"[{kind} {self._counts[kind]}]"
        return self._map[k]

    def person(self, full_name: str) -> str:
        """Reserve a placeholder for a person (all parts of the name map to it)."""
        full = " ".join(full_name.split())
        slot = self._slot("person", full)
        for part in full.split():
            if len(part) >= 3:
                self._map.setdefault(("person", part.casefold()), slot)
        return slot

    def text(self, text: str) -> str:
        """`text` with every piece of personal data it holds replaced."""
        out = _EMAIL.sub(lambda m: self._use(self._slot("email", m.group(0))), text)
        for m in list(_SELF_NAMED.finditer(out)):
            name = m.group(1)
            if not _PLACEHOLDER.fullmatch(name):
                self._add_name(name)
                self.person(name)
        self._sort()
        for term, kind in self._terms:
            pattern = re.compile(rf"(?<![\w\[]){re.escape(term)}(?![\w\]])", re.IGNORECASE)
            if kind == "person":
                slot = self._map.get(("person", term.casefold())) or self.person(term)
            else:
                slot = self._slot(kind, term)
            out = pattern.sub(self._using(slot), out)
        out = _DIGITS.sub(lambda m: self._use(self._slot("number", m.group(0))), out)
        return _PHONE.sub(self._phone, out)

    def _phone(self, m: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", m.group(0))
        if len(digits) < 9:  # a date, an amount: not a phone number
            return m.group(0)
        return self._use(self._slot("phone", digits))

    def _using(self, slot: str) -> Callable[[re.Match[str]], str]:
        return lambda _m: self._use(slot)

    def _use(self, slot: str) -> str:
        self._used.add(slot)
        return slot

    def replaced(self) -> dict[str, int]:
        """How many distinct placeholders of each kind the texts received (for the summary)."""
        kinds: dict[str, int] = {}
        for slot in self._used:
            kind = slot[1:].split(" ")[0]
            kinds[kind] = kinds.get(kind, 0) + 1
        return kinds
