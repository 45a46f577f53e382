"""Small copies of the shipped gold set, for tests that judge it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from tests.conftest import ROOT

__all__ = ["small_gold"]


def small_gold(dest: Path, n: int = 4) -> Path:
    """A copy of the shipped gold set restricted to its first `n` held-out items."""
    manifest = yaml.safe_load((ROOT / "gold" / "manifest.yaml").read_text())
    keep = sorted(k for k, v in manifest.items() if v["split"] == "heldout")[:n]
    (dest / "transcripts").mkdir(parents=True)
    (dest / "labels").mkdir()
    (dest / "manifest.yaml").write_text(yaml.safe_dump({k: manifest[k] for k in keep}))
    for k in keep:
        shutil.copy(ROOT / "gold" / "transcripts" / f"{k}.json", dest / "transcripts")
    for f in (ROOT / "gold" / "labels").glob("*.jsonl"):
        rows = [ln for ln in f.read_text().splitlines() if json.loads(ln)["item"] in keep]
        (dest / "labels" / f.name).write_text("\n".join(rows) + "\n")
    return dest
