"""Recognizers of personal data in Spanish and English free text: each finds spans (start, end,
kind, key) in a text; `redact.Redactor` chooses among overlapping spans and replaces them.

Validated where a checksum exists (python-stdnum: IBAN mod-97, the Spanish CCC's digits, Spanish
DNI/NIE check letter, Luhn for cards, US SSN ranges; the Spanish social security number's
mod-97 here; phonenumbers, Google's libphonenumber metadata, for phones in ES, GB and US formats
and any +international number; `ipaddress` for IPv6). Where no checksum exists the recognizer
needs a shape no other data has (`71.234.567-W`, `Y-1234567-X`, a plate `1234 BCD`, an IPv4
address) or context: a street type (calle, avenida, Street, Road...), a postcode cue or a city
after it, a birth cue or a year no support conversation is about, a self-introduction, a
relative or a sign-off before a name, "CVV" before a security code, "caduca"/"exp" before an
expiry, "matrícula"/"reg" before a British plate.

Separators people put in numbers count as one: spaces of any kind, dashes (also the en dash),
dots and, in an IBAN, slashes.

What none of them can catch: a name with no cue, no capital and no record ("dile a pedro que
..."), a place named without a street type, a date of birth written without a birth cue and
in a recent year, personal facts in words (an illness, a workplace). The summary says so.

The recognizers of numbers and codes (accounts, cards, ids, plates, IP addresses, phones)
are in `identifiers`, the span and what every recognizer shares in `spans`; here e-mail, dates of
birth, places and names."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .identifiers import (
    _ip_addresses,
    _money_and_ids,
    _numbers,
    _phones,
    _plates,
    _social_security,
)
from .names import FIRST_NAMES
from .spans import Span, _alnum, fold

__all__ = ["Span", "fold", "find_all", "name_mentions"]


_TLD = r"(?:com|es|org|net|co|uk|io|eu|info|cat|gal|eus|de|fr|it|pt|edu|gov|me|us|mx|ar|ie)"
_EMAIL = re.compile(r"[\w.%+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,}")
_ID_LEAD = re.compile(r"^.*[\-_]\d+[\-_](?=[^@]+@)")
_DOT = r"\s*(?:\.|\bpunto\b|\bdot\b|[\[({]\s*(?:dot|punto)\s*[\])}])\s*"
_OBFUSCATED = re.compile(
    rf"[\w+\-]+(?:{_DOT}[\w+\-]+)*\s*(?:\barroba\b|\bat\b|[\[({{]\s*(?:at|arroba)\s*[\])}}]|"
    rf"\s@\s)\s*[\w\-]+(?:{_DOT}[\w\-]+)*{_DOT}{_TLD}\b",
    re.IGNORECASE,
)
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
    r"\b(?:born|birth|birthday|dob|d\.o\.b|nacimiento|nac[ií]|naci[oó]|nacid[oa]|cumpleaños|"
    r"cumpleanos|fecha de nac|f\.\s?nac)\b",
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
    rf"(?<![\w/])(?:{_STREET_ES})(?:(?<=[/.º°])|\b)\s*(?P<name>(?:{_LINK}\s+)*{_WORD}(?:\s+(?:{_LINK}\s+)*{_WORD}){{0,3}})"
    r"(?P<num>\s*,?\s*(?:n[º°o]\.?\s*|n[uú]mero\s*)?\d{1,4}[A-Za-z]?\b"
    r"(?:\s*[,\-–]?\s*(?:\d{1,2}\s*[º°ª]\s*[A-Za-z]?|\d{1,2}[A-Za-z]\b|piso\s+\d+|"
    r"puerta\s+\w+|pta\.?\s*\d+\w?|bajo|esc(?:alera)?\.?\s*\w+|izq(?:uierda)?\.?|dcha\.?|"
    r"derecha))*)?",
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
    r"[\s:.]*((?:0[1-9]|[1-4]\d|5[0-2])\d{3}|\d{5}(?:-\d{4})?|"
    r"[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?\s?\d[ABD-HJLNP-UW-Z]{2})\b",
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

_STRONG = (
    r"me llamo|mi nombre es|my name is|my name's|name's|se llama|que se llama|a nombre de|"
    r"in the name of|under the name(?: of)?"
)
_WEAK = (
    r"soy|i'm|i am|im|this is|it's|aqu[ií]|habla|le escribe|les escribe|te escribe|"
    r"ll[aá]mame|call me|"
    r"firmado|signed|called|named|llamad[oa]|mr\.?|mrs\.?|ms\.?|miss|dr\.?|sr\.?|sra\.?|srta\.?|"
    r"don|doña|dona|saludos,?|un saludo,?|atentamente,?|regards,?|thanks,?|gracias,?|cheers,?|"
    r"de parte de|on behalf of|a la atenci[oó]n de|attn:?|for the attention of|"
    r"señora|señor|señorita|titular(?:\s+(?:es|de\s+la\s+cuenta))?:?|account\s+holder(?:\s+is)?:?|"
    r"(?:his|her|their)\s+name(?:\s+is)?,?|name\s+on\s+the\s+account\s+is|"
    r"(?:su|el)\s+nombre(?:\s+(?:es|del\s+titular))?:?"
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
    r"(?:\s+\(?|\s*\()\s*",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_NOT_NAMES = frozenset(
    """a an the and or but y e o u pero que de del la las el los lo en in on at to of for por
    para con with sin from desde here aqui aquí sorry writing still not no yes si sí very
    muy the un una unos unas your tu su sus my mi mis our we you he she it they i im soy es
    is was are am be been have has had tengo tiene tenia tenía ha he hay going trying about
    calling llamando escribiendo esperando waiting customer cliente clienta client order pedido
    again otra vez ya already just solo only also tambien también happy glad
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
# a title begins a name, it is never part of one ("Sr. García y Sra. López": two people)
_TITLES = frozenset("mr mrs ms miss dr sr sra srta don dona senor senora senorita".split())
# words of an organisation: a run of capitals holding one is a team or a shop, not a person
# ("Thanks, Acme Retail Customer Care")
_ORG = frozenset(
    """customer customers cliente clientes care support soporte service services servicio
    servicios team equipo department departamento devoluciones returns retail shop store tienda
    sales ventas billing facturacion help desk helpdesk staff inc ltd llc plc gmbh company
    compania empresa group grupo bank banco atencion""".split()
)
# what follows a sign-off that is not a name ("gracias igualmente", "thanks, appreciate it")
_FILLERS = frozenset(
    """igualmente anyway everyone everybody todos todas all so much mucho muchas muchisimas lot
    mate mates buddy pal majo maja majos tio tia crack campeon
    advance antemano guys chicos folks bye later love xx xxx hugs besos abrazos cordiales
    wishes care cuidaos bueno buen dia fin semana weekend week day evening morning night noche
    tarde vale perfect perfecto genial great brilliant cool done hecho appreciate appreciated
    atentamente sent enviado""".split()
)
_SIGN_OFF = re.compile(
    r"(?:^|(?<=[.!?]))[^\S\n]*"
    r"(?:un\s+saludo|saludos(?:\s+cordiales)?|un\s+abrazo|abrazos|atentamente|cordialmente|"
    r"muchas\s+gracias|mil\s+gracias|gracias|besos|kind\s+regards|best\s+regards|best\s+wishes|"
    r"warm\s+regards|regards|many\s+thanks|thank\s+you|thanks|cheers|best|sincerely|"
    r"yours\s+(?:sincerely|faithfully|truly)|bye|adi[oó]s|chao|ciao|take\s+care)\b"
    r"[^\S\n]*[,.!:\-]?[^\S\n]*\n?[^\S\n]*"
    r"(?P<name>[^\W\d_]+(?:['’\-][^\W\d_]+)*(?:[^\S\n]+[^\W\d_]+(?:['’\-][^\W\d_]+)*){0,3})"
    r"[^\S\n]*[.!]?[^\S\n]*$",
    re.IGNORECASE | re.MULTILINE,
)


