"""Small copies of the shipped gold set, for tests that judge it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from tests.conftest import ROOT

__all__ = ["small_gold"]


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
