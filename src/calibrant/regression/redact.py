"""Personal data out of free text, with stable placeholders: the same person, email or number
gets the same placeholder everywhere in one case ("[person 1]", "[email 1]", "[iban 1]"), so a
message still reads as it did and two messages about the same person still agree.

What is replaced (`recognizers`): emails (also written out, "ana arroba gmail punto com"),
IBANs (mod-97), cards (Luhn), Spanish DNI/NIE (check letter) and passport numbers, phones
(libphonenumber: ES, GB, US and any +international number), dates of birth, street addresses
and postcodes, long digit runs; the names of the people the transcript's records know (full
names, then each part of three letters or more, with or without accents, in any case); names
the text introduces ("me llamo josé", "soy María", "my name is", "I'm", "mi marido Pedro");
and any extra term the caller names. Order ids, amounts and the conversation's dates stay: the
case needs them, and they are the service's data, not the person's. What it cannot catch is in
`recognizers`' docstring and the README; the summary line warns of it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .recognizers import Span, find_all, fold, name_mentions

__all__ = ["Redactor", "RESIDUAL_WARNING"]

RESIDUAL_WARNING = (
    "free text may still hold personal data no recognizer knows (a name with no cue or "
    "capital, a place without a street type, health or work details): read it before "
    "committing"
)
_PLACEHOLDER = re.compile(r"\[[a-z ]+ \d+\]")
# which span wins where two overlap: the more specific kind first
_PRIORITY = {
    "redacted": 0,
    "email": 1,
    "iban": 2,
    "card": 3,
    "national id": 4,
    "passport": 5,
    "phone": 6,
    "birth date": 7,
    "address": 8,
    "postcode": 9,
    "person": 10,
    "number": 11,
}


class Redactor:
    """Replace personal data in text; `known_names` and `extra` are matched as whole words."""

    def __init__(self, known_names: Iterable[str] = (), extra: Iterable[str] = ()) -> None:
        self._map: dict[tuple[str, str], str] = {}
        self._counts: dict[str, int] = {}
        self._used: set[str] = set()
        self._terms: dict[str, str] = {}  # folded term -> kind
        self._pattern: re.Pattern[str] | None = None
        for name in known_names:
            self._add_name(name)
        for term in extra:
            if term.strip():
                self._terms[fold(" ".join(term.split()))] = "redacted"

    def _add_name(self, name: str) -> None:
        name = " ".join(name.split())
        if not name or _PLACEHOLDER.fullmatch(name):
            return
        self.person(name)
        self._terms.setdefault(fold(name), "person")
        for part in name.split():
            if len(part) >= 3 and part.casefold() not in ("del", "las", "los"):
                self._terms.setdefault(fold(part), "person")
        self._pattern = None

    def _slot(self, kind: str, value: str) -> str:
        """The placeholder of `value` (a person's parts share the full name's placeholder)."""
        k = (kind, fold(value))
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
                self._map.setdefault(("person", fold(part)), slot)
        return slot

    def _term_spans(self, text: str) -> list[Span]:
        if not self._terms:
            return []
        if self._pattern is None:
            alternatives = sorted(self._terms, key=lambda t: (-len(t), t))
            body = "|".join(re.escape(t).replace(r"\ ", r"\s+") for t in alternatives)
            self._pattern = re.compile(rf"(?<![\w\[])(?:{body})(?![\w\]])")
        folded = fold(text)
        spans = []
        for m in self._pattern.finditer(folded):
            term = " ".join(m.group(0).split())
            spans.append(Span(m.start(), m.end(), self._terms[term], term))
        return spans

    def text(self, text: str) -> str:
        """`text` with every piece of personal data it holds replaced."""
        for name in name_mentions(text):
            self._add_name(name)
        taken = [(m.start(), m.end()) for m in _PLACEHOLDER.finditer(text)]
        chosen: list[Span] = []
        candidates = find_all(text) + self._term_spans(text)
        for s in sorted(candidates, key=lambda s: (_PRIORITY[s.kind], s.start - s.end, s.start)):
            if all(s.end <= a or s.start >= b for a, b in taken):
                taken.append((s.start, s.end))
                chosen.append(s)
        pieces, pos = [], 0
        for s in sorted(chosen, key=lambda s: s.start):  # numbered in reading order
            if s.kind == "person":
                slot = self._map.get(("person", s.key)) or self.person(text[s.start : s.end])
            else:
                slot = self._slot(s.kind, s.key)
            self._used.add(slot)
            pieces += [text[pos : s.start], slot]
            pos = s.end
        return "".join([*pieces, text[pos:]])

    def replaced(self) -> dict[str, int]:
        """How many distinct placeholders of each kind the texts received (for the summary)."""
        kinds: dict[str, int] = {}
        for slot in self._used:
            kind = slot[1:].rsplit(" ", 1)[0]
            kinds[kind] = kinds.get(kind, 0) + 1
        return kinds
