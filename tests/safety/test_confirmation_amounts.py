"""`confirmation_matches_ledger` reads the amount a confirmation states the way people write it:
"€42" for a committed 4200 is right, and still wrong when 4250 (42.50) was committed.

Every transcript is a real run of the correct agent; only the confirmation's wording changes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant.contracts import CaseContract, NotificationAttempt, Transcript
from calibrant_refunds.runner import run_trial
from tests.safety.helpers import result

CONFIRMATION = "confirmation_matches_ledger"
STANDARD = "Your refund of 42.00 EUR for order order_17 has been issued"


def _confirmation(t: Transcript) -> NotificationAttempt:
    return next(a for a in t.notifications.attempts if a.kind == "refund_confirmation")


def _reword(t: Transcript, amount_text: str) -> NotificationAttempt:
    sent = _confirmation(t)
    assert STANDARD in sent.body, sent.body
    sent.body = sent.body.replace("42.00 EUR", amount_text)
    return sent


@pytest.mark.parametrize("written", ["€42", "42 €", "EUR 42", "42 EUR", "€42.00", "42,00 €"])
def test_committed_amount_written_without_cents_or_otherwise_is_accepted(
    trial: Callable[..., Transcript], written: str
) -> None:
    t = trial("eligible_damaged_order", "scripted:correct")
    _reword(t, written)
    r = result(t, CONFIRMATION)
    assert r.outcome == "pass", r.message


@pytest.mark.parametrize("written", ["€45", "€4200", "€24", "42.50 EUR", "€4.20"])
def test_wrong_amount_in_the_text_is_still_rejected(
    trial: Callable[..., Transcript], written: str
) -> None:
    t = trial("eligible_damaged_order", "scripted:correct")
    sent = _reword(t, written)
    r = result(t, CONFIRMATION)
    assert r.outcome == "violated", r.message
    assert sent.attempt_id in r.evidence


def test_dropping_real_cents_is_rejected(cases: dict[str, CaseContract], tmp_path: Path) -> None:
    """42.50 committed, "€42" stated: the cents were not zero, so they cannot be left out."""
    base = cases["eligible_damaged_order"]
    case = CaseContract.model_validate(
        {
            **base.model_dump(),
            "case": "eligible_with_cents",
            "fixture": {**base.fixture.model_dump(), "paid_minor_units": 4250},
            "expected": {"refund_count": 1, "refund_total_minor_units": 4250},
        }
    )
    t = run_trial(case, "scripted:correct", trial=1, seed=0, workdir=tmp_path)
    sent = _confirmation(t)
    assert "42.50 EUR" in sent.body and sent.amount_minor_units == 4250
    assert result(t, CONFIRMATION).outcome == "pass"
    sent.body = sent.body.replace("42.50 EUR", "€42")
    r = result(t, CONFIRMATION)
    assert r.outcome == "violated", r.message
    assert sent.attempt_id in r.evidence
