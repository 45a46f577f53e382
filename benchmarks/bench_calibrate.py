"""`calibrant calibrate` wall time on the embedded judge, cold (empty store) and cached.

Run: python benchmarks/bench_calibrate.py [--split calibration]
Writes benchmarks/results/calibrate.md. Each pass is the real command in a subprocess, so
process start, litellm import, model load, judging, bootstrap and rendering are all counted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(split: str, db: Path) -> tuple[float, dict]:  # type: ignore[type-arg]
    env = {**os.environ, "CALIBRANT_DATABASE_URL": f"sqlite:///{db}"}
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "calibrant", "calibrate", "--split", split, "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return time.perf_counter() - t0, json.loads(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="calibration")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "store.db"
        cold, report = run(args.split, db)
        cached, again = run(args.split, db)
    n = report["n_items"]
    r = report["run"]
    rows = [
        ("cold (empty store)", cold, r["model_calls"], r["from_cache"]),
        ("cached (second run)", cached, again["run"]["model_calls"], again["run"]["from_cache"]),
    ]
    lines = [
        "# `calibrate` on the embedded judge",
        "",
        f"`python benchmarks/bench_calibrate.py --split {args.split}`: the real command "
        f"(`calibrant calibrate --split {args.split} --json`) in a subprocess, SmolLM2-135M "
        "via llama.cpp, default judge settings, 2,000 bootstrap resamples.",
        "",
        "| run | items | wall s | s per item | model calls | from cache |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {n} | {wall:.1f} | {wall / n:.2f} | {calls} | {hits} |"
        for name, wall, calls, hits in rows
    ]
    lines += [
        "",
        f"Cached / cold: {cached / cold:.3f}. Tokens in the cold run: "
        f"{r['input_tokens']} prompt ({r['cached_tokens']} served from the prefix cache), "
        f"{r['output_tokens']} generated; cost {r['cost_usd']}.",
        f"Judge outcomes: {report['judge_outcomes']}; release gate: {report['gate']['judge']}.",
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.machine()}, Python "
        f"{platform.python_version()}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. The machine is "
        "shared; one run each.",
    ]
    out = ROOT / "benchmarks" / "results" / "calibrate.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
