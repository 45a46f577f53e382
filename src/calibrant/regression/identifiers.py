"""Recognizers of numbers and codes: bank accounts, cards, national ids and passports, social
security numbers, licence plates, IP addresses, phones and long runs of digits. Each is
validated where a checksum exists (python-stdnum, phonenumbers, `ipaddress`) or needs a shape or
a cue before it (recognizers.py says which)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .spans import Span, _alnum, _cued, _digits

if TYPE_CHECKING:
    from phonenumbers import PhoneNumber

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


_DIGIT_GROUPS = re.compile(rf"(?<![\w\-])\d{{3,}}(?:{_SEP}\d{{3,}})+(?![\w\-])")
_DATE_LIKE = re.compile(r"\b(?:19|20)\d{2}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
_YEAR_LED = re.compile(r"^(?:19|20)\d{2}[-/]")  # "2026/000412", "2026-1130-0042": a reference
_PHONE_LIKE = re.compile(r"(?<![\w\-])\+\d{1,3}[ \-.]?\(?\d[\d \-().]{6,}\d(?![\w\-])")
_LONG_DIGITS = re.compile(r"(?<![\w])\d{9,}(?![\w])")


def _valid_iban(s: str) -> str | None:
    from stdnum import iban

    compact = _alnum(s)
    for end in range(len(compact), 14, -1):
        # mod-97 and the country's length and format; not the country's own account check
        # digits (a Spanish IBAN's CCC digits): a real account number either way
        if iban.is_valid(compact[:end], check_country=False):
            return compact[:end]
    return None


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


def _numbers(text: str) -> Iterator[Span]:
    for rx in (_LONG_DIGITS, _DIGIT_GROUPS):
        for m in rx.finditer(text):
            digits = _digits(m.group(0))
            if len(digits) == 9 and _business_line(digits):
                continue
            if len(digits) >= 9 and not _YEAR_LED.match(m.group(0)):
                yield Span(m.start(), m.end(), "number", digits)
