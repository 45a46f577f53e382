"""Seconds per item of the embedded judge: the old path against the new one, in the same run.

Run: ``python benchmarks/bench_embedded_speed.py [--items 5] [--reps 2]``. Writes
benchmarks/results/embedded_speed.md.

Each mode is a fresh ``calibrant judge ITEMS --json`` process on the same gold transcripts with
an empty store, so every item is a model call and the time includes loading the model and
evaluating the static part of the prompt, as a user's run does:

- *old*: today's answer (rationale, cited ids and label per criterion, generated under a JSON
  grammar), no saved prompt state (``CALIBRANT_EMBEDDED_CACHE=off``), 2 threads;
- *new, first process*: labels only, each picked by comparing label log-probabilities, with an
  empty prompt-state folder (the static part is evaluated, then saved);
- *new*: the same with the state saved by an earlier process (what every later run sees);
- *new, 2 threads*: the same as *new* with ``CALIBRANT_EMBEDDED_THREADS=2``.

Modes alternate within each repetition so that all see the same background load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "embedded_speed.md"

JUDGES = {
    "old": "model: calibrant-local/smollm2-135m\nanswer_format: full\nconcurrency: 1\n",
    "new": "model: calibrant-local/smollm2-135m\nanswer_format: labels\nconcurrency: 1\n",
}


def run_mode(
    mode: str, items: list[Path], work: Path, states: Path, threads: str | None
) -> dict[str, Any]:
    """One fresh `calibrant judge` process; wall seconds, per-call latencies and labels."""
    judge = "old" if mode == "old" else "new"
    env = {
        **os.environ,
        "CALIBRANT_DATABASE_URL": f"sqlite:///{work / f'{mode}-{time.monotonic_ns()}.db'}",
        "CALIBRANT_JUDGES_DIR": str(work / "judges"),
        "CALIBRANT_EMBEDDED_CACHE": "off" if mode == "old" else str(states),
        "PYTHONPATH": str(ROOT / "src"),
    }
    if threads:
        env["CALIBRANT_EMBEDDED_THREADS"] = threads
    else:
        env.pop("CALIBRANT_EMBEDDED_THREADS", None)
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "calibrant", "judge", *map(str, items), "--judge", judge, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=3600,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{mode}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    doc = json.loads(proc.stdout)
    judgments = [j for t in doc["transcripts"] for j in t["communication"]]
    return {
        "wall": wall,
        "latency": [j["latency_ms"] / 1000 for j in judgments],
        "verdicts": sum(j["outcome"] == "verdict" for j in judgments),
        "labels": [[c["label"] for c in j.get("criteria") or []] for j in judgments],
        "output_tokens": [j["output_tokens"] for j in judgments],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--items", type=int, default=5)
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()
    items = sorted((ROOT / "gold" / "transcripts").glob("*.json"))[: args.items]
    load = os.getloadavg()
    modes = {
        "old": ("old path: full answer under a grammar, no saved state, 2 threads", "2"),
        "first": ("new path, first process (state evaluated, then saved)", None),
        "new": ("new path: label scoring, saved state loaded, default threads", None),
        "new2": ("new path with 2 threads", "2"),
    }
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory(prefix="bench-embedded-") as tmp:
        work = Path(tmp)
        (work / "judges").mkdir()
        for name, text in JUDGES.items():
            (work / "judges" / f"{name}.yaml").write_text(text)
        for rep in range(args.reps):
            states = work / f"states-{rep}"
            order = ["old", "first", "new", "new2"]
            if rep % 2:
                order = ["first", "new2", "new", "old"]
            for mode in order:
                if mode == "first":
                    shutil.rmtree(states, ignore_errors=True)
                run = run_mode(mode, items, work, states, modes[mode][1])
                runs[mode].append(run)
                print(f"rep {rep} {mode}: {run['wall']:.1f} s", file=sys.stderr, flush=True)
    n = args.items
    lines = [
        "# Embedded judge: seconds per item, old path against new",
        "",
        "Produced by `python benchmarks/bench_embedded_speed.py"
        f" --items {n} --reps {args.reps}`: each row is",
        f"{args.reps} fresh `calibrant judge` processes on the same {n} gold transcripts (empty "
        "store, so every item is a model call; wall time includes loading the model).",
        "",
        "| mode | processes | items | s per item (wall, mean) | model-call s (mean) "
        "| model-call s (median) | verdicts | output tokens (mean) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    per_item = {}
    for mode, (title, _) in modes.items():
        rs = runs[mode]
        lat = [x for r in rs for x in r["latency"]]
        per_item[mode] = statistics.fmean(r["wall"] / n for r in rs)
        lines.append(
            f"| {title} | {len(rs)} | {len(lat)} | {per_item[mode]:.2f} "
            f"| {statistics.fmean(lat):.2f} | {statistics.median(lat):.2f} "
            f"| {sum(r['verdicts'] for r in rs)} of {len(lat)} "
            f"| {statistics.fmean(x for r in rs for x in r['output_tokens']):.0f} |"
        )
    same = total = 0
    for old, new in zip(runs["old"], runs["new"], strict=True):
        for a, b in zip(old["labels"], new["labels"], strict=True):
            same += sum(x == y for x, y in zip(a, b, strict=False))
            total += max(len(a), len(b))
    lines += [
        "",
        "| ratio (s per item, wall) | value |",
        "|---|---:|",
        f"| old / new (saved state) | {per_item['old'] / per_item['new']:.2f}x |",
        f"| old / new (first process) | {per_item['old'] / per_item['first']:.2f}x |",
        f"| new with 2 threads / new with default threads | "
        f"{per_item['new2'] / per_item['new']:.2f}x |",
        "",
        f"Labels equal between the old and the new path: {same} of {total} (item, criterion) "
        "pairs; the embedded judge is close to noise either way (see the calibration report).",
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.machine()}, Python "
        f"{platform.python_version()}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Load average "
        f"(1 min) {load[0]:.2f} before and {os.getloadavg()[0]:.2f} after: the machine is "
        "shared, the modes alternate so that all see the same load.",
        "",
    ]
    page = "\n".join(lines)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(page, encoding="utf-8")
    print(page)


if __name__ == "__main__":
    main()
