"""Which items to label next (`calibrant propose`): new cases before more items of a labeled
case, the rarer judged class when the labeled set holds less of it than the judge gives it, the
same ranking for the same seed, and bad input refused in one line with exit 2."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from calibrant.calibration.propose import LabeledItem, PoolItem, propose
from tests.conftest import ROOT, Result

SHIPPED = ROOT / "gold"
CRITERION = "explains_next_step"


def _labeled(n: int, cases: int, judge: str = "pass") -> list[LabeledItem]:
    return [LabeledItem(f"l{i}", f"c{i % cases}", judge, judge) for i in range(n)]


def test_new_cases_come_before_more_items_of_a_labeled_case() -> None:
    labeled = _labeled(12, 4)  # cases c0..c3 hold 3 labels each
    pool = [PoolItem(f"p{i}", f"c{i % 4}", "pass") for i in range(20)]  # more of c0..c3
    pool += [PoolItem(f"n{i}", f"new{i // 2}", "pass") for i in range(6)]  # 3 new cases x 2
    picks = propose(labeled, pool, count=5, seed=1)
    # one item of each of the three new cases first, then the second items of the new cases
    # (1 label) before a fourth item of an old case (3 labels)
    assert {p.case for p in picks[:3]} == {"new0", "new1", "new2"}
    assert all(p.new_case for p in picks[:3]) and not any(p.new_case for p in picks[3:])
    assert {p.case for p in picks[3:]} <= {"new0", "new1", "new2"}
    assert "has no label yet" in picks[0].reason and "case-clustered" in picks[0].reason
    # random ignores cases: from the same pool it takes old cases at their share
    drawn = propose(labeled, pool, count=20, strategy="random", seed=1)
    assert sum(p.new_case for p in drawn) < 6


def test_the_rarer_judged_class_first_when_the_labeled_set_lacks_it() -> None:
    labeled = _labeled(20, 20)  # the judge said pass on every labeled item
    pool = [PoolItem(f"f{i}", f"fc{i}", "fail") for i in range(10)]
    pool += [PoolItem(f"p{i}", f"pc{i}", "pass") for i in range(40)]
    picks = propose(labeled, pool, count=10, seed=0)
    # fail is 10 of the 70 judged items (14%): the labeled set holds none, so the proposal
    # brings it to its share, and no further
    fails = [p for p in picks if p.judge == "fail"]
    assert picks[0].judge == "fail"
    assert "14% share" in picks[0].reason
    assert len(fails) == round(10 / 70 * 30) == 4
    # stratified balances the classes outright: every pick is a fail until they are even
    assert all(p.judge == "fail" for p in propose(labeled, pool, count=10, strategy="stratified"))


def test_disagreement_first_and_same_seed_same_ranking() -> None:
    pool = [PoolItem(f"p{i}", f"c{i}", "pass", "fail" if i % 7 == 0 else "pass") for i in range(30)]
    picks = propose([], pool, count=5, strategy="disagree", seed=3)
    assert {p.item for p in picks} == {"p0", "p7", "p14", "p21", "p28"}  # the 5 disagreements
    assert "disagree ('pass' vs 'fail')" in picks[0].reason
    for strategy in ("proposed", "random", "unseen"):
        a = propose([], pool, count=10, strategy=strategy, seed=5)  # type: ignore[arg-type]
        assert a == propose([], pool, count=10, strategy=strategy, seed=5)  # type: ignore[arg-type]
        assert [p.item for p in a] != [
            p.item
            for p in propose([], pool, count=10, strategy=strategy, seed=6)  # type: ignore[arg-type]
        ]


@pytest.mark.parametrize(
    ("labeled", "pool", "kwargs", "message"),
    [
        ([], [PoolItem("a", "c", "pass")] * 2, {}, "item 'a' is in the pool twice"),
        (_labeled(1, 1), [PoolItem("l0", "c", "pass")], {}, "item 'l0' is both labeled"),
        ([], [PoolItem("a", "c", "pass")], {"count": 0}, "count must be a positive integer"),
        ([], [PoolItem("a", "c", "pass")], {"strategy": "best"}, "unknown strategy 'best'"),
        ([], [PoolItem("a", "c", "pass")], {"strategy": "disagree"}, "needs a second judge"),
    ],
)
def test_bad_input_is_one_clear_error(
    labeled: list[LabeledItem], pool: list[PoolItem], kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"count": 3, **kwargs}
    with pytest.raises(ValueError, match=message):
        propose(labeled, pool, **args)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def gold(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, set[str]]:
    """The calibration items of the shipped gold folder's first 16 cases, the consensus kept on
    the items of 8 of them only (the others wait for labels), and a verdicts file judging every
    item on one criterion: fail on every fifth item, pass otherwise. Returns the folder, the
    verdicts, and the cases that hold a consensus label."""
    dest = tmp_path_factory.mktemp("gold") / "gold"
    manifest = yaml.safe_load((SHIPPED / "manifest.yaml").read_text())
    cases = sorted({v["case"] for v in manifest.values() if v["split"] == "calibration"})[:16]
    manifest = {
        k: v for k, v in manifest.items() if v["split"] == "calibration" and v["case"] in cases
    }
    keep = set(cases[:8])
    (dest / "transcripts").mkdir(parents=True)
    (dest / "labels").mkdir()
    (dest / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    for k in manifest:
        shutil.copy(SHIPPED / "transcripts" / f"{k}.json", dest / "transcripts")
    for f in (SHIPPED / "labels").glob("*.jsonl"):
        rows = [json.loads(x) for x in f.read_text().splitlines()]
        kept = [
            r
            for r in rows
            if r["item"] in manifest
            and (r["rater"] != "consensus" or manifest[r["item"]]["case"] in keep)
        ]
        (dest / "labels" / f.name).write_text("".join(json.dumps(r) + "\n" for r in kept))
    verdicts = dest.parent / "verdicts.csv"
    lines = ["item,criterion,label,judge_version"]
    lines += [
        f"{item},{CRITERION},{'fail' if n % 5 == 0 else 'pass'},v1"
        for n, item in enumerate(sorted(manifest))
    ]
    verdicts.write_text("\n".join(lines) + "\n")
    return dest, verdicts, keep


def test_propose_on_a_gold_folder(
    cli: Callable[..., Result], gold: tuple[Path, Path, set[str]]
) -> None:
    folder, verdicts, labeled_cases = gold
    common = ["--gold", str(folder), "--verdicts", str(verdicts), "--criterion", CRITERION]
    r = cli("propose", *common, "--count", "6", "--seed", "2", "--json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["labeled"]["cases"] == 8 and out["pool"]["cases"] == 8
    picks = out["proposals"]
    assert len(picks) == 6 and out["proposed_new_cases"] == 6
    assert len({p["case"] for p in picks}) == 6  # six different cases ...
    assert not {p["case"] for p in picks} & labeled_cases  # ... none of them labeled yet
    text = cli("propose", *common, "--count", "2")
    assert text.code == 0 and "  1. gold-" in text.out
    assert "2 item(s), 2 of them in new cases" in text.out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--criterion", "tone"], "--criterion tone: not a criterion of the rubric"),
        (["--criterion", CRITERION, "--count", "0"], "--count must be at least 1"),
        (["--criterion", CRITERION, "--strategy", "disagree"], "needs a second judge version"),
        (["--criterion", CRITERION, "--strategy", "best"], "--strategy best: unknown"),
    ],
)
def test_bad_options_one_line_exit_2(
    cli: Callable[..., Result], gold: tuple[Path, Path, set[str]], extra: list[str], message: str
) -> None:
    folder, verdicts, _ = gold
    r = cli("propose", "--gold", str(folder), "--verdicts", str(verdicts), *extra)
    assert r.code == 2
    assert message in r.err and len(r.err.strip().splitlines()) == 1


def test_a_bad_verdicts_row_is_named_by_file_and_line(
    cli: Callable[..., Result], gold: tuple[Path, Path, set[str]], tmp_path: Path
) -> None:
    folder, verdicts, _ = gold
    bad = tmp_path / "verdicts.csv"
    text = verdicts.read_text().splitlines()
    text[3] = f"no-such-item,{CRITERION},pass,v1"
    bad.write_text("\n".join(text) + "\n")
    r = cli("propose", "--gold", str(folder), "--verdicts", str(bad), "--criterion", CRITERION)
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1
    assert f"{bad}:4" in r.err and "item" in r.err
