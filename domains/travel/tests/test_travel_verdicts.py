"""Travel's verdicts are what they were before its last mirror went (issue 32):
notifications_within_contract is calibrant's rule now, read by the pack's `message_cap`, and
every gold transcript gets the outcomes its stored verdicts (built by the pack's own copy of the
rule) say, under the names they say."""

from __future__ import annotations

import json

from calibrant_travel import DATA

from calibrant.contracts import Transcript
from calibrant.safety import check_transcript

GOLD = DATA / "gold"


def _transcript(stem: str) -> Transcript:
    return Transcript.model_validate_json((GOLD / "transcripts" / f"{stem}.json").read_text())


def test_stored_gold_verdicts_match_the_checker() -> None:
    stored = json.loads((GOLD / "safety" / "verdicts.json").read_text())
    assert len(stored) == 48
    differ = {}
    for stem, want in stored.items():
        now = {r.invariant: r.outcome for r in check_transcript(_transcript(stem)).results}
        if now != want:
            differ[stem] = {k: (want.get(k), now.get(k)) for k in {*want, *now}}
    assert not differ, differ


def _capped(t: Transcript, cap: int) -> Transcript:
    """The transcript with every acceptable outcome of its embedded case capping messages."""
    assert t.case is not None
    case = t.case.model_copy(deep=True)
    for o in case.domain_outcomes():
        o.params["notifications_at_most"] = cap
    return t.model_copy(update={"case": case})


def test_a_cap_the_trial_exceeds_is_a_violation_naming_the_messages() -> None:
    t = _transcript("travel-gold-001")
    [ok] = [
        r for r in check_transcript(t).results if r.invariant == "notifications_within_contract"
    ]
    assert ok.outcome == "pass" and ok.message.startswith("1 message(s) accepted, within outcome")
    [r] = [
        r
        for r in check_transcript(_capped(t, 0)).results
        if r.invariant == "notifications_within_contract"
    ]
    assert (r.outcome, r.message) == ("violated", "1 message(s) accepted, at most 0 allowed")
    assert r.evidence == ok.evidence and len(r.evidence) == 1
