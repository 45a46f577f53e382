"""The embedded judge's three ways of picking labels, on the gold set.

Run: python benchmarks/bench_embedded_calibration.py [--split heldout] [--subset N] [--out FILE]
Each judge is the real command, `calibrant calibrate --gold G --split S --judge NAME --json`, in
a subprocess with a fresh store and a fresh embedded cache folder (so the content-free prior
and the rubric's prompt state are computed inside the timed run). The saved judges are
judges/embedded.yaml plus `label_scoring: joint` (the old way: one answer, each label after the
ones before it), `independent` (each label on its own right after the prompt) or `calibrated`
(independent, rebalanced by the content-free prior). Per criterion: the judge's
label counts on the judged items (a constant rater uses one label), κ with its 95%
case-clustered CI, items and cases, the gate. `--subset N`: a fixed subset of the split, N
items taken round-robin over its cases in item-id order, to iterate quickly; the default is
the whole split.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
JUDGES = {
    "joint": "label_scoring: joint",
    "independent": "label_scoring: independent",
    "calibrated": "label_scoring: calibrated",
}
NAMES = {
    "joint": "joint: each label after the ones before it (before, and the default)",
    "independent": "independent: each label on its own after the prompt, raw",
    "calibrated": "calibrated: each label on its own, content-free prior subtracted (after)",
}


def subset_gold(src: Path, dst: Path, split: str, n: int) -> int:
    """A gold folder with N items of `split`, taken round-robin over its cases (item-id order)."""
    manifest = yaml.safe_load((src / "manifest.yaml").read_text())
    by_case: dict[str, list[str]] = {}
    consensus = {json.loads(x)["item"] for x in (src / "labels" / "consensus.jsonl").open()}
    for item, entry in sorted(manifest.items()):
        if entry["split"] == split and item in consensus:
            by_case.setdefault(entry["case"], []).append(item)
    chosen: list[str] = []
    while len(chosen) < n and any(by_case.values()):
        for case in sorted(by_case):
            if by_case[case] and len(chosen) < n:
                chosen.append(by_case[case].pop(0))
    (dst / "transcripts").mkdir(parents=True)
    (dst / "labels").mkdir()
    (dst / "manifest.yaml").write_text(
        yaml.safe_dump({i: manifest[i] for i in sorted(chosen)}, sort_keys=True)
    )
    for i in chosen:
        name = f"{i}.json"
        (dst / "transcripts" / name).write_bytes((src / "transcripts" / name).read_bytes())
    for f in sorted((src / "labels").glob("*.jsonl")):
        keep = [x for x in f.open() if json.loads(x)["item"] in set(chosen)]
        (dst / "labels" / f.name).write_text("".join(keep))
    return len(chosen)


def judge_labels(db: Path) -> dict[str, Counter[str]]:
    """The judge's label counts per criterion, from the judgments the run stored."""
    out: dict[str, Counter[str]] = {}
    with sqlite3.connect(db) as con:
        for (raw,) in con.execute("select payload from calibrant_judgments"):
            for c in json.loads(raw).get("criteria") or []:
                out.setdefault(c["criterion"], Counter())[str(c["label"])] += 1
    return out


def run(
    judge: str, gold: Path, split: str, tmp: Path, cache: Path | None = None
) -> tuple[float, dict[str, Any], Any]:
    judges = tmp / "judges"
    judges.mkdir(exist_ok=True)
    # judges/embedded.yaml without its own way of picking labels, then the variant's
    saved = yaml.safe_load((ROOT / "judges" / "embedded.yaml").read_text())
    saved = {k: v for k, v in saved.items() if k not in ("label_scoring", "label_prior")}
    (judges / f"{judge}.yaml").write_text(yaml.safe_dump(saved) + JUDGES[judge] + "\n")
    db = tmp / f"{judge}.db"
    env = {
        **os.environ,
        "CALIBRANT_DATABASE_URL": f"sqlite:///{db}",
        "CALIBRANT_JUDGES_DIR": str(judges),
        "CALIBRANT_EMBEDDED_CACHE": str(cache or tmp / f"cache-{judge}"),
    }
    cmd = ["calibrate", "--gold", str(gold), "--split", split, "--judge", judge, "--json"]
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "calibrant", *cmd], cwd=ROOT, env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        sys.exit(f"calibrant {' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return wall, json.loads(proc.stdout), judge_labels(db)


def _kappa(c: dict[str, Any]) -> str:
    k = c["judge_vs_consensus"]
    if k["estimate"] is None:
        return "undefined"
    ci = k["ci"]
    interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else " [CI undefined]"
    return f"{k['estimate']:.2f}{interval}"


def table(report: dict[str, Any], labels: dict[str, Counter[str]]) -> list[str]:
    lines = [
        "| criterion | judge's labels (items) | constant? | κ vs consensus [95% CI] "
        "| items (cases) | gate |",
        "|---|---|---|---|---|---|",
    ]
    for c in report["criteria"]:
        counts = labels.get(c["criterion"], Counter())
        used = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        k = c["judge_vs_consensus"]
        lines.append(
            f"| `{c['criterion']}` | {used} | {'yes' if len(counts) == 1 else 'no'} | "
            f"{_kappa(c)} | {k['n']} ({k['n_clusters']}) | {c['gate']['status']} |"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="heldout")
    ap.add_argument("--subset", type=int, default=0)
    ap.add_argument("--judges", default="joint,independent,calibrated")
    ap.add_argument("--cache", type=Path, help="reuse this embedded cache folder (untimed prior)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/embedded_calibration.md")
    args = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        gold = ROOT / "gold"
        if args.subset:
            gold = tmp / "gold"
            subset_gold(ROOT / "gold", gold, args.split, args.subset)
        for judge in args.judges.split(","):
            results[judge] = run(judge, gold, args.split, tmp, args.cache)
            print(judge, f"{results[judge][0]:.0f} s", file=sys.stderr)
    what = f"{args.subset} items of" if args.subset else "all of"
    lines = [
        "# The embedded judge: contextual calibration of its labels",
        "",
        f"`python benchmarks/bench_embedded_calibration.py --split {args.split}"
        + (f" --subset {args.subset}" if args.subset else "")
        + f"`: {what} the gold split `{args.split}`, judged by SmolLM2-135M (llama.cpp, one "
        "label per criterion picked by log-probability) through the real command, "
        f"`calibrant calibrate --split {args.split} --judge NAME --json`, in a subprocess with a "
        "fresh store and a fresh embedded cache folder, so each wall time includes the model "
        "load, the rubric's evaluation and (calibrated) the content-free prior. The saved judges "
        "are judges/embedded.yaml plus `label_scoring: joint` (the old way and the default), "
        "`independent` or `calibrated`. κ is the judge's against the consensus with its 95% "
        "case-clustered bootstrap CI, as the report gives it; the gate is calibrate's own. "
        "Label counts are the judge's on every item of the split (a constant rater uses one).",
        "",
    ]
    for judge, (wall, report, labels) in results.items():
        name = NAMES.get(judge, judge)
        lines += [
            f"## {name}",
            "",
            f"Wall time {wall / 60:.1f} min for {report['n_items']} items; judge outcomes "
            f"{report['judge_outcomes']}; release gate {report['gate']['judge']}.",
            "",
            *table(report, labels),
            "",
        ]
    lines += [
        f"Machine: {os.cpu_count()} CPUs, {platform.machine()}, Python "
        f"{platform.python_version()}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. The machine is "
        "shared (other sessions ran beside it); one run each.",
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
