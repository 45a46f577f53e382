"""The gold set's labels under rubric 1.1 (gold/rubric-1.1/, issue 31) are a complete gold label
set: every item of the manifest labelled on every criterion by both raters and by the consensus,
every label on the 1.1 rubric's scales, the consensus equal to the raters wherever they agree
and to the blind adjudicator's decision wherever they do not, and the replication raters
complete too. A label file edited by hand that breaks any of this fails here."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from calibrant.files import load_rubric
from calibrant.gold import load_gold

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "gold" / "rubric-1.1"


def _power_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gold_power_1_1", HERE / "power.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _labels(path: Path) -> dict[tuple[str, str], object]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    out = {(r["item"], r["criterion"]): r["label"] for r in rows}
    assert len(out) == len(rows), f"{path.name}: an (item, criterion) labelled twice"
    return out


def test_the_1_1_labels_load_as_a_gold_set_on_the_1_1_rubric(tmp_path: Path) -> None:
    rubric = load_rubric(HERE / "refund_communication.yaml")
    assert rubric.version == "1.1"
    gold = load_gold(_power_module().gold_under_1_1(tmp_path), split=None)
    gold.validate(rubric)  # every label on its criterion's scale
    assert sorted(gold.experts) == ["rater_a", "rater_b"]
    for c in rubric.criteria:
        for rater in ("rater_a", "rater_b", "consensus"):
            assert set(gold.labels_by(rater, c.id)) == set(gold.item_ids), (rater, c.id)


@pytest.mark.parametrize("rater", ["rater_c", "rater_d"])
def test_the_replication_raters_labelled_every_item(rater: str) -> None:
    rubric = load_rubric(HERE / "refund_communication.yaml")
    items = {item for item, _ in _labels(HERE / "labels" / "consensus.jsonl")}
    assert len(items) == 300
    got = _labels(HERE / "replication" / f"{rater}.jsonl")
    assert set(got) == {(i, c.id) for i in items for c in rubric.criteria}


def test_the_consensus_is_the_raters_agreement_or_the_adjudicators_decision() -> None:
    a = _labels(HERE / "labels" / "rater_a.jsonl")
    b = _labels(HERE / "labels" / "rater_b.jsonl")
    consensus = _labels(HERE / "labels" / "consensus.jsonl")
    decided = _labels(HERE / "adjudication" / "decisions.jsonl")
    disputed = {k for k in a if a[k] != b[k]}
    assert set(decided) == disputed
    for k, label in consensus.items():
        assert label == (decided[k] if k in disputed else a[k]), k
