"""The gold set's stored safety verdicts are what the checker says about its transcripts today."""

from __future__ import annotations

import json

from calibrant.contracts import Transcript
from calibrant.safety import check_transcript
from tests.conftest import ROOT

GOLD = ROOT / "gold"


def test_stored_gold_verdicts_match_the_checker() -> None:
    stored = json.loads((GOLD / "safety" / "verdicts.json").read_text())
    paths = sorted((GOLD / "transcripts").glob("*.json"))
    assert sorted(p.stem for p in paths) == sorted(stored)
    differ = {}
    for p in paths:
        t = Transcript.model_validate_json(p.read_text())
        now = {r.invariant: r.outcome for r in check_transcript(t).results}
        if now != stored[p.stem]:
            differ[p.stem] = {
                k: (stored[p.stem].get(k), v) for k, v in now.items() if stored[p.stem].get(k) != v
            }
    assert not differ, f"stored vs checker (regenerate with gold/build.py --verdicts): {differ}"