def _emails(text: str) -> Iterator[Span]:
    for m in _EMAIL.finditer(text):
        # inside an id ("prod-2026-11-30-ana.ruiz@x.com"): the id's parts before are not hers
        lead = _ID_LEAD.match(m.group(0))
        start = m.start() + (lead.end() if lead else 0)
        yield Span(start, m.end(), "email", text[start : m.end()].lower())
    for m in _OBFUSCATED.finditer(text):
        yield Span(m.start(), m.end(), "email", _alnum(fold(m.group(0))))


def _birth_dates(text: str) -> Iterator[Span]:
    for m in _DATE.finditer(text):
        cue = _BIRTH_CUE.search(text[max(0, m.start() - 45) : m.start()])
        year = _YEAR.search(m.group(0).rstrip())
        old = False
        if year:  # a full date before 2011: no support conversation is about it
            y = int(year.group(0))
            y = y if y >= 100 else (1900 + y if y > 30 else 2000 + y)
            old = 1900 <= y <= 2010
        if cue or old:
            yield Span(m.start(), m.end(), "birth date", fold(m.group(0)))


def _places(text: str, not_names: frozenset[str] = frozenset()) -> Iterator[Span]:
    common = _NOT_NAMES | not_names
    for m in _ADDRESS_ES.finditer(text):
        name = m.group("name")
        words = [w for w in name.split() if w.casefold() not in common and len(w) > 1]
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


