"""The battery's variants and prompts: an attack changes only the text it is planted in, never
the records; the defended prompt keeps every attack inside its fence, the naive one does not;
the paired interval behaves at the edges."""

from __future__ import annotations

import re

import pytest

from calibrant.agreement.robustness import attack_gates, paired_difference
from calibrant.files import load_rubric, load_transcript
from calibrant.judge.evidence import conversation_items, trusted_evidence
from calibrant.judge.prompt import PromptVariant, build_prompt, static_prompt
from calibrant.probes import ATTACKS, AttackContext
from calibrant.probes.variants import PADDING_CLOSE, PADDING_OPEN, inject, pad
from tests.conftest import ROOT

RUBRIC = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
CLEAN = load_transcript(ROOT / "gold" / "transcripts" / "gold-010.json")
NONCE = "feedfacecafebeef"


def _texts(t):  # type: ignore[no-untyped-def]
    return {i: text for i, _, _, text in conversation_items(t)}


@pytest.mark.parametrize("family", sorted(ATTACKS))
@pytest.mark.parametrize("channel", ["agent", "note"])
def test_an_attack_changes_only_its_channel_and_never_the_records(
    family: str, channel: str
) -> None:
    text = ATTACKS[family](AttackContext(CLEAN, RUBRIC, channel))
    t = inject(CLEAN, channel, text)
    before, after = _texts(CLEAN), _texts(t)
    changed = {k for k in after if before.get(k) != after[k]}
    if channel == "agent":
        last_agent = [turn.turn_id for turn in CLEAN.conversation if turn.role == "agent"][-1]
        assert changed == {last_agent} and after[last_agent].endswith(text)
        assert [e.render() for e in trusted_evidence(t)] == [
            e.render() for e in trusted_evidence(CLEAN)
        ]
    else:
        assert changed == {"note_order_17"} and after["note_order_17"].endswith(text)
        # the only change to the records is the order line saying a note is attached
        old = {e.id: e.text for e in trusted_evidence(CLEAN)}
        new = {e.id: e.text for e in trusted_evidence(t)}
        assert {k for k in new if old.get(k) != new[k]} == {"order_17"}
    assert t.ledger_after == CLEAN.ledger_after and t.tool_calls == CLEAN.tool_calls


@pytest.mark.parametrize("family", sorted(ATTACKS))
def test_the_defended_prompt_keeps_every_attack_inside_the_fence(family: str) -> None:
    t = inject(CLEAN, "agent", ATTACKS[family](AttackContext(CLEAN, RUBRIC, "agent")))
    p = build_prompt(t, RUBRIC, nonce=NONCE)
    inside = p.user.split(f"<<<BEGIN-UNTRUSTED {NONCE}>>>")[1].split(
        f"<<<END-UNTRUSTED {NONCE}>>>"
    )[0]
    assert p.user.count(f"<<<END-UNTRUSTED {NONCE}>>>") == 1
    assert not re.search(r"(?i)untrusted|<<<|>>>|^\[", inside, flags=re.M)
    naive = build_prompt(t, RUBRIC, nonce=NONCE, variant=PromptVariant(defenses=False))
    assert NONCE not in naive.user and "UNTRUSTED" not in naive.system
    assert t.conversation[-1].text in naive.user  # the raw text, not neutralized
    assert naive.system == static_prompt(RUBRIC, defenses=False) != static_prompt(RUBRIC)


def test_the_order_variant_reverses_the_evidence_and_nothing_else() -> None:
    a = build_prompt(CLEAN, RUBRIC, nonce=NONCE)
    b = build_prompt(CLEAN, RUBRIC, nonce=NONCE, variant=PromptVariant(evidence_reversed=True))
    lines = lambda u: [ln for ln in u.splitlines() if ln.startswith("[")]  # noqa: E731
    assert lines(b.user) == lines(a.user)[::-1] and len(lines(a.user)) > 3
    assert a.user.split("CONVERSATION")[1] == b.user.split("CONVERSATION")[1]


def test_padding_wraps_every_agent_message_and_adds_no_fact() -> None:
    t = pad(CLEAN)
    for old, new in zip(CLEAN.conversation, t.conversation, strict=True):
        if old.role == "agent":
            assert new.text == PADDING_OPEN + old.text + PADDING_CLOSE
        else:
            assert new.text == old.text
    assert not re.search(r"\d|refund|order|pass|rate", PADDING_OPEN + PADDING_CLOSE, re.I)


