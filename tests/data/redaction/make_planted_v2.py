"""Writes planted_v2.jsonl beside it (issue 30): support-chat messages in Spanish and English with
personal data of 18 kinds planted in them, written the ways people write them (dots, slashes,
spaces, no cue word, lower case, accents), and messages with only the service's own data in
them (order ids, amounts, order dates, SKUs, tenants, policy text, times, versions) that must
come through untouched.

    python tests/data/redaction/make_planted_v2.py   # seeded: the same file every time

Every value is invented; where a kind has a checksum the value is valid (IBAN mod-97 and the
Spanish CCC digits, Luhn, DNI/NIE letter, Spanish social security mod-97, US SSN ranges).
The templates were written before the recognizers were changed for issue 30, from how people
write to a shop's support desk, not from what the recognizers knew.

One JSON object a line: `id`, `lang` (es, en, neg), `records` (names the transcript's records
know), `text`, `planted` (kind, value as written, form: how it is written), `keep` (strings
that must survive verbatim). A planted value never shares an identifying part (a word of 3+
letters, a run of 3+ digits: tests/support/redaction.py) with the rest of its message, so a
part found after redaction is a leak of that value."""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stdnum import iban, luhn
from stdnum.es import ccc, dni, nie

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from tests.support.redaction import fold, parts  # noqa: E402

rng = random.Random(30)
OUT = Path(__file__).with_name("planted_v2.jsonl")


