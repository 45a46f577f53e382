"""Writes corpus.yaml beside it: refund conversations in Spanish and English with personal data
planted in them (the values valid where a checksum exists: IBAN, DNI/NIE, cards), and the
service's own data (order ids, amounts, the conversation's dates) that must survive redaction.

    python tests/data/redaction/make_corpus.py   # seeded: the same file every time

Each document: `text`, `records` (names the transcript's records know, may be empty),
`planted` (kind, value: what must not survive), `keep` (what must survive verbatim)."""

from __future__ import annotations

import random
import unicodedata
from pathlib import Path
from typing import Any

import yaml
from stdnum import iban, luhn
from stdnum.es import dni, nie

rng = random.Random(19)


def digits(n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def spaced(s: str, n: int = 4) -> str:
    return " ".join(s[i : i + n] for i in range(0, len(s), n))


def an_iban(country: str) -> str:
    body = {
        "ES": lambda: digits(20),
        "DE": lambda: digits(18),
        "PT": lambda: digits(21),
        "GB": lambda: (
            "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(4)) + digits(14)
        ),
    }[country]()
    check = iban.calc_check_digits(country + "00" + body)
    return country + check + body


def a_dni(form: int) -> str:
    num = str(rng.randint(10_000_000, 99_999_999))
    letter = dni.calc_check_digit(num)
    return [num + letter, f"{num}-{letter}", f"{num[:2]}.{num[2:5]}.{num[5:]}-{letter}"][form % 3]


def a_nie() -> str:
    head = rng.choice("XYZ") + digits(7)
    return head + nie.calc_check_digit(head)


def a_card(form: int) -> str:
    prefix = rng.choice(["4", "51", "52", "55"])
    body = prefix + digits(15 - len(prefix))
    card = body + luhn.calc_check_digit(body)
    return [card, spaced(card), "-".join(card[i : i + 4] for i in range(0, 16, 4))][form % 3]


def a_passport_es() -> str:
    return "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(3)) + digits(6)


ES_NAMES = [
    ("José", "García Pérez"),
    ("María", "López Ruiz"),
    ("Íñigo", "Martínez"),
    ("Lucía", "Núñez"),
    ("Begoña", "Sánchez"),
    ("Álvaro", "Gómez"),
    ("Nuria", "Fernández"),
    ("Raúl", "Jiménez"),
    ("Pilar", "Moreno"),
    ("Andrés", "Muñoz"),
    ("Rocío", "Álvarez"),
    ("Joaquín", "Romero"),
    ("Inés", "Navarro"),
    ("Ramón", "Torres"),
    ("Sofía", "Domínguez"),
    ("Jesús", "Vázquez"),
    ("Marta", "Castaño"),
    ("Víctor", "Ortega"),
    ("Elena", "Rubio"),
    ("Tomás", "Molina"),
]
EN_NAMES = [
    ("Jane", "Doe"),
    ("Oliver", "Bennett"),
    ("Amelia", "Clarke"),
    ("Harry", "Whitfield"),
    ("Sophie", "Turner"),
    ("Liam", "O'Connor"),
    ("Grace", "Holloway"),
    ("Ethan", "Marsh"),
    ("Chloe", "Pemberton"),
    ("Noah", "Fairbanks"),
    ("Isla", "McAllister"),
    ("Jack", "Thornton"),
    ("Emily", "Ashworth"),
    ("George", "Hargreaves"),
    ("Ruby", "Kensington"),
    ("Mason", "Lytton"),
]
ES_STREETS = [
    "Calle Mayor {n}",
    "calle de Alcalá {n}, 3ºB",
    "Avenida de la Constitución {n}",
    "Plaza del Pilar {n}, 2º",
    "Paseo de Gracia {n}",
    "C/ Sierpes {n}, bajo",
    "Avda. Diagonal {n}",
    "Camino de Ronda {n}",
    "Rambla de Catalunya {n}",
    "Calle San Bernardo {n}, piso 4",
    "calle Tetuán {n}",
    "Travesía del Arenal {n}",
]
EN_STREETS = [
    "{n} Baker Street",
    "{n} Elm Road",
    "Flat 3, {n} Kingsway Avenue",
    "{n} Oak Lane",
    "{n} Willow Drive, Apt 5",
    "{n} Queen's Road",
    "{n} Maple Court",
    "{n} Hillside Crescent",
    "{n} Station Road",
    "{n} Park Place",
    "{n} Church Street",
    "{n} Ocean Boulevard",
]
ES_CITIES = [("28013", "Madrid"), ("08007", "Barcelona"), ("41004", "Sevilla"),
             ("46002", "Valencia"), ("50001", "Zaragoza"), ("29015", "Málaga")]  # fmt: skip
UK_POSTCODES = ["SW1A 1AA", "NW1 6XE", "M1 1AE", "EC1A 1BB", "B33 8TH", "CR2 6XH", "LS1 4AP"]
US_ZIPS = [("Springfield", "IL", "62704"), ("Austin", "TX", "78701"), ("Denver", "CO", "80202")]
ES_MONTHS = "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre".split()
EN_MONTHS = "January February March April May June July August September October".split()
KEEP_ES = [
    ("el pedido order_17 de 42,00 EUR del 30/11/2026", ["order_17", "42,00 EUR", "30/11/2026"]),
    ("el reembolso de 4200 céntimos del 2026-11-30", ["4200", "2026-11-30"]),
    ("el ticket tkt_order_17 abierto el 29 de noviembre", ["tkt_order_17", "29 de noviembre"]),
    (
        "la operación op-tkt_order_17-refund del pedido order_18",
        ["op-tkt_order_17-refund", "order_18"],
    ),  # fmt: skip
    (
        "los 15,50 € del pedido order_23, pagado el 28/11/2026",
        ["15,50 €", "order_23", "28/11/2026"],
    ),  # fmt: skip
]
KEEP_EN = [
    ("order order_17 for 42.00 EUR placed on 2026-11-30", ["order_17", "42.00 EUR", "2026-11-30"]),
    ("the refund of 4200 minor units on 30 November 2026", ["4200", "30 November 2026"]),
    ("ticket tkt_order_17 opened on November 29, 2026", ["tkt_order_17", "November 29, 2026"]),
    ("operation op-tkt_order_17-refund on order order_18", ["op-tkt_order_17-refund", "order_18"]),
    ("the $15.50 charge on order order_23 from 11/28/2026", ["$15.50", "order_23", "11/28/2026"]),
]


def es_doc(i: int) -> dict[str, Any]:
    first, last = ES_NAMES[i % len(ES_NAMES)]
    other, other_last = ES_NAMES[(i * 7 + 3) % len(ES_NAMES)]
    street = ES_STREETS[i % len(ES_STREETS)].format(n=rng.randint(1, 180))
    cp, city = ES_CITIES[i % len(ES_CITIES)]
    keep_text, keep = KEEP_ES[i % len(KEEP_ES)]
    mobile = f"6{digits(2)} {digits(3)} {digits(3)}"
    ib = an_iban(["ES", "ES", "DE", "PT"][i % 4])
    ib_text = spaced(ib) if i % 2 else ib
    intro = [
        f"me llamo {first.lower()} {last.split()[0].lower()}",
        f"soy {first} {last}",
        f"Hola, aquí {first} {last.split()[0]}",
        f"mi nombre es {first} {last}",
    ][i % 4]
    relative = ["mi marido", "mi mujer", "mi hija", "mi vecino", "mi hermano"][i % 5]
    y = rng.randint(1950, 2004)
    dob = [
        f"nací el {rng.randint(1, 28)} de {rng.choice(ES_MONTHS)} de {y}",
        f"fecha de nacimiento: {rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{y}",
        f"nacida el {y}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
    ][i % 3]
    dob_value = dob.split(": ")[-1].removeprefix("nací el ").removeprefix("nacida el ")
    ident = [a_dni(i), a_nie(), a_passport_es()][i % 3]
    ident_kind = ["national id", "national id", "passport"][i % 3]
    ident_text = {0: f"mi DNI es {ident}", 1: f"NIE {ident}", 2: f"pasaporte {ident}"}[i % 3]
    mail_user = f"{fold(first)[:3]}.{fold(other_last)[:4]}{rng.randint(1, 99)}"
    obf = i % 2 == 0
    mail = (
        f"{mail_user.replace('.', ' punto ')} arroba gmail punto com"
        if obf
        else (f"{mail_user}@correo.es")
    )
    text = (
        f"{intro.capitalize() if i % 4 == 0 else intro}. Escribo por {keep_text}. "
        f"{relative.capitalize()} {other} dice que no ha llegado nada. "
        f"Mi IBAN es {ib_text} y {ident_text}. Vivo en {street}, {cp} {city}; {dob}. "
        f"Llamadme al {mobile} o escribid a {mail}."
    )
    intro_name = {
        0: f"{first} {last.split()[0]}", 1: f"{first} {last}", 2: f"{first} {last.split()[0]}",
        3: f"{first} {last}",
    }[i % 4]  # fmt: skip
    planted = [
        {"kind": "person", "value": intro_name},
        {"kind": "person", "value": other},
        {"kind": "iban", "value": ib_text},
        {"kind": ident_kind, "value": ident},
        {"kind": "address", "value": street},
        {"kind": "postcode", "value": cp},
        {"kind": "birth date", "value": dob_value},
        {"kind": "phone", "value": mobile},
        {"kind": "email", "value": mail},
    ]
    return {"lang": "es", "records": [], "text": text, "planted": planted, "keep": list(keep)}


def en_doc(i: int) -> dict[str, Any]:
    first, last = EN_NAMES[i % len(EN_NAMES)]
    other, _ = EN_NAMES[(i * 5 + 2) % len(EN_NAMES)]
    street = EN_STREETS[i % len(EN_STREETS)].format(n=rng.randint(2, 480))
    keep_text, keep = KEEP_EN[i % len(KEEP_EN)]
    card = a_card(i)
    y = rng.randint(1950, 2004)
    dob = [
        f"my date of birth is {rng.randint(1, 28)} {rng.choice(EN_MONTHS)} {y}",
        f"DOB {rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{y}",
        f"born on {rng.choice(EN_MONTHS)} {rng.randint(1, 28)}, {y}",
    ][i % 3]
    dob_value = dob.removeprefix("my date of birth is ").removeprefix("DOB ")
    dob_value = dob_value.removeprefix("born on ")
    relative = ["my wife", "my husband", "my son", "my neighbour", "my colleague"][i % 5]
    intro = [f"I'm {first} {last}", f"my name is {first.lower()} {last.lower()}",
             f"This is {first} {last}", f"Hi, {first} {last} here"][i % 4]  # fmt: skip
    if i % 2:
        phone = f"+44 7700 900{rng.randint(100, 999)}"
        place = f"{street}, London {UK_POSTCODES[i % len(UK_POSTCODES)]}"
        post = UK_POSTCODES[i % len(UK_POSTCODES)]
    else:
        phone = f"(415) 555-01{rng.randint(10, 99)}"
        city, state, post = US_ZIPS[i % len(US_ZIPS)]
        place = f"{street}, {city}, {state} {post}"
    user = f"{first.lower()}.{last.lower().replace(chr(39), '')}"
    mail = f"{user} at outlook dot com" if i % 3 == 0 else f"{user}{rng.randint(1, 99)}@mail.co.uk"
    text = (
        f"{intro}. I'm writing about {keep_text}. {relative.capitalize()}, {other}, placed it "
        f"for me. Please refund the card {card}; {dob}. Ship the letter to {place}. "
        f"You can reach me on {phone} or {mail}."
    )
    intro_name = f"{first} {last}"
    planted = [
        {"kind": "person", "value": intro_name},
        {"kind": "person", "value": other},
        {"kind": "card", "value": card},
        {"kind": "birth date", "value": dob_value},
        {"kind": "address", "value": street},
        {"kind": "postcode", "value": post},
        {"kind": "phone", "value": phone},
        {"kind": "email", "value": mail},
    ]
    return {"lang": "en", "records": [], "text": text, "planted": planted, "keep": list(keep)}


def record_docs() -> list[dict[str, Any]]:
    """Names the records know, written as customers write them: lower case, no accents, one
    part only; and emails inside ids."""
    docs = []
    for (first, last), text in zip(
        ES_NAMES[:6],
        [
            "hola soy jose garcia otra vez, lo del pedido order_17",
            "MARÍA LÓPEZ RUIZ: ¿cuándo llega el reembolso de order_17?",
            "Buenas, inigo martinez al habla por el pedido order_17",
            "Lucía aquí. Lo de order_17 sigue igual, dice Nunez que esperemos",
            "begoña sanchez, cliente, pregunta por order_17",
            "Soy Álvaro, el de order_17",
        ],
        strict=True,
    ):
        parts = [p for p in f"{first} {last}".split() if fold(p) in fold(text).split()]
        planted = [{"kind": "person", "value": p} for p in parts]
        docs.append({"lang": "es", "records": [f"{first} {last}"], "text": text,
                     "planted": planted, "keep": ["order_17"]})  # fmt: skip
    for user, host in [("ana.ruiz", "example.com"), ("j.doe", "mail.co.uk"),
                       ("pilar.moreno", "correo.es")]:  # fmt: skip
        text = f"prod-2026-11-30-{user}@{host}-t1"
        docs.append({"lang": "id", "records": [], "text": text,
                     "planted": [{"kind": "email", "value": f"{user}@{host}"}],
                     "keep": ["2026-11-30"]})  # fmt: skip
    return docs


CLEAN = [
    "Hola, el pedido order_17 llegó roto. Pagué 42,00 EUR el 30/11/2026. ¿Me devolvéis el dinero?",
    "Su reembolso de 4200 céntimos (operación op-tkt_order_17-refund) quedó registrado el "
    "2026-11-30 a las 10:42. El ticket tkt_order_17 queda resuelto.",
    "El pedido está en camino hacia su casa; si no llega antes del 5 de diciembre, avísenos.",
    "I am sorry, this is taking long. Order order_17, 42.00 EUR, placed on November 28, 2026.",
    "Your refund of 15.50 EUR for order order_23 was confirmed on 2026-12-01 at 09:15 UTC.",
    "I'm not sure it went through; I'm checking with the payment provider and will write back "
    "within 2 business days. Reference op-tkt_order_18-refund.",
    "Soy cliente desde 2019 y es la primera vez que pasa. Tengo 3 pedidos abiertos: order_17, "
    "order_18 y order_19, por 120,00 EUR en total.",
    "We refunded 2 of the 3 items (2 x 14.00 EUR) on 01/12/2026; the third is pending review.",
    "My husband says the parcel came on 29 November with the box crushed. Order order_17.",
    "This is the second time I write: 42.00 EUR, order_17, paid 2026-11-30 by card.",
    "El importe de 12000 céntimos se abonará en 3-5 días hábiles en la misma tarjeta.",
    "Hi, I'm writing about the refund for order_17 of 4200 minor units. Thanks!",
    "This is Urgent: order order_17 is still not refunded. Call me tomorrow at 10:30.",
    "Hi, Support here. We refunded 42.00 EUR; reference 2026-11-30/17. Regards, The Support Team",
    "Gracias, Equipo de soporte. El importe de 1.234,56 EUR se abonó el 30/11/2026.",
    "Soy Cliente Premium desde 2019; mi hijo dice que el paquete llegó el 28/11/2026.",
    "I am writing from Madrid about order_17; my colleague in Finance will check it today.",
    "El pedido order_17 (3 artículos, 42,00 EUR) se entregó en la calle; el ticket sigue abierto.",
]


def fold(s: str) -> str:
    return "".join(unicodedata.normalize("NFD", c.lower())[0] for c in s).replace(",", " ")


def main() -> None:
    docs = [es_doc(i) for i in range(12)] + [en_doc(i) for i in range(12)] + record_docs()
    for text in CLEAN:
        docs.append({"lang": "clean", "records": [], "text": text, "planted": [], "keep": []})
    out = Path(__file__).with_name("corpus.yaml")
    head = "# Written by make_corpus.py (seeded); planted personal data is invented.\n"
    out.write_text(head + yaml.safe_dump(docs, sort_keys=False, allow_unicode=True, width=100))
    planted = sum(len(d["planted"]) for d in docs)
    print(f"{out}: {len(docs)} documents, {planted} planted values")


if __name__ == "__main__":
    main()