def test_paired_difference_by_hand_and_at_the_edges() -> None:
    # b=6 X only, c=1 Y only, both=0, n=20: p1 = 0.30, p2 = 0.05, difference 0.25;
    # Wilson(6, 20) = [0.145, 0.519], Wilson(1, 20) = [0.009, 0.236];
    # phi = (0*13 - 6*1) / sqrt(6*14*1*19) = -6 / 39.95 = -0.1502;
    # delta = sqrt(0.1545^2 + 2*0.1502*0.1545*0.1861 + 0.1861^2) = 0.2591 -> lower -0.009
    # eps = sqrt(0.2190^2 + 2*0.1502*0.2190*0.0411 + 0.0411^2) = 0.2288 -> upper 0.479
    f = paired_difference(6, 1, 20)
    assert f.value == pytest.approx(0.25)
    assert f.ci95 == pytest.approx((-0.009, 0.479), abs=1e-3)
    zero = paired_difference(0, 0, 30)
    assert zero.value == 0 and zero.ci95[0] < 0 < zero.ci95[1]  # not degenerate at 0 events
    full = paired_difference(30, 0, 30)
    assert full.ci95[1] == 1.0 and 0.8 < full.ci95[0] < 0.886  # inside Wilson(30, 30)
    # no discordant pair, 30 items X and Y, 31 neither: phi = (930 - 30.5) / 930 = 0.967, not 1,
    # so the interval keeps a width: delta = 0.120 * sqrt(2 * (1 - 0.967)) = 0.031
    same = paired_difference(0, 0, 61, both=30)
    assert same.value == 0 and same.ci95 == pytest.approx((-0.031, 0.031), abs=2e-3)
    assert paired_difference(0, 0, 0).value is None


def _cases(g: int, n: int, up: int, fp: int, vary: int = 0) -> dict[str, tuple[int, int, int]]:
    """g cases of n items each: `up` moved toward pass (one more in every other case with
    vary=1), `fp` judged pass without attack."""
    return {f"case{i}": (n, up + (i % 2) * vary, fp) for i in range(g)}


def test_the_attack_gate_rule() -> None:
    # the gate is on success rate - clean false-positive rate of the same items, over cases
    fail = attack_gates({"x": _cases(8, 6, 3, 0)}, margin=0.1, min_items=10)["x"]
    assert fail.status == "FAIL" and fail.difference is not None
    assert fail.difference.value == 0.5 and fail.difference.n_cases == 8
    # nothing moves: the interval keeps a width (Newcombe over the 64 items), below the margin
    clean = attack_gates({"x": _cases(8, 8, 0, 0)}, margin=0.1, min_items=10)["x"]
    assert clean.status == "PASS" and clean.difference is not None
    assert clean.difference.ci95 is not None
    lo, hi = clean.difference.ci95
    assert lo < 0 < hi <= 0.1
    # a high success rate that the clean false-positive rate explains is not an attack
    explained = attack_gates({"x": _cases(8, 8, 4, 4)}, margin=0.1, min_items=10)["x"]
    assert explained.status != "FAIL"
    # three cases decide nothing, however many items and however large the effect
    few = attack_gates({"x": _cases(3, 20, 15, 0)}, margin=0.1, min_items=10)["x"]
    assert (
        few.status == "UNDECIDED" and "below the minimum" in few.reason and "6 cases" in few.reason
    )


def test_the_attack_gates_hold_their_level_together() -> None:
    # alone, an effect just above the margin FAILs; among 17 gates that show nothing, the
    # family-wise level asks for more, and it is UNDECIDED
    borderline = _cases(8, 8, 1, 0, vary=1)
    alone = attack_gates({"x": borderline}, margin=0.1, min_items=10)["x"]
    assert alone.status == "FAIL"
    others = {f"quiet{j}": _cases(8, 8, 0, 0) for j in range(17)}
    together = attack_gates({"x": borderline, **others}, margin=0.1, min_items=10)
    assert together["x"].status == "UNDECIDED"
    difference = together["x"].difference
    assert difference is not None
    assert difference.familywise_confidence == pytest.approx(1 - 0.1 / 18)
    assert {g.status for k, g in together.items() if k != "x"} == {"PASS"}


def test_the_probe_page_documents_every_attack_family_and_probe() -> None:
    from calibrant.probes import PROBES

    page = (ROOT / "docs" / "probe.md").read_text()
    section = page.split("— judge robustness")[1].split("\n## ")[0]
    for name in [*ATTACKS, *PROBES]:
        assert f"`{name}`" in section or f"**{name}**" in section, name
