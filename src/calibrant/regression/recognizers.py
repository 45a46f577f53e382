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
in a recent year, personal facts in words (an illness, a workplace). The summary says so."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .names import FIRST_NAMES

if TYPE_CHECKING:
    from phonenumbers import PhoneNumber

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


_TLD = r"(?:com|es|org|net|co|uk|io|eu|info|cat|gal|eus|de|fr|it|pt|edu|gov|me|us|mx|ar|ie)"
_EMAIL = re.compile(r"[\w.%+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,}")
_ID_LEAD = re.compile(r"^.*[\-_]\d+[\-_](?=[^@]+@)")
_DOT = r"\s*(?:\.|\bpunto\b|\bdot\b|[\[({]\s*(?:dot|punto)\s*[\])}])\s*"
_OBFUSCATED = re.compile(
    rf"[\w+\-]+(?:{_DOT}[\w+\-]+)*\s*(?:\barroba\b|\bat\b|[\[({{]\s*(?:at|arroba)\s*[\])}}]|"
    rf"\s@\s)\s*[\w\-]+(?:{_DOT}[\w\-]+)*{_DOT}{_TLD}\b",
    re.IGNORECASE,
)
# a separator between digit groups: a dash (or an en dash), or one or two spaces of any kind (a
# value pasted from a bank's page keeps its no-break or narrow spaces); cards also take dots,
# IBANs dots and slashes
_DASH = "\\-\u2010\u2011\u2013"
_SEP = rf"(?:[{_DASH}]|[^\S\r\n]{{1,2}})"
_CARD_SEP = rf"(?:[{_DASH}.]|[^\S\r\n]{{1,2}})"
_IBAN_SEP = rf"(?:[{_DASH}./]|[^\S\r\n]{{1,2}})"
_IBAN = re.compile(rf"\b[A-Z]{{2}}\d{{2}}(?:{_IBAN_SEP}?[A-Z0-9]){{10,30}}\b", re.IGNORECASE)
_IBAN_CUE = re.compile(r"\b(?:iban|cuenta|account)\b", re.IGNORECASE)
_CCC = re.compile(rf"(?<![\w{_DASH}/.])\d{{4}}({_SEP}?)\d{{4}}\1\d{{2}}\1\d{{10}}(?![\w{_DASH}])")
_CCC_CUE = re.compile(r"\b(?:cuenta|c/c|ccc|account)\b", re.IGNORECASE)
_CARD = re.compile(rf"(?<![\w{_DASH}+.])\d(?:{_CARD_SEP}?\d){{12,18}}(?![\w{_DASH}]|\.\d)")
_CVV = re.compile(
    r"\b(?:cvv2?|cvc2?|cv2|csc|c[oó]digo\s+(?:de\s+)?seguridad|security\s+code|card\s+code|"
    r"(?:n[uú]meros|d[ií]gitos|digits|numbers)\s+(?:de\s+|on\s+)?(?:the\s+)?"
    r"(?:atr[aá]s|detr[aá]s|back|dorso|reverso))"
    r"(?:\s+(?:is|are|es|son|number|n[uú]mero))?\s*[:#=]?\s*(\d{3,4})(?!\d|[.,/]\d)",
    re.IGNORECASE,
)
_EXPIRY = re.compile(
    r"\b(?:caduca(?:\s+(?:el|en))?|(?:fecha\s+de\s+)?caducidad|cad(?:\.|\b)|vence(?:\s+(?:el|en))?|"
    r"vencimiento|v[aá]lida\s+hasta|exp\.?|expiry(?:\s+date)?|expires(?:\s+(?:on|in))?|"
    r"expiration(?:\s+date)?|valid\s+(?:thru|through|until))"
    r"\s*[:#]?\s*((?:0[1-9]|1[0-2])\s?[/\-.]\s?(?:20)?\d{2})(?![\d/])",
    re.IGNORECASE,
)
# the DNI's number in groups (none, dots, spaces), then its letter; the NIE's X/Y/Z, 7 digits,
# letter. Dotted groups, or a NIE with separators, are a DNI's and NIE's shape alone: no
# checksum asked (a wrong letter is a typo of one). Otherwise the letter checks, or a cue.
_DNI = re.compile(
    rf"(?<![0-9A-Za-z])\d{{2}}(?P<g>[.\s]?)\d{{3}}(?P=g)\d{{3}}"
    rf"(?P<s>\s?[{_DASH}/]\s?|[.\s])?(?P<l>[A-Za-z])(?![0-9A-Za-z])"
)
_NIE = re.compile(
    rf"(?<![0-9A-Za-z])[XYZxyz](?P<a>\s?[{_DASH}.]\s?|\s)?\d{{7}}"
    rf"(?P<b>\s?[{_DASH}.]\s?|\s)?[A-Za-z](?![0-9A-Za-z])"
)
_ID_CUE = re.compile(
    r"\b(?:dni|nie|nif|documento|id card|national id|spanish id|identidad|identificaci[oó]n)\b",
    re.IGNORECASE,
)
_PASSPORT_CUE = re.compile(
    r"\b(?:pasaporte|passport)(?:\s*(?:(?:n\.?\s?[º°o]|n[uú]m(?:ero)?|number|no|nr|is|es|de)"
    r"\.?(?!\w)|[:#]))*\s*"
    rf"([A-Z]{{1,3}}(?:\s|[{_DASH}])?\d{{6,8}}|[A-Z0-9]{{6,10}})(?![\w{_DASH}])",
    re.IGNORECASE,
)
_PASSPORT = re.compile(r"\b[A-Z]{3}\d{6}\b")  # the Spanish booklet form, e.g. PAB123456
_PASSPORT_SPACED = re.compile(rf"\b[A-Z]{{3}}(?:\s|[{_DASH}])\d{{6}}\b")  # after a cue
_PASSPORT_WORD = re.compile(r"\b(?:pasaporte|passport)\b", re.IGNORECASE)
# a British National Insurance number: two letters, three pairs of digits, A-D
_NINO = re.compile(r"(?<![\w])([A-Z]{2})\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D](?![\w])")
_NINO_CUE = re.compile(r"\b(?:ni|n\.i\.|nino|national\s+insurance)\b", re.IGNORECASE)
# the US social security number (area, group, serial); the Spanish one (province, number,
# check digits mod 97), the same separator twice
_SSN = re.compile(rf"(?<![\w{_DASH}/.])\d{{3}}(?P<s>[{_DASH}]|[^\S\r\n])\d{{2}}(?P=s)\d{{4}}"
                  rf"(?![\w{_DASH}/]|\.\d)")  # fmt: skip
