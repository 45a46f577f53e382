"""Peak memory of `calibrant judge` on a cached rerun: --json (the whole report in memory) vs
--jsonl (one line per transcript as it goes), at several batch sizes, measured from outside with
/usr/bin/time -v on the real CLI. Answers are filled into the store directly (as a first run would
leave them), so no model call is made and only judge's own memory is measured.

    python benchmarks/bench_judge_stream.py --sizes 2000,20000
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_judge import Endpoint  # noqa: E402
from bench_judge_cached import fill_direct, make_items  # noqa: E402

OUT = HERE / "results" / "judge_stream.md"


def run(folder: Path, url: str, db: Path, mode: str) -> tuple[float, float, int]:
    """(wall s, peak RSS MiB, calls reported) of one cached `calibrant judge` run."""
    env = {**os.environ, "CALIBRANT_DATABASE_URL": f"sqlite:///{db}"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    cmd = [
        "/usr/bin/time",
        "-v",
        sys.executable,
        "-m",
        "calibrant",
        "judge",
        str(folder),
        "--model",
        "openai/bench",
        "--api-base",
        url,
        mode,
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"judge {mode} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    calls = proc.stdout.count('"model_calls": 0')  # the summary says 0 calls
    return wall, rss_kb / 1024, calls


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2000,20000")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    rows = []
    ep = Endpoint(0.0)
    url = ep.url
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            folder, db = Path(tmp) / f"items-{n}", Path(tmp) / f"store-{n}.db"
            make_items(folder, n)
            stored = fill_direct(folder, url, db)
            for mode in ("--json", "--jsonl"):
                wall, rss, zero_calls = run(folder, url, db, mode)
                rows.append((n, stored, mode, wall, rss, zero_calls > 0))
                print(n, mode, f"{wall:.1f}s", f"{rss:.0f} MiB", flush=True)
        requests = ep.stats()["requests"]
    ep.close()
    load = os.getloadavg()
    lines = [
        "# `calibrant judge`: peak memory of a cached rerun, --json vs --jsonl",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} cores, load average "
        f"{load[0]:.1f} at the end (a shared machine). One run per cell (n = 1); peak RSS of the "
        "CLI process read by `/usr/bin/time -v`; answers already in the store, so no model call "
        f"(requests at the endpoint over the whole benchmark: {requests}).",
        "",
        "| transcripts | mode | wall s | peak RSS MiB | 0 calls |",
        "|---:|---|---:|---:|---|",
    ]
    for n, _, mode, wall, rss, zero in rows:
        lines.append(f"| {n:,} | `{mode}` | {wall:.1f} | {rss:.0f} | {'yes' if zero else 'no'} |")
    by = {(n, m): rss for n, _, m, _, rss, _ in rows}
    if len(sizes) >= 2:
        a, b = sizes[0], sizes[-1]
        for mode in ("--json", "--jsonl"):
            per = (by[(b, mode)] - by[(a, mode)]) * 1024 / (b - a)
            lines.append("")
            lines.append(
                f"`{mode}`: {per:.1f} KiB more per transcript from {a:,} to {b:,} "
                f"({by[(a, mode)]:.0f} → {by[(b, mode)]:.0f} MiB)."
            )
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
