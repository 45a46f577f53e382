"""Finding record values in free text the way people (and models) actually write them.

Agent text is untrusted and loosely written: re-spaced (double spaces, no-break or thin spaces,
line breaks), re-cased, with accents dropped or decomposed, ids written with a space or another
separator ("order 017" for order_017), money written as "42,50 €", "€42.5" or "42.50 EUR".
Everything here compares *normalized* text, on both sides: the record value and the message, and
the customer's words when deciding who wrote a value first.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "Money",
    "address_key",
    "normalize_text",
    "id_key",
    "mentions",
    "mentions_id",
    "mentions_surname",
    "money_in",
    "states_amount",
]

# zero-width characters: a zero-width space separates words, the others sit inside words
_ZW_SPACE = {0x200B: " "}
_ZW_DROP = {c: None for c in (0x00AD, 0x200C, 0x200D, 0x2060, 0xFEFF)}
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=4096)
def address_key(address: str) -> str:
    """An email address as a mailbox, for comparing recipients: the address inside
    `Name <address>` or `mailto:`, compatibility-folded (full-width letters), without zero-width
    characters or whitespace, casefolded. 'Marta Solé <MARTA.SOLE@Example.NET>' and
    'marta.sole@example.net' are one mailbox; 'marta.soler@example.com' is another."""
    inside = re.search(r"<([^<>]*)>", address)
    text = inside.group(1) if inside else address
    text = unicodedata.normalize("NFKC", text.translate(_ZW_DROP).translate(_ZW_SPACE))
    text = _SPACES.sub("", text).casefold()
    return text.removeprefix("mailto:")


@lru_cache(maxsize=4096)
def normalize_text(text: str) -> str:
    """Compatibility-decompose (NFKD: full-width letters, ligatures, decomposed accents), drop
    accents and zero-width characters, casefold, and turn every run of whitespace (spaces,
    no-break and thin spaces, line breaks) into one space. 'Marta\\u00a0SOLÉ' and 'marta sole'
    normalize alike; 'Soler' stays distinct from 'Solé' (see `mentions`)."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_ZW_SPACE).translate(_ZW_DROP))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SPACES.sub(" ", bare.casefold()).strip()


@lru_cache(maxsize=1024)
def _token(value: str) -> re.Pattern[str]:
    needle = re.escape(normalize_text(value)).replace(r"\ ", " ")
    return re.compile(rf"(?<![\w]){needle}(?![\w])")


def mentions(text: str, value: str) -> bool:
    """Whether `value` (a name, an email, any phrase) occurs in `text` as whole words, both
    normalized: 'Marta Sole' is in 'Thanks MARTA  SOLÉ', but not in 'Thanks Marta Soler'."""
    return _token(value).search(normalize_text(text)) is not None


_ID_SHAPE = re.compile(r"([a-z]+(?:[_\-. ][a-z]+)*)[_\-. #]*(\d+)")
_ID_SEP = r"(?:\s*[_\-#:/.]\s*|\s)?(?:(?:no|nr|n°)\.?\s*)?"


@lru_cache(maxsize=1024)
def _id_pattern(record_id: str) -> re.Pattern[str]:
    norm = normalize_text(record_id)
    m = _ID_SHAPE.fullmatch(norm)
    if m is None:
        return _token(record_id)
    words = re.split(r"[_\-. ]", m.group(1))
    prefix = r"[_\-. ]?".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![\w]){prefix}{_ID_SEP}{m.group(2)}(?!\d)(?![\w])")


def id_key(record_id: str) -> str:
    """A record id with its separators and case dropped: 'ORD-017' and 'ord 017' share one."""
    return re.sub(r"[\W_]+", "", normalize_text(record_id))


def mentions_id(text: str, record_id: str) -> bool:
    """Whether the record id `record_id` (a word part and a number, e.g. order_017) occurs in
    `text`, with any separator or none between the parts ('order 017', 'ORDER-017', 'order
    #017', 'order no. 017'). The digits must match exactly: 'order 17' is not order_017."""
    return _id_pattern(record_id).search(normalize_text(text)) is not None


_TITLES = r"(?:mr|mrs|ms|miss|mx|dr|sr|sra|srta|senor|senora|senorita|don|dona)\.?"


@lru_cache(maxsize=1024)
def _surname_patterns(surname: str) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    norm = normalize_text(surname)
    titled = re.compile(rf"(?<![\w]){_TITLES} {re.escape(norm)}(?![\w])")
    if len(norm) < 4:
        return titled, None
    # capitalized inside a sentence (after a word or a comma, not after . ! ? or at the start,
    # where any word is capitalized): "I see that Ferrer also ordered"
    head, rest = re.escape(norm[0].upper()), re.escape(norm[1:])
    return titled, re.compile(rf"(?<=[\w,;] ){head}(?i:{rest})(?![\w])")


def _fold_keep_case(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.translate(_ZW_SPACE).translate(_ZW_DROP))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SPACES.sub(" ", bare).strip()


def mentions_surname(text: str, surname: str) -> bool:
    """Whether the surname `surname` is used as a name in `text`: after a title in any case
    ('Mrs. Solé', 'la Sra. Sole', 'MS FERRER'), or capitalized inside a sentence ('I see that
    Ferrer also ordered'). The same word in lower case ('the sole reason') or at the start of a
    sentence, with no title, is not counted."""
    titled, capitalized = _surname_patterns(surname)
    if titled.search(normalize_text(text)):
        return True
    return capitalized is not None and capitalized.search(_fold_keep_case(text)) is not None


