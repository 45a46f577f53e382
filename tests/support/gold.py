"""Small copies of the shipped gold set, for tests that judge it."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import yaml

from calibrant.gold import GoldSet
from tests.conftest import ROOT

__all__ = ["GOLD_BEFORE_V4", "gold_v3", "small_gold"]

GOLD_BEFORE_V4 = "gold-300"
"""Gold v3's last item: gold v4's items (gold-301 on) came later."""


def gold_v3(gold: GoldSet) -> GoldSet:
    """`gold` restricted to gold v3's items (gold-001 … gold-300, 73 cases): the set the tests
    that calibrate planted judges on the shipped gold were written against. Their cost then does
    not grow with the gold set (gold v4 made it 492 items); what they check of calibration is
    the same on either. Tests of the shipped set itself read it whole."""
    keep = {i for i in gold.items if i <= GOLD_BEFORE_V4}
    return dataclasses.replace(
        gold,
        items={i: m for i, m in gold.items.items() if i in keep},
        transcripts={i: t for i, t in gold.transcripts.items() if i in keep},
        unlabeled=[i for i in gold.unlabeled if i in keep],
    )


V1_HELDOUT = {
    "approval_required",
    "crash_after_notification_accept",
    "policy_in_customer_note",
    "revoked_permission",
}


def small_gold(dest: Path, n: int = 4) -> Path:
    """A copy of the shipped gold set restricted to the first `n` labeled items of the cases
    gold v1 held out (gold v2 moved them to calibration and holds out cases still awaiting their
    labels), as a held-out split: the same items these tests always used."""
    manifest = yaml.safe_load((ROOT / "gold" / "manifest.yaml").read_text())
    labeled = {
        json.loads(ln)["item"]
        for ln in (ROOT / "gold" / "labels" / "consensus.jsonl").read_text().splitlines()
        if ln.strip()
    }
    keep = sorted(k for k in labeled if manifest[k]["case"] in V1_HELDOUT)[:n]
    (dest / "transcripts").mkdir(parents=True)
    (dest / "labels").mkdir()
    sub = {k: {**manifest[k], "split": "heldout"} for k in keep}
    (dest / "manifest.yaml").write_text(yaml.safe_dump(sub))
    for k in keep:
        shutil.copy(ROOT / "gold" / "transcripts" / f"{k}.json", dest / "transcripts")
    for f in (ROOT / "gold" / "labels").glob("*.jsonl"):
        rows = [ln for ln in f.read_text().splitlines() if json.loads(ln)["item"] in keep]
        (dest / "labels" / f.name).write_text("\n".join(rows) + "\n")
    return dest