def d(n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def pick(xs: list[str]) -> str:
    return rng.choice(xs)


# --- values ------------------------------------------------------------------------------------

ES_FIRST = """José María Íñigo Álvaro Begoña Raúl Inés Ramón Sofía Jesús Lucía Andrés Rocío
Joaquín Ainhoa Iker Maite Unai Nekane Xabier Montse Jordi Núria Xosé Uxía Itziar Amaia Aritz
Leire Paco Pepe Conchi Edurne Arantxa Txema Gorka Mireia Pau Roser Quim""".split()
ES_LAST = """García Núñez Peña Ibáñez Muñoz Gómez Sáez Ortiz Echeverría Etxeberria Aguirre
Zubizarreta Puig Ferrer Castaño Villalba Montoya Quintana Serrano Vidal Roldán Beltrán Cifuentes
Lozano Iglesias Carrasco Pastor Bermúdez Olabarrieta Sanchís Llorente Cuadrado Arrieta""".split()
EN_FIRST = """Siobhan Niamh Declan Aoife Oliver Amelia Harry Isla Freya Callum Priya Rohan Kwame
Chidi Mateusz Zofia Tyrone Shanice Bethany Gareth Rhys Eilidh Hamish Dmitri Imogen Jasper
Lachlan Saoirse Tobias Wren""".split()
EN_LAST = """O'Brien McAllister Whitfield Pemberton Ashworth Fairclough Okafor Nowak Kowalski
Patel Sharma Mensah Lloyd Davies Hughes Campbell Fraser Gallagher Thornbury Bancroft Hollis
Radcliffe Abernathy Winslow Penhaligon""".split()


def es_name(parts_: int = 2) -> str:
    first = pick(ES_FIRST)
    lasts = rng.sample(ES_LAST, parts_ - 1)
    return " ".join([first, *lasts])


def en_name(parts_: int = 2) -> str:
    return " ".join([pick(EN_FIRST), *rng.sample(EN_LAST, parts_ - 1)])


def a_phone(form: str) -> str:
    if form.startswith("es"):
        n = "6" + d(8) if rng.random() < 0.8 else "7" + pick("1234") + d(7)
        land = pick(["91", "93", "96", "95", "94", "98"]) + d(7)
        return {
            "es compact": n,
            "es 3-3-3": f"{n[:3]} {n[3:6]} {n[6:]}",
            "es 3-2-2-2": f"{n[:3]} {n[3:5]} {n[5:7]} {n[7:]}",
            "es dashes": f"{n[:3]}-{n[3:6]}-{n[6:]}",
            "es dots": f"{n[:3]}.{n[3:6]}.{n[6:]}",
            "es +34 spaced": f"+34 {n[:3]} {n[3:6]} {n[6:]}",
            "es +34 compact": f"+34{n}",
            "es 0034": f"0034 {n}",
            "es (+34)": f"(+34) {n[:3]} {n[3:5]} {n[5:7]} {n[7:]}",
            "es landline 2-3-2-2": f"{land[:2]} {land[2:5]} {land[5:7]} {land[7:]}",
            "es landline 3-3-3": f"{land[:3]} {land[3:6]} {land[6:]}",
            "es landline dashes": f"{land[:2]}-{land[2:5]}-{land[5:7]}-{land[7:]}",
        }[form]
    if form.startswith("uk"):
        tail = f"{rng.randint(100, 999)}"
        return {
            "uk mobile": f"07700 900{tail}",
            "uk +44": f"+44 7700 900{tail}",
            "uk london": f"020 7946 0{tail}",
        }[form]
    if form.startswith("us"):
        area = pick(["415", "212", "646", "312", "617", "206"])
        tail = f"01{rng.randint(10, 99)}"
        return {
            "us (area)": f"({area}) 555-{tail}",
            "us dashes": f"{area}-555-{tail}",
            "us dots": f"{area}.555.{tail}",
            "us +1": f"+1 {area} 555 {tail}",
        }[form]
    return {
        "intl fr": f"+33 6 {d(2)} {d(2)} {d(2)} {d(2)}",
        "intl de": f"+49 151 {d(8)}",
        "intl mx": f"+52 55 {d(4)} {d(4)}",
        "intl pt": f"+351 912 {d(3)} {d(3)}",
    }[form]


def an_iban(country: str) -> str:
    if country == "ES":
        bank, branch, acct = pick(["2100", "0049", "0182", "2080", "0081"]), d(4), d(10)
        ck = ccc.calc_check_digits(bank + branch + "00" + acct)
        body = bank + branch + ck + acct
    else:
        body = {
            "DE": lambda: d(18),
            "FR": lambda: d(23),
            "PT": lambda: d(21),
            "GB": lambda: pick(["NWBK", "BARC", "HBUK", "LOYD"]) + d(14),
            "NL": lambda: pick(["ABNA", "INGB", "RABO"]) + d(10),
            "IE": lambda: pick(["AIBK", "BOFI"]) + d(14),
            "IT": lambda: pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + d(22),
        }[country]()
    return country + iban.calc_check_digits(country + "00" + body) + body


def iban_form(form: str) -> str:
    country = {"gb spaced": "GB", "de spaced": "DE", "fr spaced": "FR", "pt compact": "PT",
               "nl spaced": "NL", "ie spaced": "IE",
               "it compact": "IT"}.get(form, "ES")  # fmt: skip
    v = an_iban(country)
    groups = [v[i : i + 4] for i in range(0, len(v), 4)]
    return {
        "compact": v,
        "spaced": " ".join(groups),
        "dots": ".".join(groups),
        "slashes": "/".join(groups),
        "dashes": "-".join(groups),
        "lower compact": v.lower(),
        "lower spaced": " ".join(groups).lower(),
        "gb spaced": " ".join(groups),
        "de spaced": " ".join(groups),
        "fr spaced": " ".join(groups),
        "pt compact": v,
        "nl spaced": " ".join(groups),
        "ie spaced": " ".join(groups),
        "it compact": v,
    }[form]


def a_ccc(form: str) -> str:
    bank, branch, acct = pick(["2100", "0049", "0182", "2080"]), d(4), d(10)
    ck = ccc.calc_check_digits(bank + branch + "00" + acct)
    return {
        "4-4-2-10": f"{bank} {branch} {ck} {acct}",
        "dashes": f"{bank}-{branch}-{ck}-{acct}",
        "compact": f"{bank}{branch}{ck}{acct}",
    }[form]


def a_card(form: str) -> str:
    if form.startswith("amex"):
        body = pick(["34", "37"]) + d(12)
        c = body + luhn.calc_check_digit(body)
        return f"{c[:4]} {c[4:10]} {c[10:]}" if form == "amex 4-6-5" else c
    body = pick(["4", "4", "51", "53", "55", "6011"])
    body += d(15 - len(body))
    c = body + luhn.calc_check_digit(body)
    g = [c[i : i + 4] for i in range(0, 16, 4)]
    return {"spaced": " ".join(g), "dots": ".".join(g), "dashes": "-".join(g),
            "compact": c}[form]  # fmt: skip


def a_dni(form: str) -> str:
    n = str(rng.randint(10_000_000, 99_999_999))
    c = dni.calc_check_digit(n)
    return {
        "compact": n + c,
        "dash": f"{n}-{c}",
        "dots dash": f"{n[:2]}.{n[2:5]}.{n[5:]}-{c}",
        "dots": f"{n[:2]}.{n[2:5]}.{n[5:]}{c}",
        "space": f"{n} {c}",
        "lower": n + c.lower(),
    }[form]


def a_nie(form: str) -> str:
    head = pick(["X", "Y", "Z"]) + d(7)
    c = nie.calc_check_digit(head)
    return {
        "compact": head + c,
        "dashes": f"{head[0]}-{head[1:]}-{c}",
        "lower": (head + c).lower(),
        "spaces": f"{head[0]} {head[1:]} {c}",
    }[form]


def an_ssn(form: str) -> str:
    area = rng.choice([n for n in range(1, 900) if n != 666])
    g, s = rng.randint(1, 99), rng.randint(1, 9999)
    a, gg, ss = f"{area:03d}", f"{g:02d}", f"{s:04d}"
    return {"dashes": f"{a}-{gg}-{ss}", "spaces": f"{a} {gg} {ss}", "compact": a + gg + ss}[form]


def a_nss(form: str) -> str:
    prov = rng.randint(1, 52)
    num = rng.randint(10_000_000, 99_999_999)
    ck = int(f"{prov:02d}{num:08d}") % 97
    p, n, c = f"{prov:02d}", f"{num:08d}", f"{ck:02d}"
    return {"slashes": f"{p}/{n}/{c}", "spaces": f"{p} {n} {c}", "dashes": f"{p}-{n}-{c}",
            "compact": p + n + c}[form]  # fmt: skip


LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"


def a_passport(form: str) -> str:
    es = "".join(rng.choice(LETTERS) for _ in range(3)) + d(6)
    return {
        "es spaced": f"{es[:3]} {es[3:]}",
        "es compact": es,
        "us letter+8": pick(["A", "C", "E"]) + d(8),
        "nine digits": str(rng.randint(100_000_000, 999_999_999)),
    }[form]


PLATE = "BCDFGHJKLMNPRSTVWXYZ"


def a_plate(form: str) -> str:
    n = f"{rng.randint(1000, 9999)}"
    letters = "".join(rng.choice(PLATE) for _ in range(3))
    if form.startswith("old"):
        prov = pick(["M", "B", "MA", "SE", "V", "GR", "BI", "Z"])
        two = "".join(rng.choice("BCDFGHJKLMNPRSTVWXYZ") for _ in range(2))
        return {"old dashes": f"{prov}-{n}-{two}", "old spaces": f"{prov} {n} {two}"}[form]
    if form == "uk":
        return (
            "".join(rng.choice("ABCDEFGHKLMNOPRSTVWY") for _ in range(2))
            + f"{rng.randint(10, 75)} "
            + "".join(rng.choice("ABCDEFGHJKLMNOPRSTUVWXYZ") for _ in range(3))
        )
    return {"space": f"{n} {letters}", "dash": f"{n}-{letters}", "compact": n + letters,
            "lower": f"{n} {letters.lower()}"}[form]  # fmt: skip


def an_ip(form: str) -> str:
    if form == "v4 public":
        return f"{pick(['83', '88', '79', '2', '185', '90'])}.{rng.randint(11, 254)}." \
               f"{rng.randint(11, 254)}.{rng.randint(2, 254)}"  # fmt: skip
    if form == "v4 private":
        return f"192.168.{rng.randint(0, 9)}.{rng.randint(100, 254)}"
    h = lambda: f"{rng.randint(0x1000, 0xFFFF):x}"  # noqa: E731
    return {
        "v6 compressed": f"2a0c:{h()}:{h()}:{h()}::{rng.randint(1, 99)}",
        "v6 full": ":".join(h() for _ in range(8)),
        "v6 link-local": f"fe80::{h()}:{h()}:{h()}:{h()}",
    }[form]


ES_STREETS = """Mayor Alcalá Sierpes Tetuán Arenal Princesa Fuencarral Hortaleza Atocha Preciados
Embajadores Toledo Segovia Lagasca Velázquez Goya Argumosa Zurbano""".split()
ES_STREET_FORMS = [
    ("calle", "Calle {N} {n}"),
    ("c/ with floor", "c/ {N}, {n}, {p}º {l}"),
    ("C/ no space", "C/{N} {n}"),
    ("avda", "Avda. de {N} {n}"),
    ("lower avenida", "avenida {nl} {n}"),
    ("plaza", "Pza. de {N} {n}"),
    ("paseo", "Paseo de {N} {n}, bajo"),
    ("lower calle nº", "calle {nl} nº {n}"),
    ("carrer", "Carrer de {N} {n}"),
    ("rúa", "Rúa {N} {n}"),
]
EN_STREETS = """Baker Kingsway Hollybush Marlowe Ferndale Ashgrove Beckett Carrington Highfield
Wyndham Larkspur Chestnut Foxglove Ravenscroft""".split()
EN_STREET_FORMS = [
    ("street", "{n} {N} Street"),
    ("road abbrev", "{n} {N} Rd"),
    ("flat, road", "Flat {f}, {n} {N} Road"),
    ("apt, avenue", "Apt {f}B, {n} {N} Avenue"),
    ("lane", "{n}B {N} Lane"),
    ("lower st", "{n} {nl} st"),
    ("close", "{n} {N} Close"),
]


def an_address(form: str) -> str:
    if form.startswith("en "):
        template = dict(EN_STREET_FORMS)[form[3:]]
        name = pick(EN_STREETS)
        n, f = rng.randint(3, 240), rng.randint(1, 9)
        return template.format(n=n, N=name, nl=name.lower(), f=f)
    template = dict(ES_STREET_FORMS)[form[3:]]
    name = pick(ES_STREETS)
    return template.format(
        n=rng.randint(3, 190), N=name, nl=name.lower(), p=rng.randint(1, 9), l=pick("ABCD")
    )


ES_CITIES = [("28013", "Madrid"), ("08007", "Barcelona"), ("41004", "Sevilla"),
             ("46002", "Valencia"), ("48001", "Bilbao"), ("29015", "Málaga"),
             ("15704", "Santiago"), ("30001", "Murcia")]  # fmt: skip
UK_POSTCODES = ["SW1A 2AA", "NW1 6XE", "M1 1AE", "EC1A 1BB", "B33 8TH", "LS1 4AP", "G2 3BZ"]
US_ZIPS = [("Austin", "TX", "78701"), ("Denver", "CO", "80202"), ("Seattle", "WA", "98101"),
           ("Boston", "MA", "02108")]  # fmt: skip

ES_MONTHS = """enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre
diciembre""".split()
EN_MONTHS = """January February March April May June July August September October November
December""".split()


def a_birth_date(form: str) -> str:
    y = rng.randint(1948, 2003)
    day, m = rng.randint(1, 28), rng.randint(1, 12)
    return {
        "es words": f"{day} de {ES_MONTHS[m - 1]} de {y}",
        "es slashes": f"{day:02d}/{m:02d}/{y}",
        "es dashes": f"{day:02d}-{m:02d}-{y}",
        "es dots": f"{day:02d}.{m:02d}.{y}",
        "es recent words": f"{day} de {ES_MONTHS[m - 1]} de {rng.randint(2012, 2022)}",
        "en iso": f"{y}-{m:02d}-{day:02d}",
        "en month first": f"{EN_MONTHS[m - 1]} {day}, {y}",
        "en ordinal": f"{day}th {EN_MONTHS[m - 1]} {y}",
        "en short year": f"{day:02d}/{m:02d}/{y % 100:02d}",
        "en abbrev": f"{day} {EN_MONTHS[m - 1][:3]} {y}",
    }[form]


def a_cvv(form: str) -> str:
    return str(rng.randint(100, 999)) if form == "3" else str(rng.randint(1000, 9999))


def an_expiry(form: str) -> str:
    m, y = rng.randint(1, 12), rng.randint(27, 31)
    return {"mm/yy": f"{m:02d}/{y}", "mm/yyyy": f"{m:02d}/20{y}", "mm-yy": f"{m:02d}-{y}"}[form]


def an_email(form: str) -> str:
    f, last = fold(pick(ES_FIRST + EN_FIRST)), fold(pick(ES_LAST + EN_LAST)).replace("'", "")
    host = pick(["gmail.com", "hotmail.es", "yahoo.es", "outlook.com", "icloud.com"])
    return {
        "plain": f"{f}.{last}@{host}",
        "upper": f"{f}.{last}@{host}".upper(),
        "mixed case company": (
            f"{f.capitalize()}.{last.capitalize()}@Reformas{last.capitalize()}.es"
        ),
        "plus tag": f"{f}{last[:3]}+pedidos@{host}",
        "digits underscore": f"{f[0]}{last}_{rng.randint(60, 99)}@{host}",
        "subdomain": f"{f[0]}.{last}@alumnos.upm.es",
        "co.uk": f"{f}.{last}{rng.randint(1, 9)}@btinternet.co.uk",
        "arroba punto": f"{f} punto {last} arroba gmail punto com",
        "at dot": f"{f}.{last} at outlook dot com",
        "[at] [dot]": f"{f}.{last} [at] gmail [dot] com",
        "(arroba)": f"{f}{last}(arroba)hotmail.com",
        "spaces around @": f"{f}.{last} @ gmail.com",
        "angle brackets": f"<{f}.{last}@{host}>",
    }[form]


# --- sentences ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class T:
    """A sentence carrying one planted value: its kind, form, language, text ({v} the value)."""

    kind: str
    form: str
    lang: str
    text: str
    make: Callable[[], str]
    last: bool = False  # a sign-off: it ends the message


def _t(kind: str, lang: str, items: list[tuple[str, str, Callable[[], str]]],
       last: bool = False) -> list[T]:  # fmt: skip
    return [T(kind, form, lang, text, make, last) for form, text, make in items]


def lower(f: Callable[[], str]) -> Callable[[], str]:
    return lambda: f().lower()


def first_es() -> str:
    return pick(ES_FIRST)


def first_en() -> str:
    return pick(EN_FIRST)


SENTENCES: list[T] = [
    *_t("person", "es", [
        ("me llamo, lower case", "me llamo {v} y soy clienta vuestra desde hace años.",
         lower(es_name)),
        ("soy, capitals", "Soy {v}, os escribí ayer.", es_name),
        ("mi nombre es, three parts", "Mi nombre es {v} y el pedido está a mi nombre.",
         lambda: es_name(3)),
        ("soy, lower first name", "hola soy {v}, a ver si me podéis ayudar.", lower(first_es)),
        ("relative", "Mi marido {v} hizo el pedido desde su móvil.", first_es),
        ("relative lower", "mi hija {v} dice que el repartidor no llamó.", lower(first_es)),
        ("a nombre de", "El paquete venía a nombre de {v}.", es_name),
        ("de parte de", "Le escribo de parte de {v}, que no tiene ordenador.", es_name),
        ("title", "Pregunten por la Sra. {v} en recepción.", lambda: pick(ES_LAST)),
        ("al habla", "{v} al habla: sigo esperando.", es_name),
    ]),  # fmt: skip
    *_t("person", "es", [
        ("sign-off lower first name", "Un saludo,\n{v}", lower(first_es)),
        ("sign-off lower full name", "Gracias,\n{v}", lower(es_name)),
        ("sign-off capitals", "Atentamente,\n{v}", lambda: es_name(3)),
        ("sign-off same line lower", "Saludos, {v}", lower(first_es)),
    ], last=True),  # fmt: skip
    *_t("person", "en", [
        ("my name is, lower case", "my name is {v} and I ordered last week.", lower(en_name)),
        ("I'm, capitals", "I'm {v}, I wrote to you yesterday.", en_name),
        ("this is", "This is {v} from the flat upstairs.", first_en),
        ("relative", "My wife, {v}, placed the order on her phone.", first_en),
        ("relative lower", "my son {v} says nobody knocked.", lower(first_en)),
        ("title", "Please ask for Mrs {v} at reception.", lambda: pick(EN_LAST)),
        ("here", "{v} here, still waiting on this.", en_name),
        ("under the name", "It's under the name {v}.", en_name),
        ("on behalf of", "I'm writing on behalf of {v}, who has no email.", en_name),
    ]),  # fmt: skip
    *_t("person", "en", [
        ("sign-off lower first name", "Cheers,\n{v}", lower(first_en)),
        ("sign-off lower full name", "Kind regards,\n{v}", lower(en_name)),
        ("sign-off capitals", "Thanks,\n{v}", en_name),
        ("sign-off same line lower", "Best, {v}", lower(first_en)),
    ], last=True),  # fmt: skip
    *_t("email", "es", [
        (form, text, lambda form=form: an_email(form))
        for form, text in [
            ("plain", "Mi correo es {v}, por si acaso."),
            ("upper", "escribidme a {v} por favor"),
            ("mixed case company", "La factura a {v}, que es el de la empresa."),
            ("plus tag", "Uso {v} para las compras."),
            ("digits underscore", "el mail es {v}"),
            ("subdomain", "Contestad a {v}, que el otro no lo miro."),
            ("arroba punto", "mi correo: {v}"),
            ("(arroba)", "Escribid a {v} y os paso fotos."),
            ("spaces around @", "correo {v}"),
        ]
    ]),
    *_t("email", "en", [
        (form, text, lambda form=form: an_email(form))
        for form, text in [
            ("plain", "My email is {v} if you need it."),
            ("upper", "please reply to {v}"),
            ("co.uk", "Send the label to {v}."),
            ("at dot", "you can write to {v} as well"),
            ("[at] [dot]", "Contact: {v}"),
            ("angle brackets", "From: {v}"),
            ("plus tag", "I signed up with {v}."),
        ]
    ]),
    *_t("phone", "es", [
        (form, text, lambda form=form: a_phone(form))
        for form, text in [
            ("es compact", "Llamadme al {v} por la tarde."),
            ("es 3-3-3", "mi móvil es {v}"),
            ("es 3-2-2-2", "Teléfono: {v}."),
            ("es dashes", "Me podéis llamar al {v}."),
            ("es dots", "tlf {v}"),
            ("es +34 spaced", "Desde fuera de España: {v}."),
            ("es +34 compact", "whatsapp {v}"),
            ("es 0034", "Estoy en el extranjero, llamad al {v}."),
            ("es (+34)", "Mi número: {v}"),
            ("es landline 2-3-2-2", "En casa estoy en el {v}."),
            ("es landline 3-3-3", "El fijo es el {v}."),
            ("es landline dashes", "o al fijo {v}"),
            ("intl fr", "Ahora vivo en Francia, mi número es {v}."),
            ("intl mx", "Llamen a mi hermana al {v}."),
            ("intl pt", "o al {v}, que es el de mi madre"),
        ]
    ]),
    *_t("phone", "en", [
        (form, text, lambda form=form: a_phone(form))
        for form, text in [
            ("uk mobile", "Call me on {v} after six."),
            ("uk +44", "My number is {v}."),
            ("uk london", "Office line: {v}"),
            ("us (area)", "You can reach me at {v}."),
            ("us dashes", "cell {v}"),
            ("us dots", "Phone: {v}"),
            ("us +1", "From abroad it's {v}."),
            ("intl de", "I'm in Berlin this week, {v}."),
            ("es +34 spaced", "My Spanish number is {v}."),
            ("es 3-3-3", "text me at {v}"),
        ]
    ]),
    *_t("iban", "es", [
        (form, text, lambda form=form: iban_form(form))
        for form, text in [
            ("spaced", "Mi IBAN es {v}."),
            ("dots", "IBAN: {v}"),
            ("slashes", "El IBAN {v} es el de mi cuenta nueva."),
            ("dashes", "Devolvedlo al IBAN {v}."),
            ("compact", "cuenta {v}"),
            ("lower compact", "ingresadlo en {v} porfa"),
            ("spaced", "Os paso la cuenta: {v}."),
            ("dots", "Hacedme la transferencia a {v}."),
            ("slashes", "Número de cuenta {v}"),
            ("pt compact", "La cuenta es portuguesa: {v}."),
            ("fr spaced", "Mi banco es francés, {v}."),
            ("lower spaced", "iban {v}"),
        ]
    ]),
    *_t("iban", "en", [
        (form, text, lambda form=form: iban_form(form))
        for form, text in [
            ("gb spaced", "My IBAN is {v}."),
            ("de spaced", "Please refund to {v}."),
            ("nl spaced", "Bank account: {v}"),
            ("ie spaced", "IBAN {v}"),
            ("it compact", "Send it to {v}, it's my Italian account."),
            ("dots", "IBAN {v}"),
            ("slashes", "the account is {v}"),
            ("compact", "Refund to {v} please."),
        ]
    ]),
    *_t("bank account", "es", [
        (form, text, lambda form=form: a_ccc(form))
        for form, text in [
            ("4-4-2-10", "Mi número de cuenta es {v}."),
            ("dashes", "cuenta {v}"),
            ("4-4-2-10", "Ingresadlo en la {v}, que es de La Caixa."),
            ("compact", "C/C {v}"),
            ("4-4-2-10", "Os dejo la cuenta antigua: {v}."),
        ]
    ]),
    *_t("card", "es", [
        (form, text, lambda form=form: a_card(form))
        for form, text in [
            ("spaced", "Pagué con la tarjeta {v}."),
            ("dots", "La tarjeta es {v}."),
            ("dashes", "Visa {v}"),
            ("compact", "tarjeta {v}"),
            ("dots", "me cobraron en la {v}"),
            ("amex 4-6-5", "Usé la American Express {v}."),
            ("spaced", "El cargo salió de {v}."),
        ]
    ]),
    *_t("card", "en", [
        (form, text, lambda form=form: a_card(form))
        for form, text in [
            ("spaced", "I paid with {v}."),
            ("dots", "Card number {v}"),
            ("dashes", "Mastercard {v}"),
            ("compact", "card {v}"),
            ("amex 4-6-5", "It went on my Amex, {v}."),
            ("dots", "charged to {v}"),
        ]
    ]),
    *_t("card security code", "es", [
        ("3", "El CVV es {v}.", lambda: a_cvv("3")),
        ("3", "código de seguridad {v}", lambda: a_cvv("3")),
        ("3", "CVC: {v}", lambda: a_cvv("3")),
        ("3", "los tres números de atrás son {v}", lambda: a_cvv("3")),
        ("3", "cvv {v}", lambda: a_cvv("3")),
    ]),  # fmt: skip
    *_t("card security code", "en", [
        ("3", "CVV {v}", lambda: a_cvv("3")),
        ("4", "the security code is {v}", lambda: a_cvv("4")),
        ("3", "CVC: {v}.", lambda: a_cvv("3")),
        ("3", "cvv2 {v}", lambda: a_cvv("3")),
        ("3", "the 3 digits on the back are {v}", lambda: a_cvv("3")),
    ]),  # fmt: skip
    *_t("card expiry", "es", [
        ("mm/yy", "caduca el {v}", lambda: an_expiry("mm/yy")),
        ("mm/yyyy", "Fecha de caducidad {v}.", lambda: an_expiry("mm/yyyy")),
        ("mm/yy", "vence en {v}", lambda: an_expiry("mm/yy")),
        ("mm-yy", "cad. {v}", lambda: an_expiry("mm-yy")),
    ]),  # fmt: skip
    *_t("card expiry", "en", [
        ("mm/yy", "exp {v}", lambda: an_expiry("mm/yy")),
        ("mm/yyyy", "expiry date {v}", lambda: an_expiry("mm/yyyy")),
        ("mm/yy", "valid thru {v}", lambda: an_expiry("mm/yy")),
        ("mm/yy", "it expires {v}.", lambda: an_expiry("mm/yy")),
    ]),  # fmt: skip
    *_t("national id", "es", [
        ("dni compact, cue", "Mi DNI es {v}.", lambda: a_dni("compact")),
        ("dni dots dash, no cue", "Os paso mis datos: {v}.", lambda: a_dni("dots dash")),
        ("dni dots dash, cue", "DNI {v}", lambda: a_dni("dots dash")),
        ("dni dash, no cue", "el titular es el {v}", lambda: a_dni("dash")),
        ("dni dots, no cue", "Titular: {v}.", lambda: a_dni("dots")),
        ("dni space, cue", "NIF: {v}", lambda: a_dni("space")),
        ("dni lower, no cue", "a ver si con esto vale: {v}", lambda: a_dni("lower")),
        ("dni compact, no cue", "Con el {v} debería salir.", lambda: a_dni("compact")),
        ("nie dashes, no cue", "Mi número es {v}, por si lo necesitáis.", lambda: a_nie("dashes")),
        ("nie compact, cue", "NIE {v}", lambda: a_nie("compact")),
        ("nie lower, no cue", "tengo el {v}", lambda: a_nie("lower")),
        ("nie spaces, cue", "mi NIE: {v}", lambda: a_nie("spaces")),
        ("nie dashes, cue", "documento {v}", lambda: a_nie("dashes")),
        ("dni dots dash, documento", "Documento de identidad: {v}.", lambda: a_dni("dots dash")),
    ]),  # fmt: skip
    *_t("national id", "en", [
        ("nie compact, cue", "My NIE is {v}.", lambda: a_nie("compact")),
        ("dni dash, cue", "Spanish ID {v}", lambda: a_dni("dash")),
        ("nie dashes, no cue", "Here is my number: {v}", lambda: a_nie("dashes")),
        ("dni dots dash, no cue", "for verification: {v}", lambda: a_dni("dots dash")),
        ("dni compact, no cue", "it should show {v} on the account", lambda: a_dni("compact")),
    ]),  # fmt: skip
    *_t("us ssn", "en", [
        ("dashes, no cue", "My tax form shows {v}.", lambda: an_ssn("dashes")),
        ("dashes, cue", "SSN {v}", lambda: an_ssn("dashes")),
        ("spaces, cue", "social security number {v}", lambda: an_ssn("spaces")),
        ("compact, cue", "SSN: {v}", lambda: an_ssn("compact")),
        ("dashes, cue", "my social is {v}", lambda: an_ssn("dashes")),
        ("spaces, no cue", "the number they asked for is {v}", lambda: an_ssn("spaces")),
    ]),  # fmt: skip
    *_t("us ssn", "es", [
        ("dashes, cue", "Mi SSN de Estados Unidos es {v}.", lambda: an_ssn("dashes")),
        ("dashes, no cue", "el número americano: {v}", lambda: an_ssn("dashes")),
    ]),  # fmt: skip
    *_t("es social security", "es", [
        ("slashes, cue", "Nº de la Seguridad Social {v}.", lambda: a_nss("slashes")),
        ("slashes, no cue", "os adjunto el {v} como pedisteis", lambda: a_nss("slashes")),
        ("spaces, cue", "NSS {v}", lambda: a_nss("spaces")),
        ("dashes, cue", "número de afiliación {v}", lambda: a_nss("dashes")),
        ("compact, cue", "NUSS: {v}", lambda: a_nss("compact")),
        ("spaces, no cue", "Mi número: {v}.", lambda: a_nss("spaces")),
        ("slashes, cue", "mi número de la seguridad social es {v}", lambda: a_nss("slashes")),
    ]),  # fmt: skip
    *_t("es social security", "en", [
        ("slashes, cue", "My Spanish social security number is {v}.", lambda: a_nss("slashes")),
        ("spaces, no cue", "the reference on my payslip is {v}", lambda: a_nss("spaces")),
    ]),  # fmt: skip
    *_t("passport", "es", [
        ("n.º spaced", "pasaporte n.º {v}", lambda: a_passport("es spaced")),
        ("nº compact", "Pasaporte nº {v}.", lambda: a_passport("es compact")),
        ("número spaced", "mi número de pasaporte es {v}", lambda: a_passport("es spaced")),
        ("núm. compact", "Núm. pasaporte: {v}", lambda: a_passport("es compact")),
        ("no cue compact", "viajo con el {v}", lambda: a_passport("es compact")),
        ("pasaporte nine digits", "pasaporte {v} (británico)", lambda: a_passport("nine digits")),
    ]),  # fmt: skip
    *_t("passport", "en", [
        ("passport no.", "Passport no. {v}", lambda: a_passport("nine digits")),
        ("passport number us", "my passport number is {v}", lambda: a_passport("us letter+8")),
        ("passport spaced es", "Spanish passport {v}", lambda: a_passport("es spaced")),
        ("passport:", "passport: {v}", lambda: a_passport("es compact")),
    ]),  # fmt: skip
    *_t("licence plate", "es", [
        ("space, cue", "La matrícula es {v}.", lambda: a_plate("space")),
        ("dash, no cue", "Aparqué el {v} en vuestro parking.", lambda: a_plate("dash")),
        ("compact, cue", "matrícula {v}", lambda: a_plate("compact")),
        ("space, no cue", "El coche ({v}) tiene el golpe delante.", lambda: a_plate("space")),
        ("old dashes, no cue", "el coche viejo, un {v}", lambda: a_plate("old dashes")),
        ("old spaces, cue", "matrícula antigua {v}", lambda: a_plate("old spaces")),
        ("lower, cue", "matricula {v}", lambda: a_plate("lower")),
        ("old dashes, cue", "Matrícula: {v}", lambda: a_plate("old dashes")),
        ("dash, cue", "la furgoneta con matrícula {v}", lambda: a_plate("dash")),
    ]),  # fmt: skip
    *_t("licence plate", "en", [
        ("uk, cue", "My reg is {v}.", lambda: a_plate("uk")),
        ("uk, number plate", "number plate {v}", lambda: a_plate("uk")),
        ("spanish space, no cue", "the hire car, {v}, was damaged", lambda: a_plate("space")),
        ("uk, no cue", "the van ({v}) was parked outside", lambda: a_plate("uk")),
        ("spanish dash, cue", "licence plate {v}", lambda: a_plate("dash")),
    ]),  # fmt: skip
    *_t("ip address", "es", [
        ("v4 public, cue", "Mi IP es {v}.", lambda: an_ip("v4 public")),
        ("v4 private, no cue", "el router da {v}", lambda: an_ip("v4 private")),
        ("v6 compressed, cue", "desde la IP {v}", lambda: an_ip("v6 compressed")),
        ("v4 public, no cue", "entré desde {v} y me echó", lambda: an_ip("v4 public")),
        ("v6 full, no cue", "sale {v} en el registro", lambda: an_ip("v6 full")),
        ("v4 public, cue", "dirección IP: {v}", lambda: an_ip("v4 public")),
    ]),  # fmt: skip
    *_t("ip address", "en", [
        ("v4 public, cue", "my IP address is {v}", lambda: an_ip("v4 public")),
        ("v6 link-local, no cue", "the log says {v}", lambda: an_ip("v6 link-local")),
        ("v4 public, no cue", "blocked from {v} again", lambda: an_ip("v4 public")),
        ("v6 compressed, cue", "IP: {v}", lambda: an_ip("v6 compressed")),
        ("v4 private, cue", "local IP {v}", lambda: an_ip("v4 private")),
    ]),  # fmt: skip
    *_t("address", "es", [
        (f"es {form}", text, lambda form=form: an_address(f"es {form}"))
        for form, text in [
            ("calle", "Vivo en {v}."),
            ("c/ with floor", "Enviadlo a {v}."),
            ("C/ no space", "La dirección es {v}."),
            ("avda", "Entregadlo en {v}."),
            ("lower avenida", "estoy en {v}"),
            ("plaza", "Recogida en {v}."),
            ("paseo", "Mi casa: {v}."),
            ("lower calle nº", "vivo en la {v}"),
            ("carrer", "Adreça: {v}."),
            ("rúa", "Mándenlo a {v}."),
            ("calle", "Lo dejaron en {v} y no es mi casa."),
        ]
    ]),
    *_t("address", "en", [
        (f"en {form}", text, lambda form=form: an_address(f"en {form}"))
        for form, text in [
            ("street", "I live at {v}."),
            ("road abbrev", "Deliver to {v}."),
            ("flat, road", "My address is {v}."),
            ("apt, avenue", "Ship it to {v}."),
            ("lane", "It was left at {v}."),
            ("lower st", "send it to {v}"),
            ("close", "New address: {v}."),
        ]
    ]),
    *_t("postcode", "es", [
        ("cp + city", "{v} Madrid", lambda: "28013"),
        ("C.P. cue", "C.P. {v}", lambda: pick([c for c, _ in ES_CITIES])),
        ("código postal", "código postal {v}", lambda: pick([c for c, _ in ES_CITIES])),
        ("cp, city", "{v}, Sevilla", lambda: "41004"),
        ("cp + city", "{v} Bilbao", lambda: "48001"),
    ]),  # fmt: skip
    *_t("postcode", "en", [
        ("uk", "London {v}", lambda: pick(UK_POSTCODES)),
        ("uk lower", "postcode {v}", lambda: pick(UK_POSTCODES).lower()),
        ("us state zip", "Austin, TX {v}", lambda: "78701"),
        ("zip cue", "zip code {v}", lambda: pick(["98101", "80202", "02108"])),
        ("uk no space", "Glasgow {v}", lambda: "G23BZ"),
    ]),  # fmt: skip
    *_t("birth date", "es", [
        ("es words", "Nací el {v}.", lambda: a_birth_date("es words")),
        ("es slashes", "fecha de nacimiento: {v}", lambda: a_birth_date("es slashes")),
        ("es dashes", "F. nac. {v}", lambda: a_birth_date("es dashes")),
        ("es dots", "nacida el {v}", lambda: a_birth_date("es dots")),
        ("es recent words, nació", "Mi hijo nació el {v}.",
         lambda: a_birth_date("es recent words")),
        ("es slashes, cumpleaños", "mi cumpleaños es el {v}", lambda: a_birth_date("es slashes")),
        ("es slashes, no cue old", "Titular: mi padre, {v}.", lambda: a_birth_date("es slashes")),
    ]),  # fmt: skip
    *_t("birth date", "en", [
        ("en iso", "DOB: {v}", lambda: a_birth_date("en iso")),
        ("en month first", "I was born on {v}.", lambda: a_birth_date("en month first")),
        ("en ordinal", "my birthday is {v}", lambda: a_birth_date("en ordinal")),
        ("en short year", "d.o.b. {v}", lambda: a_birth_date("en short year")),
        ("en abbrev", "date of birth {v}", lambda: a_birth_date("en abbrev")),
    ]),  # fmt: skip
]

# how many of each kind: every sentence template at least once, more for the common kinds
TARGET = {
    "person": 44, "email": 20, "phone": 30, "iban": 24, "bank account": 6, "card": 16,
    "card security code": 10, "card expiry": 8, "national id": 26, "us ssn": 10,
    "es social security": 11, "passport": 12, "licence plate": 16, "ip address": 14,
    "address": 22, "postcode": 10, "birth date": 16,
}  # fmt: skip

# --- the service's data: must survive -----------------------------------------------------------

ORDERS = ["order_17", "order_18", "order_203", "ORD-2026-004512", "PED-88213", "order_1042"]
AMOUNTS_ES = ["42,00 EUR", "1.299,00 €", "15,50 €", "89,90 €", "4200 céntimos", "12.000 EUR",
              "2 x 14,00 EUR"]  # fmt: skip
AMOUNTS_EN = ["42.00 EUR", "$1,249.99", "£18.50", "€89.90", "4200 minor units", "USD 310.00"]
DATES_ES = ["30/11/2026", "2026-11-30", "29 de noviembre", "3 de diciembre de 2026", "28/11"]
DATES_EN = ["November 28, 2026", "28 Nov 2026", "11/28/2026", "2026-11-30", "30th November"]
SKUS = ["SKU TSH-BLK-XL", "ref. 40-112-B", "modelo X200", "SKU ZAP-4471-NEG", "art. 7781/22"]
TICKETS = ["tkt_order_17", "op-tkt_order_17-refund", "INC-20931", "tkt_order_203"]
TIMES = ["10:30", "14:05", "10:42:07", "09:15 UTC"]
TENANTS = ["tenant_a", "Acme Retail", "Tienda Sol y Mar S.L."]
POLICIES = ["refund_v3", "refund_v2"]

KEEP_ES = [
    ("Escribo por el pedido {o} de {a} que hice el {de}.", "o a de"),
    ("El ticket {t} sigue abierto desde las {h}.", "t h"),
    ("Pedí el {s} ({a}) y llegó roto.", "s a"),
    ("Según la política {p} tengo 30 días para devolverlo.", "p"),
    ("El pedido {o} de {n} me lo cobraron el {de}.", "o n de"),
    ("La operación {t} salió con {a}.", "t a"),
]
KEEP_EN = [
    ("I'm writing about order {o} for {a}, placed on {dn}.", "o a dn"),
    ("Ticket {t} has been open since {h}.", "t h"),
    ("I ordered {s} ({a}) and it arrived damaged.", "s a"),
    ("Under {p} I should get the refund within 14 days.", "p"),
    ("Order {o} from {n} was charged on {dn}.", "o n dn"),
]


def keep_sentence(lang: str) -> tuple[str, list[str]]:
    template, slots = pick(KEEP_ES if lang == "es" else KEEP_EN)
    values = {
        "o": pick(ORDERS), "a": pick(AMOUNTS_ES if lang == "es" else AMOUNTS_EN),
        "de": pick(DATES_ES), "dn": pick(DATES_EN), "t": pick(TICKETS), "h": pick(TIMES),
        "s": pick(SKUS), "p": pick(POLICIES), "n": pick(TENANTS),
    }  # fmt: skip
    return template.format(**values), [values[s] for s in slots.split()]


GREET_ES = ["Hola,", "Buenas tardes,", "Buenos días:", "hola buenas", "Hola equipo,", ""]
GREET_EN = ["Hi,", "Hello there,", "Good morning,", "Hi team,", ""]

# messages with nothing personal in them, written to tempt the recognizers
NEGATIVES: list[tuple[str, list[str]]] = [
    ("Soy Cliente Premium desde 2019 y nunca me había pasado con el pedido order_17.",
     ["Cliente Premium", "2019", "order_17"]),
    ("This is Urgent: order order_17 is still not refunded. Call me tomorrow at 10:30.",
     ["Urgent", "order_17", "10:30"]),
    ("Un saludo, el equipo de Acme Retail", ["equipo de Acme Retail"]),
    ("Thanks, Support Team", ["Support Team"]),
    ("Gracias, de verdad.", ["de verdad"]),
    ("Thanks, appreciate it.", ["appreciate it"]),
    ("Un saludo y gracias de antemano.", ["gracias de antemano"]),
    ("Cheers, and have a good weekend.", ["have a good weekend"]),
    ("Regards,\nThe Support Team", ["The Support Team"]),
    ("Saludos,\nAtención al Cliente", ["Atención al Cliente"]),
    ("Me cobrasteis 1.250.000 EUR en vez de 1.250,00 EUR, revisadlo.",
     ["1.250.000 EUR", "1.250,00 EUR"]),
    ("La app (versión 10.0.19045.2965) se cierra al pagar; firmware 2.1.0.14 en el datáfono.",
     ["10.0.19045.2965", "2.1.0.14"]),
    ("Pedido registrado el 2026-11-30T10:42:07Z, reembolso a las 10:42:07.",
     ["2026-11-30T10:42:07Z", "10:42:07"]),
    ("I was charged 1200 GBP instead of 120 GBP, and 4500 MXN on the other card.",
     ["1200 GBP", "120 GBP", "4500 MXN"]),
    ("La referencia es 2026-11-30/17 y el ticket tkt_order_17.",
     ["2026-11-30/17", "tkt_order_17"]),
    ("Talla 42, color negro, modelo X200; el paquete pesa 2,5 kg y mide 30 x 40 x 15 cm.",
     ["Talla 42", "modelo X200", "30 x 40 x 15 cm"]),
    ("El repartidor lo dejó en la calle equivocada, dos portales más abajo.",
     ["calle equivocada"]),
    ("My husband says the parcel came on 29 November with the box crushed.",
     ["29 November"]),
    ("Mi marido dice que el paquete llegó abierto y faltaba el cargador.",
     ["Mi marido dice"]),
    ("Factura FAC-2026-0042 del 01/12/2026 por 310,00 EUR (IVA incluido).",
     ["FAC-2026-0042", "01/12/2026", "310,00 EUR"]),
    ("Invoice F-2026/00123 shows USD 310.00; tracking 1Z999AA10123456784.",
     ["F-2026/00123", "USD 310.00", "1Z999AA10123456784"]),
    ("Tenant tenant_a, policy refund_v3: refunds up to 500.00 EUR within 30 days of delivery.",
     ["tenant_a", "refund_v3", "500.00 EUR"]),
    ("Según refund_v3 los reembolsos de más de 300,00 EUR los aprueba una persona en 48 h.",
     ["refund_v3", "300,00 EUR", "48 h"]),
    ("The SKU ZAP-4471-NEG and ref. 40-112-B were both in order ORD-2026-004512.",
     ["ZAP-4471-NEG", "40-112-B", "ORD-2026-004512"]),
    ("Pedí 3 unidades del art. 7781/22 a 14,00 EUR cada una, total 42,00 EUR.",
     ["7781/22", "14,00 EUR", "42,00 EUR"]),
    ("Order PED-88213 was placed on 11/28/2026 at 14:05 and shipped on 12/01/2026.",
     ["PED-88213", "11/28/2026", "14:05", "12/01/2026"]),
    ("Hi, Support here. We refunded 42.00 EUR; reference op-tkt_order_17-refund.",
     ["Support here", "42.00 EUR", "op-tkt_order_17-refund"]),
    ("Hola, soy yo otra vez: el pedido order_18 sigue sin llegar desde el 28/11.",
     ["soy yo otra vez", "order_18", "28/11"]),
    ("I'm still waiting, it's been 12 days since order_1042 was confirmed.",
     ["12 days", "order_1042"]),
    ("Tienda Sol y Mar S.L. me devolvió 89,90 € pero faltan 15,50 € del envío.",
     ["Tienda Sol y Mar S.L.", "89,90 €", "15,50 €"]),
    ("El iPhone 15 Pro de 256 GB llegó con la pantalla rota; pedido order_203.",
     ["iPhone 15 Pro", "256 GB", "order_203"]),
    ("Your refund of 4200 minor units for order_17 is scheduled for 2026-12-02.",
     ["4200 minor units", "2026-12-02"]),
    ("Llamadme mañana a las 9:30 o el lunes; el pedido es el order_17 de 42,00 EUR.",
     ["9:30", "order_17", "42,00 EUR"]),
    ("The new app version is 4.12.3 and the order page shows 3 of 4 items refunded (75%).",
     ["4.12.3", "3 of 4", "75%"]),
    ("Dear Customer Service, the voucher code WINTER-2026 did not apply to order_18.",
     ["Customer Service", "WINTER-2026", "order_18"]),
    ("El código de descuento NAVIDAD25 no funcionó; pagué 120,00 EUR en vez de 90,00 EUR.",
     ["NAVIDAD25", "120,00 EUR", "90,00 EUR"]),
    ("Thanks,\nAcme Retail Customer Care", ["Acme Retail Customer Care"]),
    ("Atentamente,\nEl Departamento de Devoluciones", ["El Departamento de Devoluciones"]),
    ("Between 10:00 and 14:00 on 2026-12-03 the courier will try again (route 14-B).",
     ["10:00", "14:00", "2026-12-03", "route 14-B"]),
    ("El pedido salió del almacén de Getafe el 29/11/2026 a las 18:20.",
     ["Getafe", "29/11/2026", "18:20"]),
]  # fmt: skip


def _collides(text: str, planted: list[dict[str, str]], keep: list[str]) -> bool:
    """True when a planted value's identifying part also occurs outside the planted values."""
    rest = fold(text)
    for p in sorted(planted, key=lambda p: -len(p["value"])):
        rest = rest.replace(fold(p["value"]), " ")
    values = [fold(p["value"]) for p in planted]
    for p in planted:
        for part in parts(p["value"]):
            if re.search(rf"(?<![^\W_]){re.escape(part)}(?![^\W_])", rest):
                return True
            # another planted value holding this part would hide a leak of it
            if any(part in v for v in values if v != fold(p["value"])):
                return True
    return any(part in fold(k) for p in planted for part in parts(p["value"]) for k in keep)


def build_doc(lang: str, items: list[T], n: int) -> dict[str, Any]:
    for _ in range(200):
        greet = pick(GREET_ES if lang == "es" else GREET_EN)
        keep_text, keep = keep_sentence(lang)
        planted, body, tail = [], [], []
        for t in sorted(items, key=lambda t: t.last):
            v = t.make()
            sentence = t.text.replace("{v}", v)
            if not t.last and sentence[-1] not in ".:!?)" and rng.random() < 0.6:
                sentence += "."  # people end a sentence with a full stop, or not
            (tail if t.last else body).append(sentence)
            planted.append({"kind": t.kind, "value": v, "form": t.form})
        if lang == "es" and greet.endswith(","):
            keep_text = keep_text[0].lower() + keep_text[1:]  # "Hola, escribo por..."
        text = " ".join(x for x in (greet, keep_text, *body) if x)
        text = "\n".join([text, *tail])  # a sign-off on a line of its own, last
        if not _collides(text, planted, keep):
            return {"id": f"{lang}-{n:03d}", "lang": lang, "records": [], "text": text,
                    "planted": planted, "keep": keep}  # fmt: skip
    raise RuntimeError(f"no collision-free draw for {[t.form for t in items]}")


def planted_docs() -> list[dict[str, Any]]:
    by_kind: dict[str, list[T]] = {}
    for t in SENTENCES:
        by_kind.setdefault(t.kind, []).append(t)
    chosen: list[T] = []
    for kind, target in TARGET.items():
        templates = by_kind[kind]
        chosen += [templates[i % len(templates)] for i in range(max(target, len(templates)))]
    docs = []
    for lang in ("es", "en"):
        pool = [t for t in chosen if t.lang == lang]
        rng.shuffle(pool)
        # three values a message, at most one sign-off, and it ends the message
        groups: list[list[T]] = []
        endings = [t for t in pool if t.last]
        others = [t for t in pool if not t.last]
        while others or endings:
            group = others[:2] if endings else others[:3]
            others = others[len(group) :]
            if endings:
                group.append(endings.pop())
            groups.append(group)
        for group in groups:
            docs.append(build_doc(lang, group, len(docs) + 1))
    return docs


# a record's name, written alone or in part, as customers and agents write it
RECORDS = [
    ("María García-Lorca", "es", "hola, llamo por lo de la señora {lorca}: ¿ya tiene el reembolso "
     "del pedido order_17?", ["lorca"]),
    ("María García-Lorca", "es", "{García} dice que el pedido order_17 no ha llegado.",
     ["García"]),
    ("Ana Belén Ruiz-Tagle", "es", "Soy {belén}, la del pedido order_18; mi apellido es {Tagle} "
     "por si lo buscáis así.", ["belén", "Tagle"]),
    ("Ana Belén Ruiz-Tagle", "es", "buenas, {ruiz tagle} otra vez con lo del order_18",
     ["ruiz tagle"]),
    ("Jean-Pierre Dubois", "en", "Hi, it's {Jean} again about order_203.", ["Jean"]),
    ("Jean-Pierre Dubois", "en", "{pierre} here, did order_203 go through?", ["pierre"]),
    ("Siobhan O'Brien-Walsh", "en", "Ms {walsh} called about order_17 at 10:30.", ["walsh"]),
    ("Siobhan O'Brien-Walsh", "en", "Please update the account of {obrien} (order_17).",
     ["obrien"]),
    ("Siobhan O'Brien-Walsh", "en", "{SIOBHAN} WROTE AGAIN ABOUT ORDER_17", ["SIOBHAN"]),
    ("José Luis Sánchez-Vicario", "es", "el cliente {vicario} pide el reembolso de order_17",
     ["vicario"]),
    ("José Luis Sánchez-Vicario", "es", "{Jose Luis} llamó a las 14:05 por order_17.",
     ["Jose Luis"]),
    ("José Luis Sánchez-Vicario", "es", "Hablé con {sanchez} ayer sobre order_17.", ["sanchez"]),
    ("Mary-Jane Whitlock-Hayes", "en", "{Hayes} says the refund for order_18 never arrived.",
     ["Hayes"]),
    ("Mary-Jane Whitlock-Hayes", "en", "{mary jane} asked for a callback on order_18.",
     ["mary jane"]),
    ("Mary-Jane Whitlock-Hayes", "en", "Mrs {Whitlock} is the account holder of order_18.",
     ["Whitlock"]),
    ("Íñigo Martínez de Lizarduy", "es", "lo pidió {lizarduy} desde el móvil (order_203)",
     ["lizarduy"]),
    ("Íñigo Martínez de Lizarduy", "es", "Dice {inigo} que le llegó vacío el order_203.",
     ["inigo"]),
    ("Rocío Fernández-Aguado Peñalver", "es", "{Peñalver} no está conforme con order_17.",
     ["Peñalver"]),
    ("Rocío Fernández-Aguado Peñalver", "es", "la sra {aguado} ha vuelto a escribir (order_17)",
     ["aguado"]),
    ("Rocío Fernández-Aguado Peñalver", "es", "{FERNÁNDEZ} pregunta por el pedido order_17",
     ["FERNÁNDEZ"]),
]  # fmt: skip


def record_docs(start: int) -> list[dict[str, Any]]:
    docs = []
    for i, (name, lang, text, values) in enumerate(RECORDS):
        for v in values:
            text = text.replace("{" + v + "}", v)
        keep = [o for o in ("order_17", "order_18", "order_203") if o in text]
        keep += ["ORDER_17"] if "ORDER_17" in text else []
        docs.append({
            "id": f"rec-{start + i:03d}", "lang": lang, "records": [name], "text": text,
            "planted": [{"kind": "record name", "value": v, "form": "part written alone"}
                        for v in values],
            "keep": keep,
        })  # fmt: skip
    return docs


def negative_docs() -> list[dict[str, Any]]:
    docs = []
    for i, (text, keep) in enumerate(NEGATIVES):
        docs.append({"id": f"neg-{i + 1:03d}", "lang": "neg", "records": [], "text": text,
                     "planted": [], "keep": keep})  # fmt: skip
    for i in range(16):  # the service's data alone, as in the planted messages
        lang = "es" if i % 2 == 0 else "en"
        a, ka = keep_sentence(lang)
        b, kb = keep_sentence(lang)
        docs.append({"id": f"neg-{len(NEGATIVES) + i + 1:03d}", "lang": "neg", "records": [],
                     "text": f"{pick(GREET_ES if lang == 'es' else GREET_EN)} {a} {b}".strip(),
                     "planted": [], "keep": ka + kb})  # fmt: skip
    return docs


def main() -> None:
    docs = planted_docs()
    docs += record_docs(len(docs) + 1)
    docs += negative_docs()
    for doc in docs:
        for p in doc["planted"]:
            assert p["value"] in doc["text"], (doc["id"], p)
        for k in doc["keep"]:
            assert k in doc["text"], (doc["id"], k)
    with OUT.open("w", encoding="utf-8") as f:
        for doc in docs:
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    planted = [p for doc in docs for p in doc["planted"]]
    kinds = {p["kind"] for p in planted}
    keep = sum(len(doc["keep"]) for doc in docs)
    print(f"{OUT}: {len(docs)} messages, {len(planted)} planted values of {len(kinds)} kinds, "
          f"{keep} strings to keep")  # fmt: skip


if __name__ == "__main__":
    main()