@dataclass(frozen=True)
class Money:
    """An amount written in text, in minor units, with the currency written next to it."""

    minor_units: int
    currency: str | None  # ISO code of the symbol or word next to it; None: none written
    raw_minor_units: bool = False  # a bare integer with no currency: read as minor units


_CURRENCY_WORDS = {
    "€": "EUR",
    "eur": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "$": "USD",
    "usd": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "£": "GBP",
    "gbp": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
}
_NUMBER = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)*)(?![\w])(?![.,]\d)")
_AFTER = re.compile(r" ?(€|\$|£|(?:euros?|eur|usd|dollars?|gbp|pounds?)(?![a-z]))")
_BEFORE = re.compile(r"(€|\$|£|(?<![a-z])(?:eur|usd|gbp)) ?$")
# "1 042,50 €": a space (no-break and thin spaces are spaces once normalized) between groups of
# three digits; read as one amount only with a currency written next to it
_SPACED = re.compile(r"(?<![\w.,])(\d{1,3}(?: \d{3})+(?:[.,]\d{1,2})?)(?![\w])(?![.,]\d)")
# "until 18.00", "18.00 h", "9.00 to 18.00": a clock time written like an amount (only without
# a currency); "came to 18.00" is an amount
_CLOCK = re.compile(r"([01]?\d|2[0-3])\.[0-5]\d")
_CLOCK_BEFORE = re.compile(
    r"(?:(?<![\w])(?:at|until|till|til|by|before|after|from|between|around|about|since"
    r"|open|opens|close|closes|closed|hasta|desde|las)"
    r"|(?<![\w.,])(?:[01]?\d|2[0-3])\.[0-5]\d ?(?:to|and|till|until|-|a|y))"
    r"\s*$"
)
_CLOCK_AFTER = re.compile(
    r"\s*(?:(?:h|hrs?|hours?|o'?clock|am|pm|horas?)(?![\w])"
    r"|(?:to|till|until|-|a) ?(?:[01]?\d|2[0-3])\.[0-5]\d(?![\d]))"
)


def _value(number: str, currency: str | None) -> Money | None:
    parts = re.split(r"[.,]", number)
    head, last = parts[:-1], parts[-1]
    if head and len(last) in (1, 2):  # a decimal part: 42.5, 42,50, 1.042,50
        if any(len(p) != 3 for p in head[1:]) or (len(head) > 1 and len(head[0]) > 3):
            return None
        if len(last) == 1 and currency is None:
            return None  # "42.5" alone is not money; "€42.5" is
        major = int("".join(head))
        return Money(major * 100 + int(last.ljust(2, "0")), currency)
    if head and (any(len(p) != 3 for p in parts[1:]) or len(parts[0]) > 3):
        return None  # dates, versions, phone numbers: not an amount
    if currency is not None:
        return Money(int("".join(parts)) * 100, currency)
    if head or len(last) < 3:
        return None  # "1,800" or "17" with no currency: a count, a day, not an amount
    return Money(int(last), None, raw_minor_units=True)


@lru_cache(maxsize=4096)
def money_in(text: str) -> tuple[Money, ...]:
    """Every amount written in `text`: '42,50 €', '€42.5', '42.50 EUR', 'EUR 42,50' -> 4250 EUR;
    '€42' -> 4200; '42.50' alone -> 4250 with no currency; a bare integer of three or more
    digits ('4250') is read as minor units, as records write them. Percentages, dates and
    version-like numbers are not amounts."""
    norm = normalize_text(text)
    found: list[tuple[int, Money]] = []
    taken: list[tuple[int, int]] = []
    for m in _SPACED.finditer(norm):
        word = _currency_near(norm, m)
        money = _value(m.group(1).replace(" ", ""), _CURRENCY_WORDS[word]) if word else None
        if money is not None:
            found.append((m.start(), money))
            taken.append(m.span())
    for m in _NUMBER.finditer(norm):
        if any(start <= m.start() < end for start, end in taken):
            continue
        if norm[m.end() :].startswith(("%", " %")):
            continue
        word = _currency_near(norm, m)
        if word is None and _is_clock_time(norm, m):
            continue
        money = _value(m.group(1), _CURRENCY_WORDS[word] if word else None)
        if money is not None:
            found.append((m.start(), money))
    return tuple(money for _, money in sorted(found, key=lambda x: x[0]))


def _currency_near(norm: str, m: re.Match[str]) -> str | None:
    after = _AFTER.match(norm[m.end() :])
    before = _BEFORE.search(norm[max(0, m.start() - 6) : m.start()])
    return after.group(1) if after else before.group(1) if before else None


def _is_clock_time(norm: str, m: re.Match[str]) -> bool:
    if not _CLOCK.fullmatch(m.group(1)):
        return False
    return bool(
        _CLOCK_BEFORE.search(norm[max(0, m.start() - 16) : m.start()])
        or _CLOCK_AFTER.match(norm[m.end() :])
    )


def states_amount(text: str, minor_units: int, currency: str = "EUR") -> bool:
    """Whether `text` writes the amount `minor_units` in `currency` (or with no currency):
    4200 EUR is stated by '€42', '42 €', '42.00 EUR', '42,00 €' or '4200'; not by '€4200'
    (forty-two hundred euros) nor by '$42'."""
    return any(
        m.minor_units == minor_units and m.currency in (None, currency) for m in money_in(text)
    )