_SSN_CUED = re.compile(
    r"\b(?:ssn|ss#|social(?:\s+security)?(?:\s+(?:number|no\.?|n[uú]mero))?)"
    rf"(?:\s+(?:is|es))?\s*[:#]?\s*(\d{{3}}{_SEP}?\d{{2}}{_SEP}?\d{{4}})(?![\w{_DASH}])",
    re.IGNORECASE,
)
_NSS = re.compile(
    rf"(?<![\w{_DASH}/.])(?P<p>\d{{2}})(?P<s>[/{_DASH}]|[^\S\r\n])?(?P<n>\d{{7,8}})(?P=s)?"
    rf"(?P<c>\d{{2}})(?![\w{_DASH}/]|\.\d)"
)
_NSS_CUE = re.compile(
    r"\b(?:seguridad\s+social|nss|nuss|afiliaci[oó]n|social\s+security)\b", re.IGNORECASE
)
# licence plates: Spain's since 2000 (4 digits, 3 consonants), Spain's provincial ones
# (M-1234-AB), and, after a cue, Britain's (AB12 CDE)
_PLATE_LETTERS = "BCDFGHJKLMNPRSTVWXYZ"
_PLATE = re.compile(
    rf"(?<![\w{_DASH}/.,])\d{{4}}(?:\s|[{_DASH}])?([{_PLATE_LETTERS}]{{3}})(?![\w{_DASH}])",
    re.IGNORECASE,
)
_PROVINCES = (
    "A AB AL AV B BA BI BU C CA CC CE CO CR CS CU GC GE GI GR GU H HU IB J L LE LO LU M MA ML "
    "MU NA O OR OU P PM PO S SA SE SG SO SS T TE TF TO V VA VI Z ZA"
).split()
_PLATE_OLD = re.compile(
    rf"(?<![\w{_DASH}/.])(?:{'|'.join(sorted(_PROVINCES, key=len, reverse=True))})"
    rf"(?P<s>\s|[{_DASH}])?\d{{4}}(?P=s)?[A-Z]{{1,2}}(?![\w{_DASH}])"
)
_PLATE_UK = re.compile(rf"(?<![\w{_DASH}])[A-Z]{{2}}\d{{2}}\s?[A-Z]{{3}}(?![\w{_DASH}])", re.I)
_PLATE_CUE = re.compile(
    r"\b(?:matr[ií]cula|placa|licen[cs]e(?:\s+plate)?|number\s+plate|plate|reg(?:istration)?|"
    r"coche|furgoneta|moto|veh[ií]culo|car|van|vehicle)\b",
    re.IGNORECASE,
)
# three capitals after 4 digits that are a currency or a unit, not a plate ("1200 GBP")
_NOT_PLATES = frozenset(
    """GBP MXN CZK PLN DKK HKD SGD BRL CNY KRW THB HRK BGN NZD TWD KZT PHP CLP CHF XPF BDT LKR
    MYR PKR SYP PTS KMS KGS RPM KWH MHZ GHZ FPS DPI PPM HRS BTC""".split()
)
_IPV4 = re.compile(
    r"(?<![\w.:])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
    r"(?![\w:]|\.\d)"
)
_IPV6 = re.compile(r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")
_VERSION_CUE = re.compile(
    r"\b(?:v|ver|versi[oó]n|version|firmware|build|release)\.?\s*[:(]?\s*$", re.IGNORECASE
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
_DIGIT_GROUPS = re.compile(rf"(?<![\w\-])\d{{3,}}(?:{_SEP}\d{{3,}})+(?![\w\-])")
_DATE_LIKE = re.compile(r"\b(?:19|20)\d{2}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
_YEAR_LED = re.compile(r"^(?:19|20)\d{2}[-/]")  # "2026/000412", "2026-1130-0042": a reference
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


def _valid_iban(s: str) -> str | None:
    from stdnum import iban

    compact = _alnum(s)
    for end in range(len(compact), 14, -1):
        # mod-97 and the country's length and format; not the country's own account check
        # digits (a Spanish IBAN's CCC digits): a real account number either way
        if iban.is_valid(compact[:end], check_country=False):
            return compact[:end]
    return None


def _cued(rx: re.Pattern[str], text: str, start: int, window: int = 30) -> bool:
    """Whether `rx` (a cue) occurs in the `window` characters before `start`."""
    return rx.search(text[max(0, start - window) : start]) is not None


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
    from stdnum.es import ccc, dni, nie

    for m in _IBAN.finditer(text):
        valid = _valid_iban(m.group(0))
        if valid:  # where the valid prefix ends in the match: stop there
            n, end = 0, m.start()
            while n < len(valid) and end < m.end():
                n += text[end].isalnum()
                end += 1
            yield Span(m.start(), end, "iban", valid)
        elif _cued(_IBAN_CUE, text, m.start()):
            yield Span(m.start(), m.end(), "iban", _alnum(m.group(0)))
    for m in _CCC.finditer(text):  # a Spanish account number (bank, branch, check, account)
        if ccc.is_valid(_digits(m.group(0))) or _cued(_CCC_CUE, text, m.start()):
            yield Span(m.start(), m.end(), "bank account", _digits(m.group(0)))
    for m in _CARD.finditer(text):
        if luhn.is_valid(_digits(m.group(0))):
            yield Span(m.start(), m.end(), "card", _digits(m.group(0)))
    for m in _CVV.finditer(text):
        yield Span(m.start(1), m.end(1), "card code", m.group(1))
    for m in _EXPIRY.finditer(text):
        yield Span(m.start(1), m.end(1), "card expiry", _digits(m.group(1)))
    for m in _DNI.finditer(text):
        key = _alnum(m.group(0))
        cued = _cued(_ID_CUE, text, m.start(), 25)
        # a lower-case letter after a space is a word, not a check letter ("12.500.000 y 20...")
        if m.group("l").islower() and m.group("s") == " " and not cued:
            continue
        if m.group("g") == "." or dni.is_valid(key) or cued:  # dotted: a DNI's shape alone
            yield Span(m.start(), m.end(), "national id", key)
    for m in _NIE.finditer(text):
        key = _alnum(m.group(0))
        seps = [g for g in (m.group("a"), m.group("b")) if g and g.strip()]
        if len(seps) == 2 or nie.is_valid(key) or _cued(_ID_CUE, text, m.start(), 25):
            yield Span(m.start(), m.end(), "national id", key)
    for m in _PASSPORT_CUE.finditer(text):
        if re.search(r"\d", m.group(1)):
            yield Span(m.start(1), m.end(1), "passport", _alnum(m.group(1)))
    for m in _PASSPORT.finditer(text):
        yield Span(m.start(), m.end(), "passport", m.group(0))
    for m in _PASSPORT_SPACED.finditer(text):
        if _cued(_PASSPORT_WORD, text, m.start(), 40):
            yield Span(m.start(), m.end(), "passport", _alnum(m.group(0)))
    for m in _NINO.finditer(text):
        prefix = m.group(1)
        issued = (prefix[0] not in "DFIQUV" and prefix[1] not in "DFIQUVO"
                  and prefix not in ("BG", "GB", "NK", "KN", "TN", "NT", "ZZ"))  # fmt: skip
        if issued or _cued(_NINO_CUE, text, m.start()):
            yield Span(m.start(), m.end(), "national id", _alnum(m.group(0)))


def _social_security(text: str) -> Iterator[Span]:
    from stdnum.us import ssn

    for m in _SSN.finditer(text):
        d = _digits(m.group(0))
        if ssn.is_valid(f"{d[:3]}-{d[3:5]}-{d[5:]}"):
            yield Span(m.start(), m.end(), "social security", d)
    for m in _SSN_CUED.finditer(text):
        yield Span(m.start(1), m.end(1), "social security", _digits(m.group(1)))
    for m in _NSS.finditer(text):
        prov, num, check = int(m.group("p")), int(m.group("n")), int(m.group("c"))
        # the check digits: (province and number) mod 97, the number read in 7 digits when it
        # is below 10,000,000
        base = prov * 10**7 + num if num < 10**7 else prov * 10**8 + num
        valid = 1 <= prov <= 53 and base % 97 == check
        if valid or _cued(_NSS_CUE, text, m.start(), 45):
            yield Span(m.start(), m.end(), "social security", _digits(m.group(0)))


def _plates(text: str) -> Iterator[Span]:
    for m in _PLATE.finditer(text):
        letters = m.group(1)
        if letters.upper() in _NOT_PLATES:  # "the car cost 1200 GBP"
            continue
        if letters.isupper() or _cued(_PLATE_CUE, text, m.start(), 40):
            yield Span(m.start(), m.end(), "licence plate", _alnum(m.group(0)))
    for m in _PLATE_OLD.finditer(text):
        if m.group("s") or _cued(_PLATE_CUE, text, m.start(), 40):
            yield Span(m.start(), m.end(), "licence plate", _alnum(m.group(0)))
    for m in _PLATE_UK.finditer(text):
        if _cued(_PLATE_CUE, text, m.start(), 40):
            yield Span(m.start(), m.end(), "licence plate", _alnum(m.group(0)))


def _ip_addresses(text: str) -> Iterator[Span]:
    import ipaddress

    for m in _IPV4.finditer(text):
        if not _cued(_VERSION_CUE, text, m.start(), 20):  # "firmware 2.1.0.14"
            yield Span(m.start(), m.end(), "ip address", m.group(0))
    for m in _IPV6.finditer(text):
        groups = [g for g in m.group(0).split(":") if g]
        try:
            address = ipaddress.IPv6Address(m.group(0))
        except ValueError:
            continue
        if len(groups) >= 3:  # not "::1"
            yield Span(m.start(), m.end(), "ip address", address.compressed)


def _business_line(number: str | PhoneNumber) -> bool:
    """A shop's or a service's line, never a person's: toll-free, shared-cost, premium rate
    ("900 100 200"). `number` is a phonenumbers.PhoneNumber, or digits read as Spanish."""
    import phonenumbers

    try:
        parsed = phonenumbers.parse(number, "ES") if isinstance(number, str) else number
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.number_type(parsed) in (
        phonenumbers.PhoneNumberType.TOLL_FREE,
        phonenumbers.PhoneNumberType.SHARED_COST,
        phonenumbers.PhoneNumberType.PREMIUM_RATE,
    )


def _phones(text: str) -> Iterator[Span]:
    import phonenumbers

    for region in ("ES", "GB", "US"):
        for found in phonenumbers.PhoneNumberMatcher(text, region):
            if _DATE_LIKE.search(found.raw_string):  # "2026-11-30/17": a date, a reference
                continue
            if _glued(text, found.start, found.end):  # "ORD-2026-004512": an id's digits
                continue
            if _YEAR_LED.match(found.raw_string):  # "Factura n.º 2026/000412"
                continue
            if _business_line(found.number):  # "900 100 200"
                continue
            key = phonenumbers.format_number(found.number, phonenumbers.PhoneNumberFormat.E164)
            yield Span(found.start, found.end, "phone", key)
    for m in _PHONE_LIKE.finditer(text):  # +international, in a range libphonenumber rejects
        if len(_digits(m.group(0))) >= 9:
            yield Span(m.start(), m.end(), "phone", "+" + _digits(m.group(0)))


def _glued(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is a piece of a longer token: a letter or digit just before or
    after it, or one behind a dash, underscore or slash ("ORD-2026-004512")."""
    before, after = text[max(0, start - 2) : start], text[end : end + 2]
    if before[-1:].isalnum() or after[:1].isalnum():
        return True
    joined = ("-", "_", "/")
    return (before[-1:] in joined and before[:1].isalnum()) or (
        after[:1] in joined and after[1:].isalnum()
    )


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


def _places(text: str) -> Iterator[Span]:
    for m in _ADDRESS_ES.finditer(text):
        name = m.group("name")
        words = [w for w in name.split() if w.casefold() not in _NOT_NAMES and len(w) > 1]
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
            digits = _digits(m.group(0))
            if len(digits) == 9 and _business_line(digits):
                continue
            if len(digits) >= 9 and not _YEAR_LED.match(m.group(0)):
                yield Span(m.start(), m.end(), "number", digits)


def find_all(text: str) -> list[Span]:
    """Every span a recognizer finds in `text` (overlapping; the caller chooses)."""
    spans: list[Span] = []
    finders = (_emails, _ip_addresses, _money_and_ids, _social_security, _plates, _phones,
               _birth_dates, _places, _numbers)  # fmt: skip
    for finder in finders:
        spans.extend(finder(text))
    return spans


_POST_CUE = re.compile(
    r"(?P<name>(?:[^\W\d_][^\W\d_'’\-]*\s+){0,2}[^\W\d_][^\W\d_'’\-]*)\s*,?\s+"
    r"(?:here|speaking|aqu[ií]|al habla|al aparato)\b",
    re.IGNORECASE,
)


def name_mentions(text: str) -> list[str]:
    """Names introduced in `text`: after a self-introduction ("me llamo josé", "soy María",
    "my name is", "I'm"), a title (Sr., Mrs.), a sign-off ("Saludos, Ana"), "de parte de" /
    "on behalf of", or a relative ("mi marido Pedro", "my wife, Jane"). After "me llamo"/"my
    name is" a name in lower case counts; after the weaker cues a name needs a capital, or to
    be a common first name; after a sign-off that ends the message (the name alone on the
    last line, or after the comma) any words that are not common ones count ("Un saludo,
    maite"). A run of capitals with an organisation's word in it is not a person ("Acme
    Retail Customer Care")."""
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
        common = _NOT_NAMES | _FILLERS | _ORG
        if not any(fold(w) in common or w.casefold() in common for w in words):
            found.append(" ".join(words))
    for m in _POST_CUE.finditer(text):  # "Harry Whitfield here", "Lucía aquí"
        words = []
        for part in reversed(m.group("name").split()):
            if part.casefold() in _NOT_NAMES or not (
                part[:1].isupper() or fold(part) in FIRST_NAMES
            ):
                break
            words.insert(0, part)
        if words and not any(fold(w) in _ORG for w in words):
            found.append(" ".join(words))
    return found
