"""The gold set's labels are rubric 1.1's (issue 31) and a complete gold label set: every item of
the manifest labelled on every criterion by both raters and by the consensus, every label on the
shipped rubric's scales, the consensus equal to the raters wherever they agree and to the blind
adjudicator's decision wherever they do not; rubric 1.0's labels are kept beside them and still
load against rubric 1.0; the replication raters of gold/rubric-1.1/ labelled all of gold v3. A
label file edited by hand that breaks any of this fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibrant.files import load_rubric
from calibrant.gold import load_gold

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "gold"
OLD = GOLD / "labels-rubric-1.0"


def _labels(path: Path) -> dict[tuple[str, str], object]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    out = {(r["item"], r["criterion"]): r["label"] for r in rows}
    assert len(out) == len(rows), f"{path.name}: an (item, criterion) labelled twice"
    return out


def test_the_gold_set_is_labelled_on_the_shipped_rubric_1_1() -> None:
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    assert rubric.version == "1.1"
    gold = load_gold(GOLD, split=None)
    gold.validate(rubric)  # every label on its criterion's scale
    assert sorted(gold.experts) == ["rater_a", "rater_b"]
    for c in rubric.criteria:
        for rater in ("rater_a", "rater_b", "consensus"):
            assert set(gold.labels_by(rater, c.id)) == set(gold.item_ids), (rater, c.id)


def test_rubric_1_0_labels_still_load_against_rubric_1_0(tmp_path: Path) -> None:
    rubric = load_rubric(OLD / "refund_communication.yaml")
    assert rubric.version == "1.0"
    gold = tmp_path / "gold-1.0"
    (gold / "labels").mkdir(parents=True)
    (gold / "transcripts").symlink_to(GOLD / "transcripts", target_is_directory=True)
    (gold / "manifest.yaml").write_text((GOLD / "manifest.yaml").read_text())
    for name in ("rater_a", "rater_b", "consensus"):
        (gold / "labels" / f"{name}.jsonl").write_text((OLD / f"{name}.jsonl").read_text())
    loaded = load_gold(gold, split=None)
    loaded.validate(rubric)
    v3 = {i for i, _ in _labels(OLD / "consensus.jsonl")}
    assert len(v3) == 300
    for c in rubric.criteria:
        assert set(loaded.labels_by("consensus", c.id)) == v3, c.id


@pytest.mark.parametrize("rater", ["rater_c", "rater_d"])
def test_the_replication_raters_labelled_every_item_of_gold_v3(rater: str) -> None:
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    v3 = {item for item, _ in _labels(OLD / "consensus.jsonl")}
    got = _labels(GOLD / "rubric-1.1" / "replication" / f"{rater}.jsonl")
    assert set(got) == {(i, c.id) for i in v3 for c in rubric.criteria}


def test_the_consensus_is_the_raters_agreement_or_the_adjudicators_decision() -> None:
    a = _labels(GOLD / "labels" / "rater_a.jsonl")
    b = _labels(GOLD / "labels" / "rater_b.jsonl")
    consensus = _labels(GOLD / "labels" / "consensus.jsonl")
    decided = _labels(GOLD / "adjudication" / "decisions.jsonl")
    disputed = {k for k in a if a[k] != b[k]}
    assert set(decided) == disputed
    assert set(consensus) == set(a) == set(b)
    for k, label in consensus.items():
        assert label == (decided[k] if k in disputed else a[k]), k
