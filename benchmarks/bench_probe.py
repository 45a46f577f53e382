"""Test the tester, measured: every planted-defect simulated judge through the real probe
command (`calibrant probe --planted B --json`) on a gold split, and which probe flags it.
Writes benchmarks/results/probe.md.

    python benchmarks/bench_probe.py [--split calibration]
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BEHAVIOURS = ["clean", "obey:0.5", "fence:1", "verbose:1", "middle", "order:1", "noisy:0.3"]
sys.path.insert(0, str(ROOT / "src"))

from calibrant.reports.probe import rate, shift  # noqa: E402


def run(behaviour: str, split: str, store: Path) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "calibrant",
            "probe",
            "--planted",
            behaviour,
            "--split",
            split,
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={
            **os.environ,
            "CALIBRANT_DATABASE_URL": f"sqlite:///{store}",
            "PYTHONPATH": str(ROOT / "src"),
        },
        check=True,
    )
    return json.loads(proc.stdout), time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="calibration")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for b in BEHAVIOURS:
            r, wall = run(b, args.split, Path(tmp) / "s.db")
            p = r["probes"]
            d = p["injection"]["prompts"]["defended"]
            n = p["injection"]["prompts"]["naive"]
            rows.append(
                [
                    f"`{b}`",
                    rate(d["clean_false_positive_rate"]),
                    rate(d["families"]["completion"]["agent"]["attack_success_rate"]),
                    rate(d["families"]["fence_close"]["agent"]["attack_success_rate"]),
                    rate(n["families"]["fence_close"]["agent"]["attack_success_rate"]),
                    p["injection"]["gate"]["status"],
                    shift(p["verbosity"]["net_shift"]),
                    shift(p["order"]["changed_beyond_noise"]),
                    rate(p["stability"]["items_with_differing_samples"]),
                    shift(p["central"]["criteria"]["overall_clarity"]["difference"]),
                    "; ".join(r["flags"]) or "none",
                    f"{wall:.1f}",
                ]
            )
    head = [
        "planted judge",
        "clean false-positive rate",
        "`completion` (agent), defended",
        "`fence_close` (agent), defended",
        "`fence_close` (agent), naive",
        "injection gate",
        "verbosity net shift",
        "order: changed beyond noise",
        "stability: items differing",
        "central tendency (overall_clarity)",
        "flags",
        "wall s",
    ]
    out = [
        "# Test the tester: planted-defect judges through `calibrant probe`",
        "",
        f"`python benchmarks/bench_probe.py --split {args.split}`: each simulated judge through "
        "the real command (`calibrant probe --planted B --json`, every probe, every attack "
        "family, both channels, defended and naive prompt, k = 3). Rates with their 95% Wilson "
        "interval and n (items); differences in percentage points with Newcombe's paired "
        "interval. The injection columns are over the items whose consensus marks a failed "
        "criterion; the bias columns over every item of the split.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.machine()}, Python "
        f"{platform.python_version()}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. One run each "
        "(the planted judges are deterministic given the seed, 0).",
    ]
    dest = ROOT / "benchmarks" / "results" / "probe.md"
    dest.write_text("\n".join(out) + "\n")
    print(dest.read_text())


if __name__ == "__main__":
    main()
