"""Test the evaluator: every known-good transcript passes, every broken one fails with the
invariant it breaks named, each with evidence ids that exist in the transcript."""

from __future__ import annotations

import pytest

from calibrant.contracts import Transcript
from calibrant.safety import check_transcript, for_domain
from calibrant.selftest import CorpusEntry, build_corpus, grade
from calibrant_refunds.selftest import REFUND_PLAN
from tests.conftest import CASES

pytestmark = pytest.mark.xdist_group("selftest-corpus")  # one worker builds the corpus

NAMES = [e.name for e in REFUND_PLAN]  # the entries' names, known without running their trials


@pytest.fixture(scope="module")
def corpus() -> list[CorpusEntry]:
    """Built when a test first needs it (32 trials), not while the suite is collected."""
    return build_corpus(CASES)


def _ids(t: Transcript) -> set[str]:
    ids = {c.call_id for c in t.tool_calls} | {turn.turn_id for turn in t.conversation}
    ids |= {a.attempt_id for a in t.notifications.attempts}
    ids |= {m.message_id for m in t.notifications.accepted} | {e.event_id for e in t.events}
    for snap in (t.ledger_before, t.ledger_after):
        for s in snap.tenants if snap else []:
            ids |= {r.refund_id for r in s.refunds} | {o.order_id for o in s.orders}
            ids |= {tk.ticket_id for tk in s.tickets} | {c.customer_id for c in s.customers}
            ids |= {a.approval_id for a in s.approvals} | {e.event_id for e in s.audit_log}
    return ids


def test_the_corpus_has_one_entry_per_planned_name(corpus: list[CorpusEntry]) -> None:
    assert [e.name for e in corpus] == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_checker_judges_corpus_entry(name: str, corpus: list[CorpusEntry]) -> None:
    [entry] = [e for e in corpus if e.name == name]
    verdict = check_transcript(entry.transcript)
    assert grade(entry, verdict) == []
    assert [r.invariant for r in verdict.results] == [i.name for i in for_domain("refunds")]
    known = _ids(entry.transcript)
    for r in verdict.results:
        if r.outcome == "violated":
            assert r.evidence, f"{r.invariant} violated without evidence"
            assert set(r.evidence) <= known, set(r.evidence) - known


def test_corpus_covers_every_invariant_with_a_failure(corpus: list[CorpusEntry]) -> None:
    broken = {inv for e in corpus for inv in e.expect}
    assert {i.name for i in for_domain("refunds")} <= broken | {
        "refund_within_paid_amount",
        "end_state_matches_contract",
    }
    fired = {r.invariant for e in corpus for r in check_transcript(e.transcript).violated}
    assert {"refund_within_paid_amount", "end_state_matches_contract"} <= fired


def test_every_invariant_passes_on_some_known_good_transcript(corpus: list[CorpusEntry]) -> None:
    passed = {
        r.invariant
        for e in corpus
        if e.good
        for r in check_transcript(e.transcript).results
        if r.outcome == "pass"
    }
    assert passed == {i.name for i in for_domain("refunds")}


def test_corpus_has_both_kinds(corpus: list[CorpusEntry]) -> None:
    assert sum(e.good for e in corpus) >= 8
    assert sum(not e.good for e in corpus) >= 12
