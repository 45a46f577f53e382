"""gold/adjudicate.py: a blind packet (no rater identity, random order, key kept apart) and
`apply`, which refuses bad decisions whole and says how often the consensus followed each rater
(issue 9, point 13)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT

GOLD = ROOT / "gold"
TOOL = GOLD / "adjudicate.py"


def _labels(name: str) -> dict[tuple[str, str], Any]:
    rows = [json.loads(x) for x in (GOLD / "labels" / name).read_text().splitlines() if x]
    return {(r["item"], r["criterion"]): r["label"] for r in rows}


A, B = _labels("rater_a.jsonl"), _labels("rater_b.jsonl")
DISPUTED = sorted(k for k in A if k in B and A[k] != B[k])


def _tool() -> ModuleType:
    """gold/adjudicate.py, loaded as the script runs (it is not a package module)."""
    spec = importlib.util.spec_from_file_location("gold_adjudicate", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as for any module: dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


ADJUDICATE = _tool()


def run(*args: str, gold: Path) -> subprocess.CompletedProcess[str]:
    """`python gold/adjudicate.py ARGS --gold GOLD`, its `main` in this process: exit code and
    what it printed (argparse's own exits included)."""
    out, err = io.StringIO(), io.StringIO()
    argv = [*args, "--gold", str(gold)]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = ADJUDICATE.main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return subprocess.CompletedProcess([str(TOOL), *argv], code, out.getvalue(), err.getvalue())


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    g = tmp_path / "gold"
    shutil.copytree(GOLD / "labels", g / "labels")
    return g


def _packet(gold: Path) -> list[dict[str, Any]]:
    r = run("packet", gold=gold)
    assert r.returncode == 0, r.stderr
    return [
        json.loads(x) for x in (gold / "adjudication" / "packet.jsonl").read_text().splitlines()
    ]


def test_packet_has_one_entry_per_disagreement_and_names_no_rater(gold: Path) -> None:
    entries = _packet(gold)
    assert len(DISPUTED) >= 20
    assert sorted((e["item"], e["criterion"]) for e in entries) == DISPUTED
    for f in (gold / "adjudication").iterdir():
        text = f.read_text()
        assert "rater_a" not in text and "rater_b" not in text, f.name
    md = (gold / "adjudication" / "packet.md").read_text()
    for e in entries:
        k = (e["item"], e["criterion"])
        assert sorted(map(str, e["options"].values())) == sorted(map(str, (A[k], B[k])))
        assert e["sheet"] == f"gold/sheets/{e['item']}.md"
        assert f"## {e['id']} — {e['item']}, {e['criterion']}" in md
    # the rubric definition is in the packet
    assert "Definition: Pass when the final state of the conversation" in md
    assert "label X: `" in md and " / label Y: `" in md


def test_packet_order_does_not_follow_the_rater_and_the_key_maps_back(gold: Path) -> None:
    entries = _packet(gold)
    key = json.loads((gold / "adjudication_key" / "key.json").read_text())["entries"]
    first = Counter()
    for e in entries:
        letters = key[e["id"]]["letters"]
        first[letters["X"]] += 1
        for letter, rater in letters.items():
            src = A if rater == "rater_a" else B
            assert e["options"][letter] == src[(e["item"], e["criterion"])]
    assert set(first) == {"rater_a", "rater_b"}  # each rater is shown first somewhere
    assert not (gold / "adjudication" / "key.json").exists()  # the key is kept apart


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _decide(choose: dict[tuple[str, str], Any]) -> list[dict[str, Any]]:
    return [
        {"item": i, "criterion": c, "label": choose[(i, c)], "reason": "from the guide"}
        for i, c in DISPUTED
    ]


def test_apply_counts_whom_the_consensus_followed_and_notes_each_decision(
    gold: Path, tmp_path: Path
) -> None:
    _packet(gold)
    choose: dict[tuple[str, str], Any] = {}
    for n, k in enumerate(DISPUTED):
        choose[k] = A[k] if n % 3 == 0 else B[k]
    neither = next(k for k in DISPUTED if k[1] == "overall_clarity" and {A[k], B[k]} != {1, 4})
    choose[neither] = next(v for v in (1, 2, 3, 4) if v not in (A[neither], B[neither]))
    want_a = sum(1 for k in DISPUTED if k != neither and choose[k] == A[k])
    want_b = sum(1 for k in DISPUTED if k != neither and choose[k] == B[k])
    decisions = _write(tmp_path / "DECISIONS.jsonl", _decide(choose))
    r = run("apply", str(decisions), gold=gold)
    assert r.returncode == 0, r.stderr
    n = len(DISPUTED)
    assert f"consensus followed rater_a: {want_a} of {n} disagreements" in r.stdout
    assert f"consensus followed rater_b: {want_b} of {n} disagreements" in r.stdout
    assert f"consensus followed neither: 1 of {n} disagreements" in r.stdout
    rows = [json.loads(x) for x in (gold / "labels" / "consensus.jsonl").read_text().splitlines()]
    cons = {(x["item"], x["criterion"]): x for x in rows}
    assert set(cons) == set(A) & set(B)
    for k in DISPUTED:
        note = cons[k]["note"]
        assert cons[k]["label"] == choose[k]
        assert "reason: from the guide" in note and f"decision: {json.dumps(choose[k])}" in note
        who = "neither" if k == neither else ("rater_a" if choose[k] == A[k] else "rater_b")
        assert note.endswith(f"followed: {who}")
    agreed = next(k for k in A if A[k] == B.get(k))
    assert cons[agreed]["label"] == A[agreed] and "note" not in cons[agreed]


@pytest.mark.parametrize(
    "change, field, words",
    [
        ("undisputed", "item", "is not disputed"),
        ("unknown label", "label", "is not a decision the rubric allows"),
        ("string level", "label", "is not a decision the rubric allows"),
        ("cant_tell", "label", "is not a decision the rubric allows"),
        ("twice", "item", "already decided on line 1"),
        ("missing", None, "no decision for"),
    ],
)
def test_apply_refuses_bad_decisions_in_one_line_and_writes_nothing(
    gold: Path, tmp_path: Path, change: str, field: str | None, words: str
) -> None:
    rows = _decide({k: B[k] for k in DISPUTED})
    line = 1
    if change == "undisputed":
        agreed = next(k for k in sorted(A) if A[k] == B.get(k))
        rows.append({"item": agreed[0], "criterion": agreed[1], "label": A[agreed], "reason": "x"})
        line = len(rows)
    elif change == "unknown label":
        rows[0]["label"] = "maybe"
    elif change == "string level":
        idx = next(n for n, r in enumerate(rows) if r["criterion"] == "overall_clarity")
        rows[idx]["label"] = str(rows[idx]["label"])
        line = idx + 1
    elif change == "cant_tell":
        rows[0]["label"] = "cant_tell"
    elif change == "twice":
        rows.append(dict(rows[0]))
        line = len(rows)
    else:
        rows.pop()
    decisions = _write(tmp_path / "DECISIONS.jsonl", rows)
    before = (gold / "labels" / "consensus.jsonl").read_bytes()
    r = run("apply", str(decisions), gold=gold)
    assert r.returncode == 2
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and words in err
    if field:
        assert f"{decisions}:{line}: field '{field}'" in err
    assert (gold / "labels" / "consensus.jsonl").read_bytes() == before
