"""Redaction on the planted corpus of issue 30 (tests/data/redaction/planted_v2.jsonl, written by
make_planted_v2.py): recall over the whole corpus and per kind, the service's data kept, no
placeholder in messages with nothing personal; and on a hand-written held-out set
(holdout_v2.jsonl). How each figure is counted: tests/support/redaction.py."""

from __future__ import annotations

from calibrant.domains import get as get_pack
from calibrant.regression import Redactor
from calibrant.regression.recognizers import Span
from tests.support.redaction import CORPUS, Score, load, score, summary

HOLDOUT = CORPUS.with_name("holdout_v2.jsonl")
REFUND_WORDS = get_pack("refunds").pack.not_names


def _refunds_redactor(records: list[str]) -> Redactor:
    """A redactor of the refund shop's conversations (the corpora's): its words are no names."""
    return Redactor(records, not_names=REFUND_WORDS)


def _spans(r: Redactor, text: str) -> list[tuple[int, int, str]]:
    return [(s.start, s.end, s.kind) for s in r.spans(text)]


def _report(name: str, s: Score) -> None:
    print(f"\n{name}: recall {s.planted - s.leaked}/{s.planted}")
    for kind, (n, leaked) in sorted(s.recall.items()):
        print(f"  {kind:<20} {n - leaked}/{n}")
    wrong = sum(m for _, m in s.precision.values())
    spans = sum(n for n, _ in s.precision.values())
    kept = s.keep[0] - s.keep[1]
    print(f"  placeholders {spans}, {wrong} on nothing planted; kept {kept}/{s.keep[0]}; "
          f"placeholders in {s.negatives[0]} clean messages: {s.negatives[1]}")  # fmt: skip


def test_the_corpus_has_200_values_of_15_kinds_in_spanish_and_english() -> None:
    docs = load()
    planted = [p for d in docs for p in d["planted"]]
    kinds: dict[str, int] = {}
    for p in planted:
        kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
    assert len(planted) >= 200 and len(kinds) >= 15, kinds
    assert min(kinds.values()) >= 6, kinds  # every kind measured on a handful at least
    assert {"es", "en"} <= {d["lang"] for d in docs if d["planted"]}
    clean = [d for d in docs if not d["planted"]]
    assert len(clean) >= 40 and sum(len(d["keep"]) for d in docs) >= 300
    for d in docs:  # every planted value and every kept string is in its message as written
        assert all(p["value"] in d["text"] for p in d["planted"]), d["id"]
        assert all(k in d["text"] for k in d["keep"]), d["id"]


def test_recall_on_the_planted_corpus_is_at_least_98_percent() -> None:
    s = score(_refunds_redactor, load(), _spans)
    _report("planted_v2", s)
    assert 1 - s.leaked / s.planted >= 0.98, summary(s)
    for kind, (n, leaked) in s.recall.items():
        assert 1 - leaked / n >= 0.9, (kind, summary(s))


def test_the_services_data_survives_and_clean_messages_get_no_placeholder() -> None:
    s = score(_refunds_redactor, load(), _spans)
    assert s.keep[1] == 0, s.lost
    assert s.negatives[1] == 0, [w for w in s.wrong if w.startswith("neg-")]
    wrong = sum(m for _, m in s.precision.values())
    spans = sum(n for n, _ in s.precision.values())
    assert wrong <= 0.01 * spans, s.wrong


def test_the_hand_written_held_out_sets() -> None:
    """Batch 1 was written after the recognizers were changed; its first run found 79/92
    (0.859): names with no cue, a floor after a dash, "cad" without a dot, a passport a few
    words after its cue, a British NI number, and a shop's 900 number and two year-led
    references taken for personal data. The general fixes are in; three names (no cue, or an
    unlisted name in lower case) still pass. Batch 2 was written after those fixes and measured
    once: 40/44 (0.909), nothing changed for its misses ("a mi nombre, Ignacio...", a passport
    after "Pasaporte marroquí:", a British driving licence number, "dave" with no cue); its one
    false positive ("Mrs" taken for a name after "my grandmother,") was a bug, fixed."""
    for name, floor in (("holdout_v2.jsonl", 0.95), ("holdout_v2_batch2.jsonl", 0.9)):
        s = score(_refunds_redactor, load(HOLDOUT.with_name(name)), _spans)
        _report(name, s)
        assert 1 - s.leaked / s.planted >= floor, summary(s)
        assert s.keep[1] == 0 and s.negatives[1] == 0, summary(s)
        assert sum(m for _, m in s.precision.values()) == 0, s.wrong


def test_one_value_written_two_ways_gets_one_placeholder() -> None:
    r = Redactor()
    first = r.text("IBAN ES91 2100 0418 4502 0005 1332, tarjeta 4111 1111 1111 1111, IP 83.45.1.7")
    again = r.text("otra vez: ES91.2100.0418.4502.0005.1332 y 4111-1111-1111-1111 desde 83.45.1.7")
    assert first == "IBAN [iban 1], tarjeta [card 1], IP [ip address 1]"
    assert again == "otra vez: [iban 1] y [card 1] desde [ip address 1]"


def test_spans_are_what_text_replaces() -> None:
    text = "Soy Ana Ruiz, DNI 71.234.567-W, matrícula 1234 BCD; pedido order_17 de 42,00 EUR."
    spans = Redactor().spans(text)
    assert [(text[s.start : s.end], s.kind) for s in spans] == [
        ("Ana Ruiz", "person"),
        ("71.234.567-W", "national id"),
        ("1234 BCD", "licence plate"),
    ]
    assert all(isinstance(s, Span) for s in spans)
    assert Redactor().text(text) == (
        "Soy [person 1], DNI [national id 1], matrícula [licence plate 1]; pedido order_17 de "
        "42,00 EUR."
    )


def test_lookalikes_of_personal_data_stay() -> None:
    for text in [
        "Tenemos 12.500.000 y 20.000.000 de unidades; me cobrasteis 1.250.000 EUR.",
        "I was charged 1200 GBP instead of 120 GBP (and 4500 MXN); the car cost 1500 CHF.",
        "firmware 2.1.0.14, versión 10.0.19045.2965, pagado a las 10:42:07",
        "Llamé al 900 100 200 y al 902 123 456 (atención al cliente).",
        "Factura n.º 2026/000412; pedido ORD-2026-004512; ref 2026-1130-0042-7781.",
        "cheers mate",
        "Gracias, de verdad.",
        "Thanks,\nAcme Retail Customer Care",
        "vence el 30/11/2026 y caduca el plazo el 12/01/2027",
    ]:
        assert Redactor().text(text) == text
    assert Redactor().text("Sr. García y Sra. López") == "Sr. [person 1] y Sra. [person 2]"
