"""The gold set's splits: whole cases, no conversation or agent text on both sides (identical
or >= 0.9 similar), at least 30 cases and 12 held out, every label value the consensus uses
present in both splits once they are labeled (issue 9, point 12; issue 18, point 8)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from calibrant.errors import InputError
from calibrant.gold import (
    MIN_HELDOUT_CASES,
    GoldItem,
    agent_text,
    case_draw,
    case_groups,
    choose_case_split,
    conversation_text,
    drawn_case_split,
    load_gold,
    new_joins,
    read_manifest,
    split_problems,
)
from tests.conftest import ROOT

GOLD = ROOT / "gold"
MANIFEST = read_manifest(GOLD / "manifest.yaml")
SHEETS = {p.stem: p.read_text(encoding="utf-8") for p in (GOLD / "sheets").glob("*.md")}
CONSENSUS = [
    json.loads(x) for x in (GOLD / "labels" / "consensus.jsonl").read_text().splitlines() if x
]


def _values_by_split() -> dict[str, set[tuple[str, str]]]:
    out: dict[str, set[tuple[str, str]]] = {"calibration": set(), "heldout": set()}
    for x in CONSENSUS:
        out[MANIFEST[x["item"]].split].add((x["criterion"], str(x["label"])))
    return out


def test_no_case_is_in_both_splits() -> None:
    splits: dict[str, set[str]] = {}
    for m in MANIFEST.values():
        splits.setdefault(m.case, set()).add(m.split)
    assert {c: s for c, s in splits.items() if len(s) > 1} == {}
    assert {s for v in splits.values() for s in v} == {"calibration", "heldout"}


@pytest.mark.slow  # every cross-split pair of the shipped sheets through difflib: 40 s at 492 items
def test_no_conversation_crosses_splits_identical_or_nearly() -> None:
    # the held-out sheets used to repeat calibration sheets byte for byte (other item id)
    bodies: dict[str, list[str]] = {}
    for i, text in SHEETS.items():
        bodies.setdefault(conversation_text(text), []).append(MANIFEST[i].split)
    assert [b[:80] for b, s in bodies.items() if len(set(s)) > 1] == []
    assert split_problems(MANIFEST, SHEETS) == []


def test_strict_add_names_a_new_item_that_would_join_its_case_to_another() -> None:
    """`build.py --add --strict`'s rule, on shipped sheets: a writer's new variant that repeats
    another case's words (byte for byte, or with a word changed) is named with the item it
    repeats; one that repeats its own case, or a templated variant that repeats another
    templated case (templated wording repeats by design), or one in words of its own, is not."""
    written = sorted(i for i, m in MANIFEST.items() if m.style == "handwritten")
    held, a = written[:40], written[0]
    fresh = next(
        i for i in written[40:] if MANIFEST[i].case not in {MANIFEST[h].case for h in held}
    )
    templ = sorted(i for i, m in MANIFEST.items() if m.style != "handwritten")
    t1 = templ[0]
    t2 = next(i for i in templ if MANIFEST[i].case != MANIFEST[t1].case)  # another templated case
    cases = {i: MANIFEST[i].case for i in (*held, *templ)}
    sheets = {i: SHEETS[i] for i in cases}
    templated = {MANIFEST[i].case for i in templ}
    # one new item at a time: a copy of `a` in a new case, the same with a word changed, a
    # copy of `a` in `a`'s own case, a templated copy
    body = SHEETS[a]
    head, mark, conversation = body.partition("## Conversation")
    edited = head + mark + conversation.replace(" the ", " the very ", 1)
    assert conversation_text(edited) != conversation_text(body)
    scenarios = {
        ("new_case_copy", body): "the same whole conversation",
        ("new_case_edit", edited): "near-duplicate",
        (MANIFEST[a].case, body): None,
        (MANIFEST[t2].case, SHEETS[t1]): None,
    }
    for (case, sheet), expected in scenarios.items():
        lines = new_joins(
            {**cases, "gold-901": case}, {**sheets, "gold-901": sheet}, {"gold-901"}, templated
        )
        if expected is None:
            assert lines == [], (case, lines)
        else:
            assert lines and all("gold-901" in ln for ln in lines), (case, lines)
            assert any(a in ln and expected in ln for ln in lines), (case, lines)
    # a variant in words of its own (another hand-written case's sheet, not in the set) joins
    # nothing; nothing new names nothing
    own = {**cases, "gold-901": "a_case_of_its_own"}
    assert new_joins(own, {**sheets, "gold-901": SHEETS[fresh]}, {"gold-901"}, templated) == []
    assert new_joins(cases, sheets, set(), templated) == []


WAITING = set((GOLD / "labeling" / "new_items.txt").read_text().split())


def test_the_labeling_list_names_exactly_the_items_without_consensus() -> None:
    assert WAITING == set(MANIFEST) - {x["item"] for x in CONSENSUS}


def test_both_splits_cover_every_label_value_the_consensus_uses_once_labeled() -> None:
    values = _values_by_split()
    everything = values["calibration"] | values["heldout"]
    assert ("reports_access_problem", "not_applicable") in everything  # the rubric allows it
    checked = 0
    for split in ("calibration", "heldout"):
        items = {i for i, m in MANIFEST.items() if m.split == split}
        if items <= WAITING:  # the whole split awaits its annotators (gold v2's held-out)
            continue
        checked += 1
        assert everything - values[split] == set(), split
    assert checked >= 1


def test_there_are_enough_cases_and_held_out_cases() -> None:
    cases = {m.case: m.split for m in MANIFEST.values()}
    assert len(cases) >= 30
    assert sum(1 for s in cases.values() if s == "heldout") >= MIN_HELDOUT_CASES


def test_the_committed_split_follows_the_rule() -> None:
    templated = {m.case for m in MANIFEST.values() if m.style != "handwritten"}
    cases = {i: m.case for i, m in MANIFEST.items()}
    rest = set(cases.values()) - templated
    committed = {m.case: m.split for m in MANIFEST.values()}
    if {committed[c] for c in rest} == {"heldout"}:
        # every hand-written-only case is held out, every templated one in calibration; with
        # no cross-split near-duplicate (test above) no held-out case is joined to calibration,
        # so this is what the rule gives (without comparing all sheets again, which is slow)
        assert {committed[c] for c in templated} == {"calibration"}
    else:
        groups = case_groups(cases, SHEETS, among=rest)
        assert committed == choose_case_split(templated, groups)
    # every held-out item has hand-written agent words
    assert {m.style for m in MANIFEST.values() if m.split == "heldout"} == {"handwritten"}


def test_split_problems_names_a_shared_case_and_a_repeated_conversation() -> None:
    def item(case: str, split: str) -> GoldItem:
        return GoldItem(case=case, agent="scripted:correct", style="terse", seed=1, split=split)

    sheet = "# {id}\n\nCase: `x`\n\n## Conversation\n\n> Your refund of 42.00 EUR is done.\n"
    manifest = {"gold-001": item("a", "calibration"), "gold-002": item("b", "heldout")}
    sheets = {i: sheet.format(id=i) for i in manifest}
    assert split_problems(manifest, sheets) == [
        "gold-001 (calibration) and gold-002 (heldout): the same whole conversation"
    ]
    manifest["gold-003"] = item("a", "heldout")
    sheets["gold-003"] = "## Conversation\n\n> Something else entirely, nothing alike.\n"
    problems = split_problems(manifest, sheets)
    assert "case a has items in both splits" in problems


def _planted(customer: str, agent: str) -> str:
    return (
        "# x\n\n## Conversation and messages sent (what the customer saw)\n\n"
        f"**`turn_01` · t=2 · customer message**\n\n> {customer}\n\n"
        f"**`turn_02` · t=3 · agent message**\n\n> {agent}\n"
    )


def test_a_planted_cross_split_near_duplicate_agent_text_is_refused_in_one_line() -> None:
    # a held-out item whose agent words copy a committed calibration item almost verbatim,
    # under a customer message of its own (so the whole conversations differ more)
    cal = next(i for i, m in sorted(MANIFEST.items()) if m.split == "calibration")
    words = agent_text(SHEETS[cal])
    held = _planted(
        "Buenas tardes, escribo por un pedido que llegó en muy mal estado, con la caja abierta, "
        "el contenido roto en varios trozos y sin la factura que esperaba recibir con él.",
        words + " Thanks.",
    )
    manifest = {
        cal: MANIFEST[cal],
        "gold-999": GoldItem(
            case="planted",
            agent="handwritten:correct",
            style="handwritten",
            seed=1,
            split="heldout",
        ),
    }
    problems = split_problems(manifest, {cal: SHEETS[cal], "gold-999": held})
    mine = [p for p in problems if p.endswith("agent text")]
    assert len(mine) == 1
    assert mine[0].startswith(f"{cal} (calibration) and gold-999 (heldout): a near-duplicate (0.9")
    assert ">= 0.9) agent text" in mine[0]
    # the rule itself never lets it happen: the joined case goes to calibration with its twin
    cases = {cal: MANIFEST[cal].case, "gold-999": "planted"}
    groups = case_groups(cases, {cal: SHEETS[cal], "gold-999": held})
    assert sorted([MANIFEST[cal].case, "planted"]) in groups
    split = choose_case_split({MANIFEST[cal].case}, groups, min_heldout=0)
    assert split["planted"] == "calibration"


def test_agent_text_keeps_only_the_agents_words() -> None:
    sheet = _planted("I want my money", "Your refund is done.")
    sheet += "\n**`att_0008` · t=8 · status_update message sent by the agent (accepted)**\n\n"
    sheet += "> Subject: Update\n> We are on it.\n"
    assert agent_text(sheet) == "Your refund is done. Subject: Update We are on it."


def test_case_groups_join_cases_whose_conversations_repeat() -> None:
    base = "## Conversation\n\n> Thanks Marta, the refund of 42.00 EUR for order_17 is done."
    sheets = {"i1": base, "i2": base + " ", "i3": "## Conversation\n\n> Other words here."}
    groups = case_groups({"i1": "a", "i2": "b", "i3": "c"}, sheets)
    assert groups == [["a", "b"], ["c"]]


def test_choose_case_split_holds_out_only_handwritten_cases_and_needs_enough() -> None:
    groups = [["p"], ["q", "r"], ["s"], ["t"]]
    split = choose_case_split({"p", "r"}, groups, min_heldout=2)
    assert split == {
        "p": "calibration",
        "q": "calibration",  # joined to a templated case by a near-duplicate
        "r": "calibration",
        "s": "heldout",
        "t": "heldout",
    }
    with pytest.raises(ValueError, match=r"only 2 case\(s\) would be held out \(s, t\)"):
        choose_case_split({"p", "r"}, groups, min_heldout=3)


# --- unlabeled items ----------------------------------------------------------------------


def _without_consensus(gold: Path, drop: list[str]) -> None:
    """Remove every consensus label of `drop` (as if those items awaited adjudication)."""
    f = gold / "labels" / "consensus.jsonl"
    rows = [x for x in f.read_text().splitlines() if x and json.loads(x)["item"] not in drop]
    f.write_text("\n".join(rows) + "\n")


def test_the_loader_leaves_unlabeled_items_aside_with_a_note(tmp_path: Path) -> None:
    gold = _copy_gold(tmp_path)
    labeled = {x["item"] for x in CONSENSUS}
    drop = sorted(labeled)[3:6]  # three consecutive ids lose their consensus
    _without_consensus(gold, drop)
    waiting = sorted((set(MANIFEST) - labeled) | set(drop))
    g = load_gold(gold, split=None)
    assert set(g.items) == set(MANIFEST) - set(waiting) == set(g.transcripts)
    assert g.unlabeled == waiting
    assert g.unlabeled_note is not None and "no consensus label" in g.unlabeled_note
    assert f"{drop[0]}..{drop[-1]}" in g.unlabeled_note  # consecutive ids as a range
    assert "3 of them have rater labels awaiting adjudication" in g.unlabeled_note
    for split in ("calibration", "heldout"):
        if not {i for i, m in MANIFEST.items() if m.split == split} - set(waiting):
            with pytest.raises(InputError, match=f"no labeled item in split '{split}'"):
                load_gold(gold, split=split)  # gold v2's held-out split awaits its annotators
            continue
        part = load_gold(gold, split=split)
        assert all(m.split == split for m in part.items.values())
        assert not set(part.items) & set(waiting)


def _copy_gold(dest: Path) -> Path:
    for sub in ("transcripts", "labels"):
        shutil.copytree(GOLD / sub, dest / sub)
    shutil.copy(GOLD / "manifest.yaml", dest / "manifest.yaml")
    return dest


def test_a_split_with_no_labeled_item_is_refused_in_one_line(tmp_path: Path) -> None:
    gold = _copy_gold(tmp_path)
    drop = sorted({x["item"] for x in CONSENSUS})[:3]
    _without_consensus(gold, drop)
    manifest = yaml.safe_load((gold / "manifest.yaml").read_text())
    waiting = sorted((set(manifest) - {x["item"] for x in CONSENSUS}) | set(drop))
    for i, m in manifest.items():
        m["split"] = "heldout" if i in waiting else "calibration"
    (gold / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    with pytest.raises(InputError, match="no labeled item in split 'heldout'"):
        load_gold(gold, split="heldout")
    assert len(load_gold(gold, split="calibration").items) == len(manifest) - len(waiting)


def test_rater_labels_without_consensus_are_named_as_awaiting_adjudication(
    tmp_path: Path,
) -> None:
    gold = _copy_gold(tmp_path)
    item = sorted({x["item"] for x in CONSENSUS})[0]
    for f in (gold / "labels").glob("*.jsonl"):  # the item loses every label...
        rows = [x for x in f.read_text().splitlines() if x and json.loads(x)["item"] != item]
        f.write_text("\n".join(rows) + "\n")
    row = {"item": item, "rater": "rater_c", "criterion": "explains_next_step", "label": "pass"}
    (gold / "labels" / "rater_c.jsonl").write_text(json.dumps(row) + "\n")  # ...but one
    g = load_gold(gold, split=None)
    assert item in g.unlabeled and item not in g.items
    assert "1 of them have rater labels awaiting adjudication" in (g.unlabeled_note or "")


# --- build.py --add -----------------------------------------------------------------------


def _build_module(gold: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("gold_build_copy", gold / "build.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["gold_build_copy"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow  # two trials, then the split rule over every sheet (about 10 s)
def test_build_add_writes_only_new_ids_and_skips_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    shutil.copytree(GOLD, root / "gold")
    shutil.copytree(ROOT / "cases", root / "cases")
    before = {
        p.relative_to(root): p.read_bytes() for p in (root / "gold").rglob("*") if p.is_file()
    }
    build = _build_module(root / "gold")
    top = max(int(i.split("-")[1]) for i in MANIFEST)
    new_spec = ("approval_required", "cross-tenant", "terse", build.SEED)
    repeat = ("approval_required", "note-obeyer", "terse", build.SEED)  # words as the correct one
    build.EXTRA = [*build.EXTRA, new_spec, repeat]
    build.add()
    out = capsys.readouterr().out
    assert "skipped ('approval_required', 'note-obeyer', 'terse'" in out
    new_id = f"gold-{top + 1:03d}"
    manifest = yaml.safe_load((root / "gold" / "manifest.yaml").read_text())
    assert set(manifest) == set(MANIFEST) | {new_id}
    m = manifest[new_id]
    assert (m["case"], m["agent"], m["style"]) == (
        "approval_required",
        "scripted:cross-tenant",
        "terse",
    )
    assert m["split"] == {v.case: v.split for v in MANIFEST.values()}["approval_required"]
    for rel, data in before.items():
        if rel.name in ("manifest.yaml", "verdicts.json", "new_items.txt"):
            continue
        assert (root / rel).read_bytes() == data, f"{rel} changed"
    verdicts = json.loads((root / "gold" / "safety" / "verdicts.json").read_text())
    old = json.loads((GOLD / "safety" / "verdicts.json").read_text())
    assert {k: v for k, v in verdicts.items() if k != new_id} == old and new_id in verdicts
    assert (root / "gold" / "sheets" / f"{new_id}.md").read_text().startswith(f"# {new_id}")
    waiting = (root / "gold" / "labeling" / "new_items.txt").read_text().split()
    assert waiting == sorted(WAITING | {new_id})  # the new item awaits its labels
    old_manifest = yaml.safe_load((GOLD / "manifest.yaml").read_text())
    assert {k: v for k, v in manifest.items() if k != new_id} == old_manifest
    # a second run adds nothing
    build.add()
    assert "0 transcripts added" in capsys.readouterr().out
    assert yaml.safe_load((root / "gold" / "manifest.yaml").read_text()) == manifest


def test_build_add_strict_refuses_a_case_whose_words_repeat_another_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer copies a held-out case and its replies under a new id, changing a greeting (the
    words are another case's): `build.py --add --strict` exits 2 naming each new item with the
    one it repeats, before any file is written."""
    root = tmp_path / "repo"
    shutil.copytree(GOLD, root / "gold")
    shutil.copytree(ROOT / "cases", root / "cases")
    original = "approval_jordi_v4f"
    for folder in ("cases", "replies"):
        text = (root / "gold" / folder / f"{original}.yaml").read_text()
        copied = text.replace(f"case: {original}", "case: approval_jordi_again", 1)
        if folder == "replies":  # a word changed: near-duplicates (an exact repeat is skipped)
            copied = copied.replace('"Hi Jordi,', '"Hello Jordi,')
        assert copied != text
        (root / "gold" / folder / "approval_jordi_again.yaml").write_text(copied)
    before = {
        p.relative_to(root): p.read_bytes() for p in (root / "gold").rglob("*") if p.is_file()
    }
    build = _build_module(root / "gold")
    with pytest.raises(SystemExit) as stopped:
        build.add(strict=True)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("gold/build.py --add --strict: new items would join their cases")
    pairs = [ln for ln in err.splitlines()[1:] if ln]
    originals = {i for i, m in MANIFEST.items() if m.case == original}
    assert pairs and all("approval_jordi_again" in ln and original in ln for ln in pairs)
    assert {ln.split(" ")[0] for ln in pairs} <= originals  # the item each one repeats
    after = {p.relative_to(root): p.read_bytes() for p in (root / "gold").rglob("*") if p.is_file()}
    assert after == before  # nothing written


