"""A refunds case drafted from a transcript is byte for byte what the drafter wrote before the
refund shop's part of it (the starting state, the fault points a lost answer stands for) moved
into the pack (`calibrant_refunds.drafting`) and the rest came to be read by the pack's roles
(issue 32).

One gold transcript of every gold case, and every example transcript, is drafted twice: as it
is (its case embedded), and as a production log would hold it (no case, no fault events, no
fault schedule: the starting state read from the evaluator's 'before' snapshot, a lost answer
standing for its fault point). The sha256 of each draft's YAML and of what redaction replaced,
or the one-line error, is pinned in drafts_pinned.json, written by the drafter before the move."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from calibrant.contracts import Transcript
from calibrant.errors import InputError
from calibrant.regression import draft_case

ROOT = Path(__file__).resolve().parents[2]
PINNED = Path(__file__).with_name("drafts_pinned.json")


def _transcripts() -> list[Path]:
    """One gold transcript of every gold case, and the example transcripts."""
    seen: dict[str, Path] = {}
    for path in sorted((ROOT / "gold" / "transcripts").glob("*.json")):
        if path.stem > "gold-300":  # gold v4's cases came after the move the pins hold
            continue
        case_id = json.loads(path.read_text(encoding="utf-8"))["case_id"]
        seen.setdefault(case_id, path)
    return [*seen.values(), *sorted((ROOT / "examples" / "transcripts").glob("*.json"))]


def _variants(path: Path) -> Iterator[tuple[str, Transcript]]:
    t = Transcript.model_validate_json(path.read_text(encoding="utf-8"))
    yield f"{path.stem} with its case", t
    log = t.model_copy(deep=True)
    log.case = None
    log.events = [e for e in log.events if e.fault is None]
    log.provenance.fault_schedule = []
    yield f"{path.stem} as a log", log


def _digest(t: Transcript) -> str:
    try:
        d = draft_case(t, case_id="pinned", extra_terms=["Jonas Berg"], source="t.json")
    except InputError as exc:
        return f"error: {exc}"
    body = d.text + "\n" + json.dumps(d.redacted, sort_keys=True)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:24]


def drafts() -> dict[str, str]:
    """Every variant's digest (what drafts_pinned.json holds)."""
    return {name: _digest(t) for path in _transcripts() for name, t in _variants(path)}


@pytest.fixture(scope="module")
def pinned() -> dict[str, str]:
    return json.loads(PINNED.read_text(encoding="utf-8"))


def test_every_gold_case_is_drafted_as_before(pinned: dict[str, str]) -> None:
    now = drafts()
    assert set(now) == set(pinned)
    changed = {name: (pinned[name], now[name]) for name in pinned if now[name] != pinned[name]}
    assert changed == {}, "drafts differ from the drafter's before the move (pinned, now)"


def test_the_pins_cover_both_starting_states(pinned: dict[str, str]) -> None:
    """The pins are drafts, not only errors: from an embedded case and from a snapshot."""
    drafted = [name for name, digest in pinned.items() if not digest.startswith("error")]
    assert any(name.endswith("with its case") for name in drafted)
    assert sum(name.endswith("as a log") for name in drafted) >= 10


if __name__ == "__main__":  # write the pins (run with the drafter being pinned on the path)
    PINNED.write_text(json.dumps(drafts(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
