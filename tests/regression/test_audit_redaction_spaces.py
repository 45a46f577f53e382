"""Outside audit of redaction (issue 19): values copied from a bank's web page or a phone keep
their non-breaking or doubled spaces; the recognizers must see through them as through one
plain space."""

from __future__ import annotations

import pytest

from calibrant.regression import Redactor

NBSP, NARROW = "\u00a0", "\u202f"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"IBAN: ES91{NBSP}2100{NBSP}0418{NBSP}4502{NBSP}0005{NBSP}1332", "0418"),
        (f"IBAN ES91{NARROW}2100{NARROW}0418{NARROW}4502{NARROW}0005{NARROW}1332", "0418"),
        ("mi IBAN ES91  2100  0418  4502  0005  1332", "0418"),
        (f"card 4111{NBSP}1111{NBSP}1111{NBSP}1111 please", "1111"),
        ("card 4111  1111  1111  1111 please", "1111"),
        (f"Me llamo{NBSP}Lucía{NBSP}Ortega", "Ortega"),
        (f"my name is Siobhan{NARROW}O'Brien", "Brien"),
    ],
)
def test_odd_spaces_do_not_hide_personal_data(text: str, secret: str) -> None:
    out = Redactor().text(text)
    assert secret not in out, out
    assert "[" in out  # replaced by a placeholder, not dropped


def test_ordinary_text_with_odd_spaces_is_kept() -> None:
    text = f"Order order_17, 42.00{NBSP}EUR, on 2026-11-30  at 10:00"
    assert Redactor().text(text) == text
