"""calibrant's invariants have generic names; a pack publishes one under its own name
(`DomainPack.published`), and the refund shop keeps the names its files have always said."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from calibrant.contracts import Transcript
from calibrant.domains import DomainPackError, PublishedName
from calibrant.domains import get as get_pack
from calibrant.safety import check_transcript, for_domain, registered
from tests.conftest import ROOT

REFUND_NAMES = {
    "effects_within_bound": "refund_within_paid_amount",
    "policy_read_before_effect": "policy_read_before_refund",
    "confirmation_matches_committed_state": "confirmation_matches_ledger",
}


def _example(name: str) -> Transcript:
    path = ROOT / "examples" / "transcripts" / f"{name}.json"
    return Transcript.model_validate_json(path.read_text())


def test_calibrants_invariants_name_no_domain() -> None:
    names = [inv.name for inv in registered()]
    assert not [n for n in names if re.search("refund|ledger", n)]
    assert set(REFUND_NAMES) <= set(names)


def test_the_refund_shop_checks_under_the_names_its_gold_verdicts_hold() -> None:
    stored = json.loads((ROOT / "gold" / "safety" / "verdicts.json").read_text())
    first = stored[sorted(stored)[0]]
    refunds = [inv.name for inv in for_domain("refunds")]
    assert sorted(refunds) == sorted(first)
    assert set(REFUND_NAMES.values()) <= set(refunds)
    assert "notifications_within_contract" not in refunds  # it declares no message cap
    by_name = {inv.name: inv for inv in for_domain("refunds")}
    assert by_name["refund_within_paid_amount"].generic == "effects_within_bound"
    assert "what the customer paid" in by_name["refund_within_paid_amount"].summary


def _switched_off(t: Transcript, setting: str) -> Transcript:
    assert t.case is not None
    settings = t.case.invariants.model_copy(update={setting: False})
    return t.model_copy(update={"case": t.case.model_copy(update={"invariants": settings})})


def _outcome(t: Transcript, name: str) -> tuple[str, str]:
    [r] = [r for r in check_transcript(t).results if r.invariant == name]
    return r.outcome, r.message


@pytest.mark.parametrize(
    ("example", "setting", "name", "was"),
    [
        # the setting named like the refund shop's published name
        ("good-eligible", "policy_read_before_refund", "policy_read_before_refund", "pass"),
        # the setting named like the generic invariant the published name stands for
        (
            "broken-false-completion",
            "confirmation_matches_committed_state",
            "confirmation_matches_ledger",
            "violated",
        ),
    ],
)
def test_a_case_setting_switches_an_invariant_off_by_either_name(
    example: str, setting: str, name: str, was: str
) -> None:
    t = _example(example)
    assert _outcome(t, name)[0] == was
    off = ("not_applicable", "disabled by the case contract")
    assert _outcome(_switched_off(t, setting), name) == off


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            {"published": (PublishedName("a", "b"), PublishedName("c", "b"))},
            "published: 'c' or the name 'b' is given twice",
        ),
        ({"published": (PublishedName("a", "not a name"),)}, "'not a name' is not an invariant"),
        ({"message_cap": "cap"}, "message_cap 'cap' must be a field of the outcome conditions"),
    ],
)
def test_a_wrong_declaration_is_one_line_naming_the_pack(change: dict, says: str) -> None:
    pack = get_pack("refunds").pack
    with pytest.raises(DomainPackError) as err:
        dataclasses.replace(pack, **change)
    assert says in str(err.value) and "domain pack 'refunds'" in str(err.value)
    assert "\n" not in str(err.value)


def test_the_message_cap_rule_says_why_a_pack_without_a_cap_is_not_checked() -> None:
    from calibrant.safety import Evidence

    [cap] = [inv for inv in registered() if inv.name == "notifications_within_contract"]
    found = cap.run(Evidence.of(_example("good-eligible")))
    assert (found.outcome, found.message) == (
        "not_applicable",
        "domain pack 'refunds' declares no cap on messages",
    )