def test_the_calibration_report_names_the_items_left_aside(tmp_path: Path) -> None:
    from tests.reports.support import build, every_format

    gold = _copy_gold(tmp_path)
    drop = sorted({x["item"] for x in CONSENSUS})[:2]
    _without_consensus(gold, drop)
    loaded = load_gold(gold, split=None)
    r = build("consensus", gold=loaded)
    assert r["gold"]["unlabeled_items"] == loaded.unlabeled and set(drop) <= set(loaded.unlabeled)
    assert r["n_items"] == len(loaded.items)
    for fmt, text in every_format(r).items():
        assert "no consensus label yet and were left aside" in text and drop[0] in text, fmt


def test_a_drawn_split_keeps_each_case_on_its_side_and_never_empties_calibration() -> None:
    """The workbench export's split: a case keeps its side when the set grows, and when every
    case is drawn for held-out, the one drawn highest stays in calibration."""
    a, b, c = "eligible_spanish_jordi", "concurrent_change_tenant_b", "revoked_midway_jordi"
    assert case_draw(a) < case_draw(b) < 0.25 <= case_draw(c)

    def sheet(text: str) -> str:
        return f"# ITEM\n\n## Conversation and messages sent\n\n> {text}\n"

    words = {a: "alpha " * 40, b: "bravo beta " * 30, c: "charlie " * 40}
    cases = {f"{k}-{n}": k for k in (a, b, c) for n in (1, 2)}
    sheets = {i: sheet(words[k] + i) for i, k in cases.items()}
    assert drawn_case_split(cases, sheets, set()) == {a: "heldout", b: "heldout", c: "calibration"}
    only_drawn = {i: k for i, k in cases.items() if k != c}
    fewer = {i: sheets[i] for i in only_drawn}
    assert drawn_case_split(only_drawn, fewer, set()) == {a: "heldout", b: "calibration"}
    assert drawn_case_split(cases, sheets, {a}) == {
        a: "calibration",
        b: "heldout",
        c: "calibration",
    }
