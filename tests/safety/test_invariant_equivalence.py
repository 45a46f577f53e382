"""The invariants rewritten over the domain pack's roles judge every transcript the repository
has exactly as the refund-specific code they replaced did: the same outcome, the same evidence
ids in the same order, the same message, for every (transcript, invariant). The expected
results were written by the checker before the rewrite (tests/support/corpus.py) and are
committed in tests/data/invariant_outcomes.json."""

from __future__ import annotations

import json

import pytest

from tests.support.corpus import OUTCOMES, outcomes

pytestmark = pytest.mark.xdist_group("invariant-corpus")


def test_every_transcript_is_judged_as_before_the_rewrite() -> None:
    expected = json.loads(OUTCOMES.read_text(encoding="utf-8"))
    found = outcomes()
    assert sorted(found) == sorted(expected)
    assert len(found) > 500
    differ = [
        f"{name} / {inv}: {expected[name][inv]} -> {found[name].get(inv)}"
        for name in expected
        for inv in expected[name]
        if found[name].get(inv) != expected[name][inv]
    ]
    assert differ == [], "\n".join(differ[:20])
