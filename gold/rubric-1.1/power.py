"""The gate's power on the gold set labelled under rubric 1.1 (the labels in this folder).

`benchmarks/bench_gold_power.py` run on the gold set's transcripts and manifest with the labels
of `labels/` (rater_a, rater_b and the blind adjudication's consensus) and this folder's rubric:
how often a judge as good as these experts PASSes each criterion on the held-out split, and
whether every criterion has at least 10 cases rated by both experts where it applies.

    python gold/rubric-1.1/power.py            # writes benchmarks/results/gold_power_rubric_1_1.md
    python gold/rubric-1.1/power.py --quick    # a smoke run, printed
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_gold_power as bench  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "gold_power_rubric_1_1.md"


def gold_under_1_1(into: Path) -> Path:
    """A gold folder: the gold set's transcripts and manifest, this folder's labels."""
    gold = into / "gold-rubric-1.1"
    (gold / "labels").mkdir(parents=True)
    (gold / "transcripts").symlink_to(ROOT / "gold" / "transcripts", target_is_directory=True)
    shutil.copy(ROOT / "gold" / "manifest.yaml", gold / "manifest.yaml")
    for f in sorted((HERE / "labels").glob("*.jsonl")):
        shutil.copy(f, gold / "labels" / f.name)
    return gold


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        gold = gold_under_1_1(Path(tmp))
        args = ["--gold", str(gold), "--rubric", str(HERE / "refund_communication.yaml")]
        if "--quick" in argv:
            return bench.main([*args, "--quick"])
        return bench.main([*args, "--out", str(OUT), *argv])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
