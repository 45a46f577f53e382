"""Outside audit of redaction (issue 30, item 7): of 59 planted values, 12 survived. One test a
finding, each failing on commit 1c65a78: the value must be gone, and a placeholder of its kind
in its place (a placeholder, not a deletion: the message must still read)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from calibrant.contracts import Transcript
from calibrant.regression import Redactor, draft_case


def _redacted(text: str, secrets: list[str], kind: str, records: list[str] | None = None) -> str:
    out = Redactor(records or []).text(text)
    for secret in secrets:
        assert secret.casefold() not in out.casefold(), (secret, out)
    assert f"[{kind} " in out, out
    return out


def test_ip_addresses() -> None:
    for text, secrets in [
        ("Mi IP es 83.45.112.7, por si veis algo raro.", ["83.45.112.7", "112"]),
        ("blocked from 192.168.1.34 again", ["192.168.1.34"]),
        ("desde la IP 2a0c:5a80:1f2b:4e00::1c", ["2a0c:5a80", "1f2b:4e00"]),
        ("the log says fe80::1ff:fe23:4567:890a", ["fe23:4567", "890a"]),
    ]:
        _redacted(text, secrets, "ip address")
    # a version is not an address, and neither is a time
    keep = "firmware 2.1.0.14, app 4.12.3, pagado a las 10:42:07"
    assert Redactor().text(keep) == keep


def test_spanish_social_security_numbers() -> None:
    # province 28, number 12345678, check digits (2812345678 mod 97)
    check = int("2812345678") % 97
    for text in [
        f"Nº de la Seguridad Social 28/12345678/{check:02d}.",
        f"os adjunto el 28/12345678/{check:02d} como pedisteis",  # no cue: the check digits
        f"NSS 28 12345678 {check:02d}",
        "número de afiliación 28-12345678-00",  # a cue: any check digits
    ]:
        _redacted(text, ["12345678"], "social security")


def test_us_social_security_numbers() -> None:
    for text in [
        "My tax form shows 536-22-9014.",  # no cue: the shape and the SSA's ranges
        "SSN 536 22 9014",
        "social security number 536229014",
    ]:
        _redacted(text, ["9014", "536"], "social security")


def test_licence_plates() -> None:
    for text, secrets in [
        ("La matrícula es 1234 BCD.", ["1234 BCD", "BCD"]),
        ("Aparqué el 4821-KLM en vuestro parking.", ["4821", "KLM"]),
        ("el coche viejo, un M-4521-XZ", ["4521"]),
        ("matricula 8605 hsc", ["8605", "hsc"]),
        ("My reg is KF65 VJU.", ["KF65", "VJU"]),
    ]:
        _redacted(text, secrets, "licence plate")
    keep = "I was charged 1200 GBP instead of 120 GBP, and 4500 MXN on the other card."
    assert Redactor().text(keep) == keep  # a currency is not a plate


def test_a_cards_security_code_and_expiry() -> None:
    for text, code in [
        ("El CVV es 634.", "634"),
        ("código de seguridad 931", "931"),
        ("los tres números de atrás son 255", "255"),
        ("the security code is 3259", "3259"),
        ("CVC: 351.", "351"),
    ]:
        _redacted(text, [code], "card code")
    for text, expiry in [("caduca el 05/29", "05/29"), ("exp 08/30", "08/30"),
                         ("valid thru 09/27", "09/27")]:  # fmt: skip
        _redacted(text, [expiry], "card expiry")


@pytest.mark.parametrize(
    "value",
    [
        "71.234.567–W",  # an en dash (a word processor's)
        "71 234 567 W",  # grouped with spaces
        "71.234.567.W",  # a dot before the letter
        "71.234.567-K",  # the dotted shape with a mistyped check letter
        "Y–1234567–X",
        "Y-1234567-A",  # the dashed shape with a mistyped check letter
    ],
)
def test_dni_and_nie_written_with_dots_and_dashes_need_no_cue(value: str) -> None:
    """`71.234.567-W` and `Y-1234567-X` as written (valid check letters, ASCII dashes) were
    redacted on 1c65a78 in every context tried; written these ways they were not."""
    for context in ("Os paso mis datos: {}.", "Titular: {}", "con el {} debería salir"):
        _redacted(context.format(value), [value, *re.findall(r"\d{3,}", value)], "national id")
    for value in ("71.234.567-W", "Y-1234567-X"):  # the strings, still redacted
        _redacted(f"Os paso mis datos: {value}.", [value], "national id")


def test_cards_written_with_dots() -> None:
    for text in [
        "La tarjeta es 4111.1111.1111.1111.",
        "Card number 5500.0000.0000.0004",
        "me cobraron en la 4012.8888.8888.1881",
    ]:
        _redacted(text, re.findall(r"\d{4}", text)[1:], "card")


def test_ibans_with_dots_or_slashes_even_after_the_word_iban() -> None:
    for text in [
        "IBAN: ES91.2100.0418.4502.0005.1332",
        "El IBAN ES91/2100/0418/4502/0005/1332 es el de mi cuenta nueva.",
        "Hacedme la transferencia a ES91.2100.0418.4502.0005.1332.",  # no cue
        "the account is GB29/NWBK/6016/1331/9268/19",
    ]:
        _redacted(text, ["0418", "4502", "1332", "6016", "9268"], "iban")


def test_pasaporte_n_o_with_a_spaced_number() -> None:
    for text in [
        "pasaporte n.º AAB 123456",
        "Pasaporte nº AAB-123456, expedido en Madrid",
        "mi número de pasaporte es ZNH 383805",
        "Spanish passport WNA 572454.",
    ]:
        _redacted(text, re.findall(r"\d{6}", text), "passport")


def test_a_lower_case_name_after_a_sign_off() -> None:
    for text, name in [
        ("Gracias por todo.\nUn saludo,\nmaite", "maite"),
        ("Ya os escribiré.\nSaludos, quim", "quim"),
        ("Thanks for sorting it.\nKind regards,\nmateusz ashworth", "ashworth"),
        ("Cheers,\nsiobhan", "siobhan"),
    ]:
        _redacted(text, [name], "person")
    for keep in ["Gracias, de verdad.", "Thanks, appreciate it.", "Cheers, and have a good one.",
                 "Regards,\nThe Support Team", "Thanks,\nAcme Retail Customer Care"]:  # fmt: skip
        assert Redactor().text(keep) == keep


def test_every_part_of_a_hyphenated_record_name_written_alone() -> None:
    """The docs promise every part of a record's name: each side of a hyphen is a part."""
    for record, text, part in [
        ("María García-Lorca", "llamo por lo de la señora lorca", "lorca"),
        ("María García-Lorca", "García dice que no ha llegado", "García"),
        ("Ana Belén Ruiz-Tagle", "buenas, ruiz tagle otra vez", "tagle"),
        ("Jean-Pierre Dubois", "pierre here, did it go through?", "pierre"),
        ("Siobhan O'Brien-Walsh", "Ms walsh called at 10:30", "walsh"),
        ("Siobhan O'Brien-Walsh", "the account of obrien", "obrien"),
    ]:
        out = _redacted(text, [part], "person", [record])
        assert out.count("[person 1]") >= 1, out  # the record's placeholder


def test_the_case_description_does_not_copy_the_agent_unredacted(
    trial: Callable[..., Transcript],
) -> None:
    t = trial("timeout_after_payment_commit", "scripted:retry-without-reconcile")
    t.provenance.agent = "maria.lopez@tienda-sol.es"
    t.transcript_id = "prod-2026-11-30-t1"
    drafted = draft_case(t, case_id="agent_email")
    assert "maria.lopez" not in drafted.text and "tienda-sol" not in drafted.text
    assert re.search(r"\(agent \[email \d+\],", drafted.case.description or ""), drafted.case
