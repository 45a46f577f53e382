"""The labeling service under 20 concurrent annotators: labels stored per second, and the
latency of the labeling page (idle, and while the 20 write).

Run: ``python benchmarks/bench_labeling.py [--runs 3] [--seconds 15]``. Writes
``benchmarks/results/labeling.md``. Each run: a fresh store (a SQLite file, or a fresh
PostgreSQL schema dropped afterwards) holding the shipped rubric and 100 gold transcripts, the
real ``calibrant serve`` (uvicorn, one process) in a subprocess, and in this process:

- 20 annotator threads, each with its own token and its own HTTP connection, posting one item's
  five labels per request (``POST /api/labels``), cycling over the items, for ``--seconds``;
  labels/s = labels stored / seconds, checked afterwards against ``GET /api/labels``;
- a 21st thread fetching ``GET /label/{item}`` (the workbench page, with the session cookie)
  in a loop during the same window: the page latency under load;
- before the writers start, 200 sequential page fetches by one client: the idle latency.

CIs: labels/s, Student t over the runs; p95 latency, a percentile bootstrap (2000 resamples,
seed 0) over the requests pooled from every run (it does not include run-to-run variation; the
per-run p95 are listed beside it).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

from bench_score import ci95  # noqa: E402

from tests.support.labeling import aliases_of, gold_jsonl, labeling_service  # noqa: E402

OUT = HERE / "results" / "labeling.md"
ANNOTATORS = 20
ITEMS = [f"gold-{n:03d}" for n in range(1, 101)]
CRITERIA = ["separates_done_from_pending", "explains_next_step", "no_claim_before_confirmed"]


def p95_ci(ms: list[float]) -> tuple[float, float, float]:
    x = np.asarray(ms)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(x), size=(2000, len(x)))
    boots = np.percentile(x[idx], 95, axis=1)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return float(np.percentile(x, 95)), float(lo), float(hi)


def labels_for(rater: int, i: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = [
        {"criterion": c, "label": "pass" if (rater + i + k) % 2 else "fail"}
        for k, c in enumerate(CRITERIA)
    ]
    out.append({"criterion": "reports_access_problem", "label": "cant_tell"})
    out.append({"criterion": "overall_clarity", "label": 1 + (rater + i) % 4})
    return out


def one_run(backend: str, work: Path, seconds: float) -> dict[str, object]:
    with labeling_service(backend, work, served=True) as service:  # 20 clients over HTTP
        admin = service.client(service.user("admin", "admin"))
        numbers = range(1, 101)
        assert admin.post("/api/transcripts", content=gold_jsonl(*numbers)).is_success
        alias = aliases_of(service, *ITEMS)
        names = [alias[i] for i in ITEMS]  # experts name items by their aliases
        tokens = [service.user(f"ann-{r:02d}", "annotator") for r in range(ANNOTATORS)]
        reader_token = service.user("reader", "annotator")
        reader = httpx.Client(base_url=service.url, timeout=60)
        assert reader.post("/login", data={"token": reader_token}).status_code == 303

        idle: list[float] = []
        for k in range(200):
            t0 = time.perf_counter()
            page = reader.get(f"/label/{names[k % len(names)]}")
            idle.append((time.perf_counter() - t0) * 1000)
            assert page.status_code == 200
        stop = threading.Event()
        start = threading.Barrier(ANNOTATORS + 1)
        sent = [0] * ANNOTATORS
        failures: list[str] = []
        busy: list[float] = []

        def annotate(r: int) -> None:
            with service.client(tokens[r]) as c:
                start.wait()
                i = r * 5
                while not stop.is_set():
                    item = names[i % len(names)]
                    got = c.post("/api/labels", json={"item": item, "labels": labels_for(r, i)})
                    if got.status_code == 200:
                        sent[r] += 1
                    else:
                        failures.append(f"{got.status_code} {got.text[:100]}")
                    i += 1

        def read_pages() -> None:
            k = 0
            while not stop.is_set():
                t0 = time.perf_counter()
                page = reader.get(f"/label/{names[k % len(names)]}")
                busy.append((time.perf_counter() - t0) * 1000)
                if page.status_code != 200:
                    failures.append(f"page {page.status_code}")
                k += 1

        threads = [threading.Thread(target=annotate, args=(r,)) for r in range(ANNOTATORS)]
        for t in threads:
            t.start()
        start.wait()
        t0 = time.perf_counter()
        reading = threading.Thread(target=read_pages)
        reading.start()
        time.sleep(seconds)
        stop.set()
        for t in [*threads, reading]:
            t.join()
        elapsed = time.perf_counter() - t0
        stored = admin.get("/api/labels").json()
        # every (rater, item) pair posted is there with all five criteria
        distinct = {
            (r, ITEMS[(r * 5 + j) % len(ITEMS)]) for r in range(ANNOTATORS) for j in range(sent[r])
        }
        expected = 5 * len(distinct)
        assert len(stored) == expected, (len(stored), expected)
        return {
            "requests": sum(sent),
            "labels": 5 * sum(sent),
            "seconds": elapsed,
            "rate": 5 * sum(sent) / elapsed,
            "failures": failures,
            "idle": idle,
            "busy": busy,
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--backends", default="sqlite,postgres")
    args = parser.parse_args()
    import tempfile

    results: dict[str, list[dict[str, object]]] = {}
    loads = []
    for backend in args.backends.split(","):
        for run in range(args.runs):
            loads.append(os.getloadavg()[0])
            with tempfile.TemporaryDirectory() as tmp:
                r = one_run(backend, Path(tmp), args.seconds)
            results.setdefault(backend, []).append(r)
            print(f"{backend} run {run + 1}: {r['rate']:.1f} labels/s", file=sys.stderr)
    lines = [
        "# Labeling service: 20 concurrent annotators",
        "",
        f"Generated by `python benchmarks/bench_labeling.py --runs {args.runs} --seconds "
        f"{args.seconds:g}` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Machine: "
        f"nproc={os.cpu_count()}, Python {platform.python_version()}, {platform.machine()} "
        f"Linux; shared with other sessions (load average before the runs: "
        f"{min(loads):.1f} to {max(loads):.1f}), so the figures are noisy and pessimistic.",
        "",
        "Each run: a fresh store with the shipped rubric and 100 gold transcripts, the real "
        "`calibrant serve` (one uvicorn process) in a subprocess; 20 annotator threads, each "
        "with its own token, post one item's five labels per request for "
        f"{args.seconds:g} s (the 21st thread fetches the labeling page meanwhile). Every label "
        "posted was found in the store afterwards (checked in each run). The 21 client "
        "threads run in the benchmark's process on the same two cores as the server, so the "
        "rates are a floor for the server alone.",
        "",
        "## Labels stored per second (20 annotators at once)",
        "",
        "| store | run | requests | labels | seconds | labels/s | failed requests |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for backend, runs in results.items():
        for k, r in enumerate(runs, start=1):
            lines.append(
                f"| {backend} | {k} | {r['requests']} | {r['labels']} | {r['seconds']:.1f} | "
                f"{r['rate']:.1f} | {len(r['failures'])} |"  # type: ignore[arg-type]
            )
    lines.append("")
    for backend, runs in results.items():
        rates = [float(r["rate"]) for r in runs]  # type: ignore[arg-type]
        lines.append(
            f"- **{backend}**: mean {statistics.mean(rates):.1f} labels/s (95% CI "
            f"{ci95(rates, '{:.1f}')}, n={len(rates)} runs)."
        )
    lines += [
        "",
        "## Latency of the labeling page (`GET /label/{item}`)",
        "",
        "| store | when | requests (n) | median ms | p95 ms | p95 95% CI (bootstrap) | "
        "p95 of each run ms |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for backend, runs in results.items():
        for key, when in (("idle", "idle, one client"), ("busy", "while 20 annotators write")):
            pooled = [x for r in runs for x in r[key]]  # type: ignore[attr-defined]
            p95, lo, hi = p95_ci(pooled)
            each = ", ".join(f"{np.percentile(r[key], 95):.0f}" for r in runs)  # type: ignore[call-overload]
            lines.append(
                f"| {backend} | {when} | {len(pooled)} | {statistics.median(pooled):.0f} | "
                f"{p95:.0f} | {lo:.0f} to {hi:.0f} | {each} |"
            )
    lines.append("")
    OUT.write_text("\n".join(lines) + "\n")
    print(OUT.read_text())


if __name__ == "__main__":
    main()
