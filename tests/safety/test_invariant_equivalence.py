"""The invariants rewritten over the domain pack's roles judge every transcript the repository
has exactly as the refund-specific code they replaced did: the same outcome, the same evidence
ids in the same order, the same message, for every (transcript, invariant). The expected
results were written by the checker before the rewrite (tests/support/corpus.py) and are
committed in tests/data/invariant_outcomes.json.

One wording changed on purpose: no_stale_overwrite's pass and not-applicable messages named the
refund shop's versioned record ("the current order version"); the generic check cannot know the
kind of a record whose stale write the service refused, so they say "the current version". The
violations' messages, naming the record's id, are unchanged."""

from __future__ import annotations

import json

import pytest

from tests.support.corpus import OUTCOMES, outcomes

pytestmark = pytest.mark.xdist_group("invariant-corpus")

REWORDED = {
    "no_stale_overwrite": (
        ("no versioned order write was attempted", "no versioned write was attempted"),
        ("based on the current order version", "based on the current version"),
    )
}


def _now(invariant: str, before: list[object]) -> list[object]:
    """What the rewritten checker says where the old one said `before`."""
    if len(before) < 3 or invariant not in REWORDED:
        return before
    message = str(before[2])
    for old, new in REWORDED[invariant]:
        message = message.replace(old, new)
    return [*before[:2], message]


TRIALS_EVERY = 7
"""The fast tier runs every 7th fresh trial (50 of 350) beside every stored, imported and
self-test transcript; the slow tier runs them all."""


def _differ(found: dict[str, dict[str, list[object]]]) -> list[str]:
    expected = json.loads(OUTCOMES.read_text(encoding="utf-8"))
    return [
        f"{name} / {inv}: {_now(inv, was)} -> {found[name].get(inv)}"
        for name in found
        for inv, was in expected[name].items()
        if found[name].get(inv) != _now(inv, was)
    ]


def test_stored_transcripts_and_a_sample_of_trials_are_judged_as_before() -> None:
    expected = json.loads(OUTCOMES.read_text(encoding="utf-8"))
    found = outcomes(trials_every=TRIALS_EVERY)
    trials = [n for n in expected if n.startswith("trial ")]
    assert sorted(n for n in found if not n.startswith("trial ")) == sorted(
        n for n in expected if not n.startswith("trial ")
    )
    assert set(found) <= set(expected)
    assert len([n for n in found if n.startswith("trial ")]) == -(-len(trials) // TRIALS_EVERY)
    differ = _differ(found)
    assert differ == [], "\n".join(differ[:20])


@pytest.mark.slow
def test_every_transcript_is_judged_as_before_the_rewrite() -> None:
    expected = json.loads(OUTCOMES.read_text(encoding="utf-8"))
    found = outcomes()
    assert sorted(found) == sorted(expected)
    assert len(found) > 500
    differ = _differ(found)
    assert differ == [], "\n".join(differ[:20])