def find_all(text: str, not_names: frozenset[str] = frozenset()) -> list[Span]:
    """Every span a recognizer finds in `text` (overlapping; the caller chooses); `not_names`:
    the domain's words never taken as a name (`DomainPack.not_names`, case-folded)."""
    spans: list[Span] = []
    finders = (_emails, _ip_addresses, _money_and_ids, _social_security, _plates, _phones,
               _birth_dates)  # fmt: skip
    for finder in finders:
        spans.extend(finder(text))
    spans.extend(_places(text, not_names))
    spans.extend(_numbers(text))
    return spans


_POST_CUE = re.compile(
    r"(?P<name>(?:[^\W\d_][^\W\d_'’\-]*\s+){0,2}[^\W\d_][^\W\d_'’\-]*)\s*,?\s+"
    r"(?:here|speaking|aqu[ií]|al habla|al aparato)\b",
    re.IGNORECASE,
)


def name_mentions(text: str, not_names: frozenset[str] = frozenset()) -> list[str]:
    """Names introduced in `text`: after a self-introduction ("me llamo josé", "soy María",
    "my name is", "I'm"), a title (Sr., Mrs.), a sign-off ("Saludos, Ana"), "de parte de" /
    "on behalf of", or a relative ("mi marido Pedro", "my wife, Jane"). After "me llamo"/"my
    name is" a name in lower case counts; after the weaker cues a name needs a capital, or to
    be a common first name; after a sign-off that ends the message (the name alone on the
    last line, or after the comma) any words that are not common ones count ("Un saludo,
    maite"). A run of capitals with an organisation's word in it is not a person ("Acme
    Retail Customer Care"). `not_names`: the domain's words that are never a name either
    (`DomainPack.not_names`, case-folded), with calibrant's own."""
    common_words = _NOT_NAMES | not_names
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
            if not link and word.casefold() in common_words and not (capital and words):
                break
            if fold(word) in _TITLES:
                break
            if not (link or capital or known or (strong and len(words) < 3)):
                break
            if not words and not (capital or known or strong):
                break
            words.append(word)
            initial = len(word) == 1 and word.isupper()  # "P." in "Mr. P. Okonkwo"
            gap = re.match(r"\.?[^\S\r\n]+" if initial else r"[^\S\r\n]+", text[w.end() :])
            if gap is None:
                break
            pos = w.end() + gap.end()
        while words and words[-1].casefold() in ("de", "del", "la", "los", "las", "y", "and"):
            words.pop()
        if words and not any(fold(w) in _ORG for w in words):
            found.append(" ".join(words))
    for m in _SIGN_OFF.finditer(text):  # "Un saludo,\nmaite": the last line, in any case
        words = m.group("name").split()
        common = common_words | _FILLERS | _ORG
        if not any(fold(w) in common or w.casefold() in common for w in words):
            found.append(" ".join(words))
    for m in _POST_CUE.finditer(text):  # "Harry Whitfield here", "Lucía aquí"
        words = []
        for part in reversed(m.group("name").split()):
            if part.casefold() in common_words or not (
                part[:1].isupper() or fold(part) in FIRST_NAMES
            ):
                break
            words.insert(0, part)
        if words and not any(fold(w) in _ORG for w in words):
            found.append(" ".join(words))
    return found
