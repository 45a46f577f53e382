"""The fence against the adversarial corpus (tests/judge/fence_corpus.json): every chat-template
control-token family, fence words with separators and look-alike letters, look-alike brackets.
Recall is the share of attacks of which nothing forbidden reaches the judge; docs/judge.md quotes
it. Ordinary support texts must reach the judge as they were, unmarked."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest

from calibrant.files import load_rubric, load_transcript
from calibrant.judge.prompt import build_prompt, fold
from calibrant_refunds.form import edited
from tests.conftest import ROOT

RUBRIC = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
CORPUS = json.loads((ROOT / "tests" / "judge" / "fence_corpus.json").read_text())
NONCE = "5e1f00d2c3b4a697"


def _inside(text: str, where: str = "agent") -> str:
    t = load_transcript(ROOT / "examples" / "transcripts" / "good-eligible.json")
    if where == "note":
        t.conversation[0].text = "order_17 arrived broken"
        with edited(t, "before") as before:
            snap = before.tenant(t.acting_tenant)
            assert snap is not None
            snap.orders[0].customer_note = text
    else:
        next(x for x in t.conversation if x.role == where).text = text
    p = build_prompt(t, RUBRIC, nonce=NONCE)
    begin, end = f"<<<BEGIN-UNTRUSTED {NONCE}>>>", f"<<<END-UNTRUSTED {NONCE}>>>"
    assert p.user.count(begin) == 1 and p.user.count(end) == 1
    return p.user.split(begin)[1].split(end)[0]


def _survivors(attack: dict[str, Any], inside: str) -> list[str]:
    seen = unicodedata.normalize("NFKC", inside).casefold()
    out = []
    for raw in attack["forbidden"]:
        s = raw.replace("{nonce}", NONCE)
        if s in inside or unicodedata.normalize("NFKC", s).casefold() in seen:
            out.append(s)
    return out


def test_recall_on_the_adversarial_corpus_is_complete() -> None:
    attacks = CORPUS["attacks"]
    missed = {}
    for a in attacks:
        for where in ("agent", "customer", "note"):
            text = a["text"].replace("{nonce}", NONCE)
            if left := _survivors(a, _inside(text, where)):
                missed[(a["id"], where)] = left
    # recall = attacks with nothing forbidden left / attacks, in every place untrusted text goes
    assert len(attacks) >= 40 and len({a["family"] for a in attacks}) >= 15
    assert missed == {}, missed


@pytest.mark.parametrize("attack", CORPUS["attacks"], ids=lambda a: a["id"])
def test_the_judge_is_told_what_was_rewritten(attack: dict[str, Any]) -> None:
    inside = _inside(attack["text"].replace("{nonce}", NONCE))
    if attack["family"] in ("evidence", "header"):  # square brackets and dashes: typography
        return
    assert "[calibrant rewrote: " in inside, inside
    # readable: the names of the rewritten tokens are still there for the judge to read
    if "im_start" in attack["text"]:
        assert "im_start" in inside


@pytest.mark.parametrize("benign", CORPUS["benign"], ids=lambda b: b["id"])
def test_ordinary_support_text_reaches_the_judge_unchanged(benign: dict[str, Any]) -> None:
    inside = _inside(benign["text"])
    assert fold(benign["text"]) in inside and "[calibrant rewrote" not in inside
