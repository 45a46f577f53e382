"""The gate's power on gold v3 (its 300 items) labelled under rubric 1.1 (issue 31).

`benchmarks/bench_gold_power.py` run on gold v3's transcripts, manifest entries and rubric 1.1
labels (rater_a, rater_b and the blind adjudication's consensus; gold/labels/ restricted to the
items rubric 1.0 labelled) and the shipped rubric 1.1: how often a judge as good as these experts
PASSes each criterion on gold v3's held-out split. The measurement that sized gold v4; since
gold v4, `python benchmarks/bench_gold_power.py` measures the whole set.

    python gold/rubric-1.1/power.py            # writes benchmarks/results/gold_power_rubric_1_1.md
    python gold/rubric-1.1/power.py --quick    # a smoke run, printed
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_gold_power as bench  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "gold_power_rubric_1_1.md"


def gold_under_1_1(into: Path) -> Path:
    """A gold folder: gold v3's transcripts, manifest entries and rubric 1.1 labels."""
    gold = into / "gold-rubric-1.1"
    (gold / "labels").mkdir(parents=True)
    (gold / "transcripts").symlink_to(ROOT / "gold" / "transcripts", target_is_directory=True)
    old = ROOT / "gold" / "labels-rubric-1.0" / "consensus.jsonl"
    v3 = {json.loads(x)["item"] for x in old.read_text(encoding="utf-8").splitlines() if x}
    manifest = yaml.safe_load((ROOT / "gold" / "manifest.yaml").read_text(encoding="utf-8"))
    kept = {i: m for i, m in manifest.items() if i in v3}
    (gold / "manifest.yaml").write_text(yaml.safe_dump(kept, sort_keys=True), encoding="utf-8")
    for f in sorted((ROOT / "gold" / "labels").glob("*.jsonl")):
        rows = [x for x in f.read_text(encoding="utf-8").splitlines() if x]
        mine = [x for x in rows if json.loads(x)["item"] in v3]
        (gold / "labels" / f.name).write_text("".join(x + "\n" for x in mine), encoding="utf-8")
    return gold


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        gold = gold_under_1_1(Path(tmp))
        args = [
            "--gold",
            str(gold),
            "--rubric",
            str(ROOT / "rubrics" / "refund_communication.yaml"),
        ]
        if "--quick" in argv:
            return bench.main([*args, "--quick"])
        return bench.main([*args, "--out", str(OUT), *argv])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
