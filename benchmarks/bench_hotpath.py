"""The hot path of `calibrant judge` and `calibrant score`, side by side with a bare litellm loop.

Run: ``python benchmarks/bench_hotpath.py [--items 1000] [--concurrency 32] [--latency 1.0]
[--rounds 2] [--profile]``. Writes ``benchmarks/results/hotpath.md``.

Every pass is a process of its own, run under ``/usr/bin/time -v`` against one fake
OpenAI-compatible endpoint (``benchmarks/fake_endpoint.py``, its own process, a fixed latency),
and the passes alternate within one run (B, judge, score, B, judge, score, ...) so that drift
in the machine's load hits all of them alike:

- **B**, the bare loop: ``litellm.acompletion`` under an ``asyncio.Semaphore(C)``, litellm as
  it comes (imported with the offline price map, retries off), with exactly the arguments
  calibrant sends (``call_kwargs``; prompts built before the loop);
- **judge**: the real ``calibrant judge DIR --concurrency C --json`` on the same N transcript
  files, a fresh SQLite store;
- **score**: the real ``calibrant score DIR --concurrency C --json``, a fresh SQLite store.

The calibrant passes run the real CLI through a small wrapper (``--child cli``) that only
counts: garbage collections (``gc.callbacks``) and every store transaction (each commit, by the
store method that opened it, and the answers in each transaction that holds answers), reported
at exit.

Figures: the calling phase is from the first request the endpoint received to the last answer
it sent (its ``/trace``); its CPU is read from ``/proc/PID/stat`` of the pass's process, sampled
every 20 ms and interpolated at those two instants. Whole-process CPU, wall and peak RSS are
``/usr/bin/time -v``'s. With ``--profile`` one more `judge` pass runs under cProfile.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import gc
import glob
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GOLD = ROOT / "gold" / "transcripts"
RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
RESULTS = HERE / "results" / "hotpath.md"
MODEL = "openai/bench"
TICK = os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------- children


def _gc_counter() -> dict[str, float]:
    stats = {"collections": 0, "gc_s": 0.0, "gen2": 0}
    started = [0.0]

    def cb(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            stats["collections"] += 1
            stats["gen2"] += info.get("generation") == 2
            stats["gc_s"] += time.perf_counter() - started[0]

    gc.callbacks.append(cb)
    return stats


# what each store method that commits a transaction is, in the report's words
TXN_KINDS = {
    "finish_and_claim": "answers+claims",
    "finish_many": "answers",
    "claim_many": "claims",
    "renew": "renewals",
    "_renew": "renewals",
    "release_all": "release",
    "start": "run",
    "finish": "run",
    "update_arguments": "run",
    "add_scores": "scores",
    "put_sources": "sources",
    "_create_and_migrate": "setup",
}


def child_cli(stats_path: str, argv: list[str]) -> None:
    """The real CLI (`python -m calibrant ARGV`), counting GC and every store transaction: each
    commit is put down to the store method that opened the transaction (`TXN_KINDS`), and the
    answers per answer transaction are counted."""
    import runpy
    import traceback

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    gcs = _gc_counter()
    kinds: dict[str, int] = {}
    sizes: list[int] = []
    from calibrant.store import Store

    def on_commit(_conn: Any) -> None:
        name = "other"
        for frame in reversed(traceback.extract_stack(limit=30)):
            if "/calibrant/store/" in frame.filename:
                name = TXN_KINDS.get(frame.name, f"other:{frame.name}")
                break
        kinds[name] = kinds.get(name, 0) + 1

    event.listen(Engine, "commit", on_commit)
    finish_and_claim = getattr(Store, "finish_and_claim", None)
    finish_many = Store.finish_many

    def counted_group(self: Any, jh: str, js: Any, keys: Any, owner: str, lease: float) -> Any:
        if js:
            sizes.append(len(js))
        return finish_and_claim(self, jh, js, keys, owner, lease)  # type: ignore[misc]

    def counted_finish(self: Any, judgments: Any, owner: str) -> Any:
        if judgments and not _in_group[0]:
            sizes.append(len(judgments))
        return finish_many(self, judgments, owner)

    _in_group = [False]  # finish_many called by finish_and_claim (PostgreSQL): counted there

    def group_then_finish(self: Any, *a: Any) -> Any:
        _in_group[0] = True
        try:
            return counted_group(self, *a)
        finally:
            _in_group[0] = False

    if finish_and_claim is not None:  # absent in the source before group transactions
        Store.finish_and_claim = group_then_finish  # type: ignore[method-assign]
    Store.finish_many = counted_finish  # type: ignore[method-assign]

    def dump() -> None:
        out = {
            **gcs,
            "txns": kinds,
            "answer_groups": len(sizes),
            "answers": sum(sizes),
            "finish_single": sum(1 for s in sizes if s == 1),
        }
        Path(stats_path).write_text(json.dumps(out))

    atexit.register(dump)
    sys.argv = ["calibrant", *argv]
    runpy.run_module("calibrant", run_name="__main__", alter_sys=True)


def child_bare(stats_path: str, items: str, url: str, conc: int) -> None:
    """The bare loop: litellm as it comes, the arguments calibrant sends, prompts prebuilt."""
    gcs = _gc_counter()
    sys.path.insert(0, str(ROOT / "src"))
    from calibrant.files import load_transcript
    from calibrant.judge.answer import answer_schema
    from calibrant.judge.client import call_kwargs
    from calibrant.judge.config import JudgeOptions, resolve_judge
    from calibrant.judge.prompt import build_prompt

    config, rubric, policy, _ = resolve_judge(
        JudgeOptions(model=MODEL, api_base=url, rubric=RUBRIC)
    )
    kwargs = []
    for f in sorted(Path(items).glob("*.json")):
        p = build_prompt(load_transcript(f), rubric)
        kw = call_kwargs(config, p.messages(), answer_schema(rubric, p.evidence_ids), policy)
        kw.update(api_base=url, api_key="x")
        kwargs.append(kw)
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    import litellm

    litellm.num_retries = 0
    litellm.suppress_debug_info = True

    async def main() -> int:
        gate = asyncio.Semaphore(conc)

        async def one(kw: dict[str, Any]) -> bool:
            async with gate:
                try:
                    r = await litellm.acompletion(**kw)
                except Exception:  # counted: a loaded machine may drop a connection
                    return False
            return bool(r.choices[0].message.content)

        return sum(await asyncio.gather(*(one(kw) for kw in kwargs)))

    answered = asyncio.run(main())
    Path(stats_path).write_text(json.dumps({**gcs, "answered": answered}))


# --------------------------------------------------------------------------- the parent


def write_items(folder: Path, n: int) -> None:
    """`n` distinct transcript files: the gold transcripts cycled, each its own id."""
    gold = [json.loads(Path(p).read_text()) for p in sorted(glob.glob(str(GOLD / "*.json")))]
    folder.mkdir(parents=True)
    for i in range(n):
        doc = dict(gold[i % len(gold)])
        doc["transcript_id"] = f"{doc['transcript_id']}-hot-{i:05d}"
        (folder / f"t{i:05d}.json").write_text(json.dumps(doc))


def _cpu_of(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def _child_pid(pid: int) -> int | None:
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return None
    return int(kids[0]) if kids else None


def _time_v(stderr: str, key: str) -> str:
    m = re.search(rf"{re.escape(key)}: (.+)", stderr)
    return m.group(1).strip() if m else ""


def _elapsed(text: str) -> float:
    parts = [float(x) for x in text.split(":")]
    return sum(p * 60**k for k, p in enumerate(reversed(parts)))


def run_pass(
    name: str, cmd: list[str], endpoint: Any, env: dict[str, str], stats_path: Path
) -> dict[str, Any]:
    endpoint.reset()
    proc = subprocess.Popen(
        ["/usr/bin/time", "-v", *cmd],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    samples: list[tuple[float, float]] = []  # (time.time(), CPU s of the pass's process)

    def sample() -> None:
        child = None
        while proc.poll() is None:
            child = child or _child_pid(proc.pid)
            cpu = _cpu_of(child) if child else None
            if cpu is not None:
                samples.append((time.time(), cpu))
            time.sleep(0.02)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    _, err = proc.communicate()
    watcher.join()
    if proc.returncode != 0:
        raise SystemExit(f"{name} failed ({proc.returncode}): {err[-3000:]}")
    spans = endpoint.trace()
    first, last = min(a for a, _ in spans), max(b for _, b in spans)

    def cpu_at(t: float) -> float:
        before = [s for s in samples if s[0] <= t] or samples[:1]
        after = [s for s in samples if s[0] >= t] or samples[-1:]
        (t0, c0), (t1, c1) = before[-1], after[0]
        return c0 if t1 == t0 else c0 + (c1 - c0) * (t - t0) / (t1 - t0)

    stats = json.loads(stats_path.read_text())
    out = {
        "name": name,
        "requests": len(spans),
        "phase_s": last - first,
        "phase_cpu_s": cpu_at(last) - cpu_at(first),
        "cpu_s": float(_time_v(err, "User time (seconds)"))
        + float(_time_v(err, "System time (seconds)")),
        "wall_s": _elapsed(_time_v(err, "Elapsed (wall clock) time (h:mm:ss or m:ss)")),
        "rss_mb": int(_time_v(err, "Maximum resident set size (kbytes)")) / 1024,
        **stats,
    }
    print(
        f"  {name}: {out['requests']} requests, calling phase {out['phase_s']:.2f} s "
        f"({out['requests'] / out['phase_s']:.2f}/s), CPU {out['phase_cpu_s']:.2f} s in it, "
        f"{out['cpu_s']:.2f} s in all, GC {stats['collections']} ({stats['gc_s']:.2f} s)",
        flush=True,
    )
    return out


class Fake:
    def __init__(self, latency: float) -> None:
        sys.path.insert(0, str(HERE))
        from bench_judge import Endpoint

        self.ep = Endpoint(latency)
        self.url = self.ep.url

    def reset(self) -> None:
        self.ep.reset()

    def trace(self) -> list[tuple[float, float]]:
        import urllib.request

        with urllib.request.urlopen(f"{self.ep.base}/trace", timeout=10) as r:
            return [(a, b) for a, b in json.load(r)["spans"]]

    def close(self) -> None:
        self.ep.close()


def profile_judge(items: Path, url: str, tmp: Path, env: dict[str, str], conc: int) -> str:
    """One `judge` pass under cProfile: the functions the brief names, and the top of tottime."""
    prof = tmp / "judge.prof"
    code = (
        "import cProfile,runpy,sys;"
        f"sys.argv=['calibrant','judge',{str(items)!r},'--model',{MODEL!r},'--api-base',"
        f"{url!r},'--concurrency',{str(conc)!r},'--json'];"
        f'cProfile.run(\'runpy.run_module("calibrant",run_name="__main__",alter_sys=True)\','
        f"{str(prof)!r})"
    )
    db = tmp / "profile.db"
    e = {**env, "CALIBRANT_DATABASE_URL": f"sqlite:///{db}"}
    subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=e, stdout=subprocess.DEVNULL, check=False
    )
    import pstats

    st = pstats.Stats(str(prof))
    rows = []
    wanted = (
        "response_cost_calculator",
        "get_model_info",
        "_get_model_info_helper",
        "load_transcript",
        "content_hash",
        "finish_many",
        "claim_many",
    )
    for (file, _line, fn), (_cc, nc, tt, ct, _callers) in st.stats.items():  # type: ignore[attr-defined]
        if fn in wanted:
            rows.append((fn, Path(file).name, nc, tt, ct))
    rows.sort(key=lambda r: -r[4])
    lines = [
        "| function | file | calls | own s | cumulative s |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    lines += [f"| `{f}` | {m} | {n} | {t:.2f} | {c:.2f} |" for f, m, n, t, c in rows]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=2, help="B, judge, score passes each")
    ap.add_argument("--profile", action="store_true", help="one more judge pass, cProfiled")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--label", default="", help="what this run measures (in the page)")
    ap.add_argument(
        "--src", type=Path, default=ROOT / "src", help="calibrant source to run (before/after)"
    )
    ap.add_argument(
        "--before-src",
        type=Path,
        help="also run judge and score from this calibrant source (passes named *-before)",
    )
    ap.add_argument("--child", choices=["cli", "bare"], help=argparse.SUPPRESS)
    ap.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child == "cli":
        return child_cli(args.rest[0], args.rest[1:])
    if args.child == "bare":
        return child_bare(args.rest[0], args.rest[1], args.rest[2], int(args.rest[3]))

    n, c = args.items, args.concurrency
    tmp = Path(tempfile.mkdtemp(prefix="bench-hot-"))
    items = tmp / "items"
    write_items(items, n)
    ep = Fake(args.latency)
    env = {**os.environ, "PYTHONPATH": str(args.src.resolve()), "COLUMNS": "120"}
    env.pop("CALIBRANT_DATABASE_URL", None)
    started = datetime.now(UTC)
    load = os.getloadavg()[0]
    passes: list[dict[str, Any]] = []
    profile = ""
    try:
        kinds = ["B", "judge", "score"]
        if args.before_src is not None:
            kinds = ["B", "judge-before", "judge", "score-before", "score"]
        for r in range(1, args.rounds + 1):
            for kind in kinds:
                stats = tmp / f"{kind}{r}.json"
                e = {**env, "CALIBRANT_DATABASE_URL": f"sqlite:///{tmp / f'{kind}{r}.db'}"}
                if kind == "B":
                    cmd = [sys.executable, __file__, "--child", "bare", str(stats)]
                    cmd += [str(items), ep.url, str(c)]
                else:
                    command = kind.split("-")[0]
                    cmd = [sys.executable, __file__, "--child", "cli", str(stats), command]
                    cmd += [str(items), "--model", MODEL, "--api-base", ep.url]
                    cmd += ["--concurrency", str(c), "--json"]
                    if kind.endswith("-before"):
                        e["PYTHONPATH"] = str(args.before_src.resolve())
                passes.append(run_pass(f"{kind}{r}", cmd, ep, e, stats))
        if args.profile:
            print("profiled judge pass ...", flush=True)
            profile = profile_judge(items, ep.url, tmp, env, c)
    finally:
        ep.close()
        shutil.rmtree(tmp, ignore_errors=True)
    text = report(args, passes, profile, started, load)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


def _kinds(counts: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.0f}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))


def report(
    args: argparse.Namespace,
    passes: list[dict[str, Any]],
    profile: str,
    started: datetime,
    load: float,
) -> str:
    from importlib.metadata import version

    n, c, lat = args.items, args.concurrency, args.latency
    ideal = c / lat

    def mean(kind: str, key: str) -> float:
        return statistics.fmean(p[key] for p in passes if p["name"].rstrip("0123456789") == kind)

    b_cpu = mean("B", "phase_cpu_s")
    bare_answers = ", ".join(f"{p['name']} {p['answered']}" for p in passes if "answered" in p)
    b_rate = statistics.fmean(
        p["requests"] / p["phase_s"] for p in passes if p["name"].startswith("B")
    )
    b_all = mean("B", "cpu_s")
    rows = []
    for p in passes:
        rate = p["requests"] / p["phase_s"]
        txns = (
            f"{sum(p['txns'].values())}: {_kinds(p['txns'])}; {p['answer_groups']} held answers "
            f"({p['finish_single']} of one)"
            if "txns" in p
            else "—"
        )
        rows.append(
            f"| {p['name']} | {p['requests']} | {p['phase_s']:.2f} | {rate:.2f} | "
            f"{rate / ideal:.3f} | {rate / b_rate:.3f} | {p['phase_cpu_s']:.2f} | "
            f"{p['phase_cpu_s'] / b_cpu:.2f} | {p['cpu_s']:.2f} | {p['cpu_s'] / b_all:.2f} | "
            f"{p['collections']} ({p['gc_s']:.2f} s) | {txns} | {p['rss_mb']:.0f} |"
        )
    summary = []
    for kind in ("judge-before", "judge", "score-before", "score"):
        ks = [p for p in passes if p["name"].rstrip("0123456789") == kind]
        if not ks:
            continue
        cpu = statistics.fmean(p["phase_cpu_s"] for p in ks) / b_cpu
        rate = statistics.fmean(p["requests"] / p["phase_s"] for p in ks) / b_rate
        txns = statistics.fmean(sum(p["txns"].values()) for p in ks)
        per_kind = {
            k: statistics.fmean(p["txns"].get(k, 0) for p in ks)
            for k in sorted({k for p in ks for k in p["txns"]})
        }
        size = statistics.fmean(p["answers"] / max(1, p["answer_groups"]) for p in ks)
        single = statistics.fmean(p["finish_single"] / max(1, p["answer_groups"]) for p in ks)
        summary.append(
            f"| {kind} | {cpu:.2f} ({'met' if cpu <= 1.2 else 'missed'}) | "
            f"{rate:.3f} ({'met' if rate > 1 else 'missed'}) | {txns:.0f} vs {n / 8:.0f} "
            f"({'met' if txns <= n / 8 else 'missed'}): {_kinds(per_kind)} | {size:.1f} | "
            f"{single:.0%} |"
        )
    v = {k: version(k) for k in ("litellm", "SQLAlchemy", "pydantic")}
    lines = [
        "# Hot path: `calibrant judge` and `calibrant score` beside a bare litellm loop",
        "",
        f"Generated by `python benchmarks/bench_hotpath.py --items {n} --concurrency {c} "
        f"--latency {lat:g} --rounds {args.rounds}{' --profile' if args.profile else ''}` "
        f"on {started:%Y-%m-%d %H:%M} UTC{(' — ' + args.label) if args.label else ''}.",
        f"Machine: nproc={os.cpu_count()}, Python {platform.python_version()}, "
        + ", ".join(f"{k} {x}" for k, x in v.items())
        + f"; **shared** with other work (load average {load:.1f} at the start): every ratio "
        "below is between passes of this one run, alternating B, judge, score.",
        "",
        "## Goals (means of the passes; ratios to the bare loop B of the same run)",
        "",
        "| command | calling-phase CPU / B (goal <= 1.2) | calling-phase throughput / B "
        "(goal > 1) | store transactions, all kinds (goal <= items / 8) | answers per answer "
        "transaction | answer transactions holding one answer |",
        "| --- | --- | --- | --- | ---: | ---: |",
        *summary,
        "",
        "## Passes",
        "",
        "| pass | requests | calling phase s | items/s | / (C/L) | / B | its CPU s | / B | "
        "process CPU s | / B | GC: collections (time) | store transactions: all, by kind; "
        "transactions holding answers | peak RSS MB |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- "
        "| ---: |",
        *rows,
        "",
        f"- {n} distinct transcript files (the gold transcripts cycled, each with its own "
        f"`transcript_id`), C = {c}, L = {lat:g} s at `benchmarks/fake_endpoint.py` (own "
        f"process), model `{MODEL}` (a name litellm has no price for, like a local server's).",
        "- B: `litellm.acompletion` under `asyncio.Semaphore(C)`, litellm as it comes, the "
        f"arguments calibrant sends (prompts built before the loop); answered: {bare_answers}.",
        "- *-before passes: the same command from the source before this change (`--before-src`).",
        "- judge / score: the real CLI (`calibrant judge|score DIR --concurrency C --json`), a "
        "fresh SQLite store each, through a wrapper that counts GC and store transactions.",
        "- Store transactions: every commit, put down to the store method that opened it: "
        "answers+claims (answers stored and next items claimed in one transaction), answers, "
        "claims, run (a run's record started and finished), scores (score's per-round rows), "
        "renewals (claim leases and the run's liveness), release (claims dropped at the end), "
        "sources, setup (the store's tables).",
        "- Calling phase: first request received to last answer sent, at the endpoint; its CPU "
        "from `/proc/PID/stat` sampled every 20 ms. Process CPU, RSS: `/usr/bin/time -v` (the "
        "whole process: imports, reading and checking the files, the report).",
    ]
    if profile:
        lines += ["", "## cProfile of one `judge` pass (same items)", "", profile]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
