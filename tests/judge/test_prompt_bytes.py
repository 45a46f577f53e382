"""The judge's prompt bytes are pinned for the shipped gold transcripts: the refund shop's 300
of gold v3 under rubric 1.0 (the rubric they were pinned with, kept in gold/labels-rubric-1.0/;
gold v4's items and rubric 1.1 came later) and the travel pack's 48, system and user
messages, in the full-answer and the labels-only form, with a fixed nonce. Cached judgments,
the embedded model's saved prompt state and the prompt hashes verdicts cite depend on these
bytes. The digests were computed by calibrant before its judge named no domain (the refund
shop's words in the core, another domain's by string replacement), so the pack-phrased prompt
is shown to be the same bytes; `scripts/judge_prompt_bytes.py` compares every prompt variant,
panel and sheet of two versions one by one."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from calibrant.files import load_rubric, load_transcript
from calibrant.judge.prompt import build_prompt

ROOT = Path(__file__).resolve().parents[2]
TRAVEL = ROOT / "domains" / "travel" / "src" / "calibrant_travel" / "data"
NONCE = "0123456789abcdef"

PINNED = {
    # domain: (rubric, gold transcripts, count, sha256 over every item's messages)
    "refunds": (
        ROOT / "gold" / "labels-rubric-1.0" / "refund_communication.yaml",
        ROOT / "gold" / "transcripts",
        300,
        "a954d1c0f524a69ef5d917b14dba3064a25b58010013f4d3765c66ac2b08ade5",
    ),
    "travel": (
        TRAVEL / "rubrics" / "rebooking_communication.yaml",
        TRAVEL / "gold" / "transcripts",
        48,
        "f5d523b3f06f09de7b2b22d4f21d30a6d82de187f980fb2d075be73074eb06fb",
    ),
}


def messages_digest(rubric_path: Path, folder: Path, count: int) -> tuple[int, str]:
    """(items, SHA-256 of the first `count` items' system and user messages, full and
    labels-only)."""
    rubric = load_rubric(rubric_path)
    h = hashlib.sha256()
    paths = sorted(folder.glob("*.json"))[:count]
    for path in paths:
        t = load_transcript(path)
        for labels_only in (False, True):
            p = build_prompt(t, rubric, nonce=NONCE, labels_only=labels_only)
            for text in (path.name, p.system, p.user):
                h.update(text.encode("utf-8", "surrogatepass") + b"\0")
    return len(paths), h.hexdigest()


@pytest.mark.parametrize("domain", sorted(PINNED))
def test_every_gold_items_prompt_is_the_bytes_it_was(domain: str) -> None:
    rubric, folder, count, digest = PINNED[domain]
    assert messages_digest(rubric, folder, count) == (count, digest)
