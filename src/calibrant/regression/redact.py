"""Personal data out of free text, with stable placeholders: the same person, email or number
gets the same placeholder everywhere in one case ("[person 1]", "[email 1]", "[iban 1]"), so a
message still reads as it did and two messages about the same person still agree.

What is replaced (`recognizers`): emails (also written out, "ana arroba gmail punto com"),
IBANs (mod-97) and Spanish account numbers (CCC), cards (Luhn), their security codes and expiry
dates (after a cue), Spanish DNI/NIE (check letter, or the dotted/dashed shape), passport
numbers, US and Spanish social security numbers, licence plates, IPv4 and IPv6 addresses,
phones (libphonenumber: ES, GB, US and any +international number), dates of birth, street
addresses and postcodes, long digit runs; the names of the people the transcript's records know
(full names, then each part of three letters or more, hyphenated parts too, with or without
accents, in any case); names the text introduces ("me llamo josé", "soy María", "my name is",
"I'm", "mi marido Pedro", "Un saludo,\nmaite"); and any extra term the caller names. Order ids,
amounts and the conversation's dates stay: the case needs them, and they are the service's
data, not the person's. What it cannot catch is in `recognizers`' docstring and the docs; the
summary line warns of it."""

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
    "ip address": 2,
    "iban": 3,
    "bank account": 4,
    "card": 5,
    "card code": 6,
    "card expiry": 7,
    "social security": 8,
    "national id": 9,
    "passport": 10,
    "licence plate": 11,
    "phone": 12,
    "birth date": 13,
    "address": 14,
    "postcode": 15,
    "person": 16,
    "number": 17,
}
# parts of a name too common to stand alone for it ("Íñigo Martínez de Lizarduy")
_LINKS = frozenset("de del la las los san santa van von der den dos das mac".split())
_BETWEEN = r"[\s\-\u2010\u2011\u2013]+"  # between two parts of a name: spaces, hyphens
_HYPHENS = re.compile(_BETWEEN)


def _name_key(name: str) -> str:
    """A name folded, its hyphens read as spaces, one kind of apostrophe ("garcia lorca")."""
    return " ".join(_HYPHENS.split(fold(name).replace("\u2019", "'"))).strip()


def _name_terms(name: str) -> list[str]:
    """What stands for a person in text: the full name; each hyphenated surname whole; each
    part of three letters or more, also a part after an apostrophe and the part without it
    ("O'Brien-Walsh": "o'brien walsh", "o'brien", "obrien", "brien", "walsh")."""
    key = _name_key(name)
    terms = [key, key.replace("'", "")]
    for piece in fold(name).replace("\u2019", "'").split():
        if _HYPHENS.search(piece):  # a hyphenated surname, whole: "ruiz-tagle" / "ruiz tagle"
            terms += [_name_key(piece), _name_key(piece).replace("'", "")]
        for part in _HYPHENS.split(piece):
            terms += [part, part.replace("'", ""), *part.split("'")]
    return [t for t in dict.fromkeys(terms) if len(t.replace(" ", "")) >= 3 and t not in _LINKS]


class Redactor:
    """Replace personal data in text; `known_names` and `extra` are matched as whole words;
    `not_names`: the words of the text's domain never taken as a person's name (its pack's
    `DomainPack.not_names`)."""

    def __init__(
        self,
        known_names: Iterable[str] = (),
        extra: Iterable[str] = (),
        not_names: Iterable[str] = (),
    ) -> None:
        self._not_names = frozenset(w.casefold() for w in not_names)
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
        for term in _name_terms(name):
            self._terms.setdefault(term, "person")
        self._pattern = None

    def _slot(self, kind: str, value: str) -> str:
        """The placeholder of `value` (a person's parts share the full name's placeholder)."""
        k = (kind, fold(value))
        if k not in self._map:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            self._map[k] = f"[{kind} {self._counts[kind]}]"
        return self._map[k]

    def person(self, full_name: str) -> str:
        """Reserve a placeholder for a person (every part of the name maps to it)."""
        full = " ".join(full_name.split())
        slot = self._slot("person", _name_key(full))
        for term in _name_terms(full):
            self._map.setdefault(("person", term), slot)
        return slot

    def _term_spans(self, text: str) -> list[Span]:
        if not self._terms:
            return []
        if self._pattern is None:
            alternatives = sorted(self._terms, key=lambda t: (-len(t), t))
            escaped = (re.escape(t).replace(r"\ ", _BETWEEN) for t in alternatives)
            body = "|".join(e.replace("'", "['\u2019]") for e in escaped)
            self._pattern = re.compile(rf"(?<![\w\[])(?:{body})(?![\w\]])")
        folded = fold(text)
        spans = []
        for m in self._pattern.finditer(folded):
            term = m.group(0)
            key = next((k for k in (term, _name_key(term)) if k in self._terms), term)
            spans.append(Span(m.start(), m.end(), self._terms.get(key, "redacted"), key))
        return spans

    def spans(self, text: str) -> list[Span]:
        """What `text()` replaces in `text`, in reading order: of overlapping candidates the more
        specific kind wins, then the longer span. Registers the names `text` introduces."""
        for name in name_mentions(text, self._not_names):
            self._add_name(name)
        taken = [(m.start(), m.end()) for m in _PLACEHOLDER.finditer(text)]
        chosen: list[Span] = []
        candidates = find_all(text, self._not_names) + self._term_spans(text)
        for s in sorted(candidates, key=lambda s: (_PRIORITY[s.kind], s.start - s.end, s.start)):
            if all(s.end <= a or s.start >= b for a, b in taken):
                taken.append((s.start, s.end))
                chosen.append(s)
        return sorted(chosen, key=lambda s: s.start)

    def text(self, text: str) -> str:
        """`text` with every piece of personal data it holds replaced."""
        pieces, pos = [], 0
        for s in self.spans(text):  # numbered in reading order
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
