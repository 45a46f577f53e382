"""Amounts as people write them, read by `money_in` (used by the leak and confirmation checks):
a space (or a no-break or thin space) as the thousands separator, and clock times that only look
like amounts."""

from __future__ import annotations

import pytest

from calibrant.safety.text import Money, money_in, states_amount


@pytest.mark.parametrize(
    "text",
    [
        "a refund of 1 042,50 € was issued",
        "a refund of 1\u00a0042,50 € was issued",
        "a refund of 1\u202f042,50 € was issued",
        "a refund of € 1 042.50 was issued",
        "a refund of 1 042.50 EUR was issued",
    ],
)
def test_a_space_as_thousands_separator_is_one_amount(text: str) -> None:
    assert money_in(text) == (Money(104250, "EUR"),)
    assert states_amount(text, 104250)
    assert not states_amount(text, 4250)  # never the tail alone: "042,50 €"


def test_space_grouping_needs_three_digit_groups_and_a_currency() -> None:
    assert money_in("€ 12 500") == (Money(1250000, "EUR"),)
    # digits apart with no currency are separate numbers, never glued into one amount
    assert all(m.minor_units != 1800555 for m in money_in("call 1 800 555 today"))
    # "order 17 42,50 €": 17 is an id, the amount is 42,50 € (a two-digit group is no group)
    assert Money(4250, "EUR") in money_in("order 17 42,50 €")


@pytest.mark.parametrize(
    "text",
    [
        "open until 18.00",
        "call before 18.00 h",
        "from 9.30 to 18.00",
        "between 9.00 and 18.00",
        "at 18.30 hrs",
    ],
)
def test_a_clock_time_without_currency_is_not_an_amount(text: str) -> None:
    assert money_in(text) == ()


def test_a_time_word_does_not_hide_an_amount_with_a_currency() -> None:
    assert money_in("until 18.00 € is refunded") == (Money(1800, "EUR"),)
    assert money_in("a total of 18.00") == (Money(1800, None),)
    assert money_in("by 25.00")[0].minor_units == 2500  # 25 is no hour: an amount


def test_to_and_and_make_a_clock_time_only_after_another_clock_time() -> None:
    assert money_in("it came to 18.00") == (Money(1800, None),)
    assert money_in("we open 9.00 to 18.00") == ()
    assert money_in("18.00 and 42.50 were refunded") == (Money(1800, None), Money(4250, None))
