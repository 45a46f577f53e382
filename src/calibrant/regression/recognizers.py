"""Recognizers of personal data in Spanish and English free text: each finds spans (start, end,
kind, key) in a text; `redact.Redactor` chooses among overlapping spans and replaces them.

Validated where a checksum exists (python-stdnum: IBAN mod-97, Spanish DNI/NIE check letter,
Luhn for cards; phonenumbers, Google's libphonenumber metadata, for phones in ES, GB and US
formats and any +international number). Where no checksum exists the recognizer needs context:
a street type (calle, avenida, Street, Road...), a postcode cue or a city after it, a birth cue
or a year no refund conversation is about, a self-introduction or a relative before a name.

What none of them can catch: a name with no cue, no capital and no record ("dile a pedro que
..."), a place named without a street type, a date of birth written without a birth cue and
in a recent year, personal facts in words (an illness, a workplace). The summary says so."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from .names import FIRST_NAMES

__all__ = ["Span", "fold", "find_all", "name_mentions"]


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


_TLD = r"(?:com|es|org|net|co|uk|io|eu|info|cat|gal|eus|de|fr|it|pt|edu|gov|me|us|mx|ar)"
_EMAIL = re.compile(r"[\w.%+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,}")
_ID_LEAD = re.compile(r"^.*[\-_]\d+[\-_](?=[^@]+@)")
_DOT = r"\s*(?:\.|\bpunto\b|\bdot\b|\[dot\]|\(dot\)|\{dot\})\s*"
_OBFUSCATED = re.compile(
    rf"[\w+\-]+(?:{_DOT}[\w+\-]+)*\s*(?:\barroba\b|\bat\b|\[at\]|\(at\)|\{{at\}}|\s@\s)\s*"
    rf"[\w\-]+(?:{_DOT}[\w\-]+)*{_DOT}{_TLD}\b",
    re.IGNORECASE,
)
# a separator between digit groups: a dash, or one or two spaces of any kind (a value pasted
# from a bank's page keeps its no-break or narrow spaces)
_SEP = r"(?:-|[^\S\r\n]{1,2})"
_IBAN = re.compile(rf"\b[A-Z]{{2}}\d{{2}}(?:{_SEP}?[A-Z0-9]){{10,30}}\b", re.IGNORECASE)
_IBAN_CUE = re.compile(r"\b(?:iban|cuenta|account)\b", re.IGNORECASE)
_CARD = re.compile(rf"(?<![\w\-])\d(?:{_SEP}?\d){{12,18}}(?![\w\-])")
_DNI = re.compile(r"\b\d{2}\.?\d{3}\.?\d{3}\s?-?\s?[A-Za-z]\b")
_NIE = re.compile(r"\b[XYZxyz]\s?-?\s?\d{7}\s?-?\s?[A-Za-z]\b")
_ID_CUE = re.compile(r"\b(?:dni|nie|nif|documento|id card|national id)\b", re.IGNORECASE)
_PASSPORT_CUE = re.compile(
    r"\b(?:pasaporte|passport)(?:\s+(?:n[º°o]\.?|number|no\.?|número|numero|is|es|:))*[\s:#]*"
    r"([A-Z0-9]{6,10})\b",
    re.IGNORECASE,
)
_PASSPORT = re.compile(r"\b[A-Z]{3}\d{6}\b")  # the Spanish booklet form, e.g. PAB123456
_MONTHS = (
    r"(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|"
    r"noviembre|diciembre|january|february|march|april|may|june|july|august|september|"
    r"october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
)
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}[/.\-]\d{{1,2}}[/.\-](?:19|20)?\d{{2}}|(?:19|20)\d{{2}}-\d{{2}}-\d{{2}}|"
    rf"\d{{1,2}}\s+de\s+{_MONTHS}\s+(?:de|del)\s+\d{{4}}|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\.?,?\s+\d{{4}}|"
    rf"{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}})\b",
    re.IGNORECASE,
)
_BIRTH_CUE = re.compile(
    r"\b(?:born|birth|birthday|dob|d\.o\.b|nacimiento|nac[ií]|nacid[oa]|cumpleaños|"
    r"cumpleanos|fecha de nac)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?:19|20)\d{2}|\d{2}$")
_WORD = r"[^\W\d_][^\W\d_'’\-]*(?:['’\-][^\W\d_]+)*"
_LINK = r"(?:de|del|la|las|los|el|y|i|d'|l')"
_STREET_ES = (
    r"calle|c/|avda\.?|avenida|av\.|plaza|pza\.?|paseo|p[º°]|camino|carretera|ctra\.?|ronda|"
    r"traves[ií]a|glorieta|rambla|v[ií]a|urbanizaci[oó]n|urb\.|pasaje|callej[oó]n|cuesta|"
    r"carrer|avinguda|pla[çc]a|passeig|rúa|r[uú]a"
)
_ADDRESS_ES = re.compile(
    rf"(?<![\w/])(?:{_STREET_ES})\s*(?P<name>(?:{_LINK}\s+)*{_WORD}(?:\s+(?:{_LINK}\s+)*{_WORD}){{0,3}})"
    r"(?P<num>\s*,?\s*(?:n[º°o]\.?\s*|n[uú]mero\s*)?\d{1,4}[A-Za-z]?\b"
    r"(?:\s*,?\s*(?:\d{1,2}\s*[º°ª]\s*[A-Za-z]?|\d{1,2}[A-Za-z]\b|piso\s+\d+|puerta\s+\w+|"
    r"bajo|esc(?:alera)?\.?\s*\w+|izq(?:uierda)?|dcha|derecha))*)?",
    re.IGNORECASE,
)
_STREET_EN = (
    r"street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|way|court|ct|place|pl|"
    r"terrace|close|crescent|square|sq|gardens|grove|row|mews|walk|parkway|pkwy|highway|hwy"
)
_ADDRESS_EN = re.compile(
    rf"(?:\b(?:flat|apt|apartment|unit|suite)\.?\s*\w+,?\s+)?\b\d{{1,5}}[A-Za-z]?,?\s+"
    rf"(?:{_WORD}\s+){{1,3}}(?:{_STREET_EN})\b\.?"
    r"(?:,?\s*(?:apt|apartment|flat|unit|suite|#)\.?\s*\w+)?",
    re.IGNORECASE,
)
_POSTCODE_CUE = re.compile(
    r"\b(?:c\.?\s?p\.?|c[oó]digo postal|cod\.? postal|postal code|post ?code|zip(?: code)?)"
    r"[\s:.]*((?:0[1-9]|[1-4]\d|5[0-2])\d{3}|\d{5}(?:-\d{4})?)\b",
    re.IGNORECASE,
)
_POSTCODE_CITY = re.compile(
    r"\b(?:0[1-9]|[1-4]\d|5[0-2])\d{3}(?=[ ,]+(?!EUR|USD|GBP)[A-ZÁÉÍÓÚÑ][a-záéíóúñü]+)"
)
_AFTER_ADDRESS = re.compile(r"\s*,?\s*((?:0[1-9]|[1-4]\d|5[0-2])\d{3})\b")
_UK_POSTCODE = re.compile(r"\b[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?\s?\d[ABD-HJLNP-UW-Z]{2}\b")
_US_STATES = (
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH "
    "NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC"
).split()
_US_ZIP = re.compile(rf"\b(?:{'|'.join(_US_STATES)})\s+(\d{{5}}(?:-\d{{4}})?)\b")
_DIGIT_GROUPS = re.compile(rf"(?<![\w\-])\d{{3,}}(?:{_SEP}\d{{3,}})+(?![\w\-])")
_DATE_LIKE = re.compile(r"\b(?:19|20)\d{2}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
_PHONE_LIKE = re.compile(r"(?<![\w\-])\+\d{1,3}[ \-.]?\(?\d[\d \-().]{6,}\d(?![\w\-])")
_LONG_DIGITS = re.compile(r"(?<![\w])\d{9,}(?![\w])")

_STRONG = (
    r"me llamo|mi nombre es|my name is|my name's|name's|se llama|que se llama|a nombre de|"
    r"in the name of|under the name(?: of)?"
)
_WEAK = (
    r"soy|i'm|i am|im|this is|it's|aqu[ií]|habla|le escribe|les escribe|te escribe|"
    r"ll[aá]mame|call me|"
    r"firmado|signed|called|named|llamad[oa]|mr\.?|mrs\.?|ms\.?|miss|dr\.?|sr\.?|sra\.?|srta\.?|"
    r"don|doña|dona|saludos,?|un saludo,?|atentamente,?|regards,?|thanks,?|gracias,?|cheers,?"
)
_RELATIVES = (
    r"marido|mujer|esposa|esposo|hijo|hija|madre|padre|hermano|hermana|novio|novia|pareja|"
    r"vecino|vecina|jefe|jefa|compañero|compañera|companero|companera|amigo|amiga|suegro|"
    r"suegra|cuñado|cuñada|abuelo|abuela|tío|tía|primo|prima|"
    r"husband|wife|son|daughter|mother|father|mum|mom|dad|brother|sister|partner|neighbour|"
    r"neighbor|friend|colleague|boss|boyfriend|girlfriend|uncle|aunt|cousin|grandmother|"
    r"grandfather|flatmate|roommate"
)
_CUE = re.compile(
    rf"(?:(?P<strong>\b(?:{_STRONG}))|(?P<weak>\b(?:{_WEAK}))|"
    rf"(?P<rel>\b(?:mi|my|our|nuestr[oa]|la|el|the)\s+(?:{_RELATIVES})\b,?))"
    r"\s+",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_NOT_NAMES = frozenset(
    """a an the and or but y e o u pero que de del la las el los lo en in on at to of for por
    para con with sin from desde here aqui aquí sorry writing still not no yes si sí very
    muy the un una unos unas your tu su sus my mi mis our we you he she it they i im soy es
    is was are am be been have has had tengo tiene tenia tenía ha he hay going trying about
    calling llamando escribiendo esperando waiting customer cliente clienta client order pedido
    refund reembolso again otra vez ya already just solo only also tambien también happy glad
    contento contenta enfadado enfadada angry upset sure seguro segura afraid pleased the this
    that esto eso este esta ese esa hello hola hi buenas buenos dias días tardes noches thanks
    gracias regards saludos please por favor okay ok bien well good fine here again ready new
    interested confused worried preocupado preocupada disappointed decepcionado decepcionada
    told dice dijo says said asked pidio pidió wants quiere wanted queria quería who quien
    quién which cual cuál ha has will va can puede could podria podría urgent urgente
    important importante support soporte equipo team service servicio atencion atención
    billing facturacion facturación finance finanzas sales ventas desk help ayuda staff
    tomorrow today tonight mañana manana hoy later luego back asap when cuando after before
    antes despues después now ahora soon pronto again de nuevo""".split()
)


def _valid_iban(s: str) -> str | None:
    from stdnum import iban

    compact = _alnum(s)
    for end in range(len(compact), 14, -1):
        if iban.is_valid(compact[:end]):
            return compact[:end]
    return None


def _emails(text: str) -> Iterator[Span]:
    for m in _EMAIL.finditer(text):
        # inside an id ("prod-2026-11-30-ana.ruiz@x.com"): the id's parts before are not hers
        lead = _ID_LEAD.match(m.group(0))
        start = m.start() + (lead.end() if lead else 0)
        yield Span(start, m.end(), "email", text[start : m.end()].lower())
    for m in _OBFUSCATED.finditer(text):
        yield Span(m.start(), m.end(), "email", _alnum(fold(m.group(0))))


def _money_and_ids(text: str) -> Iterator[Span]:
    from stdnum import luhn
    from stdnum.es import dni, nie

    for m in _IBAN.finditer(text):
        valid = _valid_iban(m.group(0))
        if valid:  # where the valid prefix ends in the match: stop there
            n, end = 0, m.start()
            while n < len(valid) and end < m.end():
                n += text[end].isalnum()
                end += 1
            yield Span(m.start(), end, "iban", valid)
        elif _IBAN_CUE.search(text[max(0, m.start() - 30) : m.start()]):
            yield Span(m.start(), m.end(), "iban", _alnum(m.group(0)))
    for m in _CARD.finditer(text):
        if luhn.is_valid(_digits(m.group(0))):
            yield Span(m.start(), m.end(), "card", _digits(m.group(0)))
    for rx, check in ((_DNI, dni.is_valid), (_NIE, nie.is_valid)):
        for m in rx.finditer(text):
            cued = _ID_CUE.search(text[max(0, m.start() - 25) : m.start()])
            if check(_alnum(m.group(0))) or cued:
                yield Span(m.start(), m.end(), "national id", _alnum(m.group(0)))
    for m in _PASSPORT_CUE.finditer(text):
        if re.search(r"\d", m.group(1)):
            yield Span(m.start(1), m.end(1), "passport", m.group(1).upper())
    for m in _PASSPORT.finditer(text):
        yield Span(m.start(), m.end(), "passport", m.group(0))


def _phones(text: str) -> Iterator[Span]:
    import phonenumbers

    for region in ("ES", "GB", "US"):
        for found in phonenumbers.PhoneNumberMatcher(text, region):
            if _DATE_LIKE.search(found.raw_string):  # "2026-11-30/17": a date, a reference
                continue
            key = phonenumbers.format_number(found.number, phonenumbers.PhoneNumberFormat.E164)
            yield Span(found.start, found.end, "phone", key)
    for m in _PHONE_LIKE.finditer(text):  # +international, in a range libphonenumber rejects
        if len(_digits(m.group(0))) >= 9:
            yield Span(m.start(), m.end(), "phone", "+" + _digits(m.group(0)))


def _birth_dates(text: str) -> Iterator[Span]:
    for m in _DATE.finditer(text):
        cue = _BIRTH_CUE.search(text[max(0, m.start() - 45) : m.start()])
        year = _YEAR.search(m.group(0).rstrip())
        old = False
        if year:  # a full date before 2011: no refund conversation is about it
            y = int(year.group(0))
            y = y if y >= 100 else (1900 + y if y > 30 else 2000 + y)
            old = 1900 <= y <= 2010
        if cue or old:
            yield Span(m.start(), m.end(), "birth date", fold(m.group(0)))


def _places(text: str) -> Iterator[Span]:
    for m in _ADDRESS_ES.finditer(text):
        name = m.group("name")
        words = [w for w in name.split() if w.casefold() not in _NOT_NAMES]
        capital = any(w[:1].isupper() for w in words)
        if words and (m.group("num") or capital):
            if not m.group("num"):  # only the capitalized words belong to the street's name
                end = m.start("name")
                for w in re.finditer(r"\S+", name):
                    if not (w.group(0)[:1].isupper() or w.group(0).casefold() in _LINK):
                        break
                    end = m.start("name") + w.end()
                yield Span(m.start(), end, "address", fold(text[m.start() : end]))
            else:
                yield Span(m.start(), m.end(), "address", fold(m.group(0)))
                after = _AFTER_ADDRESS.match(text, m.end())  # "Calle Mayor 12, 28013"
                if after:
                    yield Span(after.start(1), after.end(1), "postcode", after.group(1))
    for m in _ADDRESS_EN.finditer(text):
        yield Span(m.start(), m.end(), "address", fold(m.group(0)))
    for m in _POSTCODE_CUE.finditer(text):
        yield Span(m.start(1), m.end(1), "postcode", m.group(1))
    for m in _POSTCODE_CITY.finditer(text):
        yield Span(m.start(), m.end(), "postcode", m.group(0))
    for m in _UK_POSTCODE.finditer(text):
        yield Span(m.start(), m.end(), "postcode", _alnum(m.group(0)))
    for m in _US_ZIP.finditer(text):
        yield Span(m.start(1), m.end(1), "postcode", m.group(1))


def _numbers(text: str) -> Iterator[Span]:
    for rx in (_LONG_DIGITS, _DIGIT_GROUPS):
        for m in rx.finditer(text):
            if len(_digits(m.group(0))) >= 9:
                yield Span(m.start(), m.end(), "number", _digits(m.group(0)))


def find_all(text: str) -> list[Span]:
    """Every span a recognizer finds in `text` (overlapping; the caller chooses)."""
    spans: list[Span] = []
    for finder in (_emails, _money_and_ids, _phones, _birth_dates, _places, _numbers):
        spans.extend(finder(text))
    return spans


_POST_CUE = re.compile(
    r"(?P<name>(?:[^\W\d_][^\W\d_'’\-]*\s+){0,2}[^\W\d_][^\W\d_'’\-]*)\s*,?\s+"
    r"(?:here|speaking|aqu[ií]|al habla|al aparato)\b",
    re.IGNORECASE,
)


def name_mentions(text: str) -> list[str]:
    """Names introduced in `text`: after a self-introduction ("me llamo josé", "soy María",
    "my name is", "I'm"), a title (Sr., Mrs.), a sign-off ("Saludos, Ana") or a relative
    ("mi marido Pedro", "my wife, Jane"). After "me llamo"/"my name is" a name in lower case
    counts; after the weaker cues a name needs a capital, or to be a common first name."""
    found: list[str] = []
    for m in _CUE.finditer(text):
        strong = m.group("strong") is not None
        words: list[str] = []
        pos = m.end()
        while len(words) < 4:
            w = _NAME_WORD.match(text, pos)
            if w is None:
                break
            word = w.group(0)
            link = word.casefold() in ("de", "del", "la", "los", "las", "y") and words
            capital = word[:1].isupper()
            known = fold(word) in FIRST_NAMES
            if not link and word.casefold() in _NOT_NAMES and not (capital and words):
                break
            if not (link or capital or known or (strong and len(words) < 3)):
                break
            if not words and not (capital or known or strong):
                break
            words.append(word)
            gap = re.match(r"[^\S\r\n]+", text[w.end() :])
            if gap is None:
                break
            pos = w.end() + gap.end()
        while words and words[-1].casefold() in ("de", "del", "la", "los", "las", "y"):
            words.pop()
        if words:
            found.append(" ".join(words))
    for m in _POST_CUE.finditer(text):  # "Harry Whitfield here", "Lucía aquí"
        words = []
        for part in reversed(m.group("name").split()):
            if part.casefold() in _NOT_NAMES or not (
                part[:1].isupper() or fold(part) in FIRST_NAMES
            ):
                break
            words.insert(0, part)
        if words:
            found.append(" ".join(words))
    return found
