"""A domain's words are never taken as a person's name (issue 32: the core names no domain):
the pack declares them (`DomainPack.not_names`), and a case drafted from one of its transcripts
keeps them; the redactor alone, knowing no domain, has calibrant's own words only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from calibrant.contracts import Transcript
from calibrant.domains import DomainPackError
from calibrant.domains import get as get_pack
from calibrant.regression import Redactor, draft_case

SIGNED = ("Thanks,\nrefund", "Gracias,\nreembolso")


def test_the_refund_pack_declares_its_words() -> None:
    assert get_pack("refunds").pack.not_names == ("refund", "reembolso")


@pytest.mark.parametrize("text", SIGNED)
def test_a_domain_word_is_a_name_only_for_a_redactor_that_knows_no_domain(text: str) -> None:
    words = get_pack("refunds").pack.not_names
    assert Redactor(not_names=words).text(text) == text
    assert Redactor().text(text).endswith("[person 1]")
    assert Redactor(not_names=("REFUND", "Reembolso")).text(text) == text  # any case


def test_a_case_drafted_from_a_refunds_transcript_keeps_the_shops_words(
    trial: Callable[..., Transcript],
) -> None:
    t = trial("eligible_damaged_order", "scripted:correct")
    t.conversation[0].text = "Hi, my vase arrived broken. Gracias,\nreembolso"
    script = draft_case(t, case_id="again").case.customer_script
    assert script[0] == "Hi, my vase arrived broken. Gracias,\nreembolso"


def test_a_pack_declares_single_words() -> None:
    pack = get_pack("refunds").pack
    for bad in (("two words",), ("",), ["refund"]):
        with pytest.raises(DomainPackError, match="not_names must be a tuple of single words"):
            replace(pack, not_names=bad)  # type: ignore[arg-type]
