"""`calibrant score` at scale: peak memory, a cached rerun, throughput, and verdict writes.

Run: ``python benchmarks/bench_score.py [--parts rss,rerun,throughput,writes]``. Writes
``benchmarks/results/score.md``. The endpoint is ``benchmarks/fake_endpoint.py`` in its own
process (fixed latency), and every `score` pass is the real command in a subprocess.

- rss: N transcripts (the gold transcripts cycled, each with its own ``transcript_id``) in four
  JSON Lines files, scored into a fresh SQLite store at a tiny latency, peak RSS measured by
  ``/usr/bin/time -v``; repeated for each N in ``--rss-sizes`` to show whether RSS grows with N.
- rerun: the finished batch of the smallest N above (a folder of files, or the JSONL files)
  scored again: requests at the endpoint, wall and CPU seconds.
- throughput: C=32, L=1 s, ``--items`` fresh transcripts scored, and in the same run a bare
  litellm loop (``asyncio.gather`` with a semaphore of 32 around ``litellm.acompletion``) sending
  the same number of requests to the same endpoint; both as a ratio of the ideal C/L.
- writes: judgments stored per second through ``Store.claim`` + ``Store.finish`` (one item at a
  time), ``Store.claim_many`` + ``Store.finish_many`` (groups of 32: the group commit `score`
  uses) and ``Store.put_many`` (batches of 500), on SQLite and on a fresh PostgreSQL database
  (dropped afterwards).
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

from bench_judge import Endpoint  # noqa: E402

GOLD = ROOT / "gold" / "transcripts"
OUT = HERE / "results" / "score.md"
MODEL = "openai/bench"
GROUP = 32  # answers per group commit in the writes part (a burst at --concurrency 32)
PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def gold_docs() -> list[dict[str, Any]]:
    return [json.loads(Path(p).read_text()) for p in sorted(glob.glob(str(GOLD / "*.json")))]


def write_jsonl(folder: Path, n: int, parts: int = 4, tag: str = "s") -> list[Path]:
    """`n` distinct transcripts in `parts` JSON Lines files."""
    gold = gold_docs()
    folder.mkdir(parents=True, exist_ok=True)
    files = [folder / f"part-{k}.jsonl" for k in range(parts)]
    handles = [f.open("w") for f in files]
    try:
        for i in range(n):
            doc = dict(gold[i % len(gold)])
            doc["transcript_id"] = f"{doc['transcript_id']}-{tag}-{i:06d}"
            handles[i * parts // n].write(json.dumps(doc) + "\n")
    finally:
        for h in handles:
            h.close()
    return files


def write_folder(folder: Path, n: int, tag: str = "f") -> Path:
    gold = gold_docs()
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        doc = dict(gold[i % len(gold)])
        doc["transcript_id"] = f"{doc['transcript_id']}-{tag}-{i:06d}"
        (folder / f"item-{i:06d}.json").write_text(json.dumps(doc))
    return folder


def score(
    inputs: list[Path], url: str, db: str, *, out: Path | None = None, time_v: bool = False
) -> dict[str, Any]:
    """The real `calibrant score` in a subprocess: wall, CPU, peak RSS (with time -v)."""
    env = {**os.environ, "CALIBRANT_DATABASE_URL": db}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    cmd = [sys.executable, "-m", "calibrant", "score", *map(str, inputs)]
    cmd += ["--model", MODEL, "--api-base", url, "--concurrency", "32", "--json"]
    if out is not None:
        cmd += ["--out", str(out)]
    if time_v:
        cmd = ["/usr/bin/time", "-v", *cmd]
    load = os.getloadavg()[0]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"calibrant score failed ({proc.returncode}): {proc.stderr[-3000:]}")
    doc = json.loads(proc.stdout)
    res = {
        "wall": wall,
        "cpu": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
        "load": load,
        "transcripts": doc["transcripts"],
        "from_cache": doc["from_cache"],
    }
    if time_v:
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        res["rss_mb"] = int(m.group(1)) / 1024 if m else None
    return res


def ci95(xs: list[float], fmt: str = "{:.2f}") -> str:
    if len(xs) < 2:
        return "n/a (one run)"
    m, sd = statistics.mean(xs), statistics.stdev(xs)
    t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57}.get(len(xs), 2.26)
    half = t * sd / len(xs) ** 0.5
    return f"{fmt.format(m - half)} to {fmt.format(m + half)}"


# ---------------------------------------------------------------------------- parts


def part_rss(tmp: Path, sizes: list[int], rerun_repeats: int) -> list[str]:
    ep = Endpoint(0.001)
    rows, reruns = [], []
    try:
        for n in sizes:
            files = write_jsonl(tmp / f"rss-{n}", n, tag=f"r{n}")
            db = f"sqlite:///{tmp}/rss-{n}.db"
            before = ep.stats()["requests"]
            r = score(files, ep.url, db, out=tmp / f"rss-{n}.out.jsonl", time_v=True)
            r["requests"] = ep.stats()["requests"] - before
            rows.append((n, r))
            print(f"  rss n={n}: {r}", flush=True)
            if n == max(sizes):
                for k in range(rerun_repeats):
                    before = ep.stats()["requests"]
                    rr = score(files, ep.url, db, time_v=True)
                    rr["requests"] = ep.stats()["requests"] - before
                    reruns.append(rr)
                    print(f"  rerun #{k + 1} n={n}: {rr}", flush=True)
            for f in files:
                f.unlink()
            (tmp / f"rss-{n}.out.jsonl").unlink(missing_ok=True)
    finally:
        ep.close()
    lines = [
        "## Peak memory while streaming (goal: <= 300 MB)",
        "",
        "Each row: a fresh SQLite store, N transcripts in four JSON Lines files, "
        "`calibrant score part-*.jsonl --concurrency 32 --json --out FILE` against the endpoint "
        "at 1 ms latency, one run per N (n=1 each); peak RSS of the whole process from "
        "`/usr/bin/time -v`.",
        "",
        "| N transcripts | peak RSS MB | wall s | CPU s | transcripts/s (wall) | "
        "requests at the endpoint | load avg before |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, r in rows:
        lines.append(
            f"| {n} | {r['rss_mb']:.0f} | {r['wall']:.1f} | {r['cpu']:.1f} | "
            f"{n / r['wall']:.0f} | {r['requests']} | {r['load']:.1f} |"
        )
    rss = [r["rss_mb"] for _, r in rows]
    lines += [
        "",
        f"Peak RSS from {min(rss):.0f} to {max(rss):.0f} MB over N = "
        f"{', '.join(str(n) for n, _ in rows)}: "
        + (
            "**within 300 MB** at every N."
            if max(rss) <= 300
            else "**over 300 MB** at N = "
            + ", ".join(str(n) for n, r in rows if r["rss_mb"] > 300)
            + "."
        ),
        "",
    ]
    if reruns:
        n = max(sizes)
        walls = [r["wall"] for r in reruns]
        cpus = [r["cpu"] for r in reruns]
        ok = all(r["requests"] == 0 for r in reruns) and max(walls) <= 10 and max(cpus) <= 10
        lines += [
            f"## Cached rerun of a finished batch of {n} (goal: 0 calls in <= 10 s)",
            "",
            f"The same {n} transcripts (four JSON Lines files) scored again into the store the "
            "first run filled, the real command in a subprocess (process start and imports "
            "included), `--json`, no `--out`.",
            "",
            "| run | transcripts | wall s | CPU s | peak RSS MB | requests at the endpoint | "
            "from store | load avg before |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for k, r in enumerate(reruns, start=1):
            lines.append(
                f"| {k} | {r['transcripts']} | {r['wall']:.2f} | {r['cpu']:.2f} | "
                f"{r['rss_mb']:.0f} | {r['requests']} | {r['from_cache']} | {r['load']:.1f} |"
            )
        lines += [
            "",
            f"Wall: mean {statistics.mean(walls):.2f} s (95% CI {ci95(walls)}, n={len(walls)}), "
            f"worst {max(walls):.2f} s; CPU: mean {statistics.mean(cpus):.2f} s (95% CI "
            f"{ci95(cpus)}, n={len(cpus)}). Goal " + ("**met**" if ok else "**not met**") + ".",
            "",
        ]
    return lines


async def bare_loop(url: str, n: int, conc: int) -> float:
    from calibrant.judge.llm_setup import get_litellm

    litellm = get_litellm()
    gate = asyncio.Semaphore(conc)
    body = {"type": "json_schema", "json_schema": {"name": "a", "schema": {"properties": {}}}}

    async def one(i: int) -> None:
        async with gate:
            await litellm.acompletion(
                model=MODEL,
                api_base=url,
                api_key="x",
                messages=[{"role": "user", "content": f"item {i}"}],
                response_format=body,
            )

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    return time.perf_counter() - t0


def bare_process(url: str, n: int, conc: int) -> tuple[float, float | None, float]:
    """The bare loop in its own process under /usr/bin/time -v: (loop seconds, peak RSS MB,
    CPU seconds of the whole process)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = ["/usr/bin/time", "-v", sys.executable, __file__, "--bare", url, str(n), str(conc)]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    return (
        float(proc.stdout.strip().splitlines()[-1]),
        int(m.group(1)) / 1024 if m else None,
        cpu,
    )


def part_throughput(tmp: Path, items: int, repeats: int) -> list[str]:
    conc, latency = 32, 1.0
    ideal = conc / latency
    ep = Endpoint(latency)
    rows = []
    try:
        for k in range(repeats):
            files = write_jsonl(tmp / f"tp-{k}", items, parts=2, tag=f"t{k}")
            db = f"sqlite:///{tmp}/tp-{k}.db"
            ep.reset()
            r = score(files, ep.url, db, time_v=True)
            st = ep.stats()
            r["requests"], r["calling"] = st["requests"], st["last_at"] - st["first_at"]
            r["max_in_flight"] = st["max_in_flight"]
            ep.reset()
            bare, bare_rss, r["bare_cpu"] = bare_process(ep.url, items, conc)
            st = ep.stats()
            r["bare_calling"] = st["last_at"] - st["first_at"]
            rows.append((r, bare, bare_rss))
            print(f"  throughput #{k + 1}: score {r}, bare {bare:.1f} s", flush=True)
    finally:
        ep.close()
    lines = [
        f"## Throughput at C={conc}, L={latency:.0f} s (goal: >= 0.9 of C/L = {ideal:.0f}/s)",
        "",
        f"Each run: {items} fresh transcripts scored into a fresh SQLite store (the real command, "
        "`--concurrency 32`), then a bare litellm loop in its own process (`asyncio.gather`, a "
        f"semaphore of {conc}, `litellm.acompletion`) sending {items} requests to the same "
        "endpoint. *Calling phase*: from the first request the endpoint received to the last "
        "answer it sent (the endpoint's clock), the same measure for both. `score` wall time "
        "also counts process start, imports (litellm alone takes seconds), the validation pass, "
        "the summary and the report; the bare loop's own timer starts after its imports. Peak "
        "RSS of each whole process from `/usr/bin/time -v` (the bare loop's is what litellm "
        "alone costs). Ratio = (items / seconds) / (C/L).",
        "",
        "| run | items | load avg before | score wall s | score ratio (wall) | score calling s | "
        "score ratio (calling) | max in flight | bare calling s | bare ratio (calling) | score / "
        "bare (calling) | score CPU s | bare CPU s | score peak RSS MB | bare peak RSS MB |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
        "---: | ---: | ---: |",
    ]
    wall_r, call_r, bare_r, rel = [], [], [], []
    for k, (r, _bare, bare_rss) in enumerate(rows, start=1):
        wall_r.append(items / r["wall"] / ideal)
        call_r.append(items / r["calling"] / ideal)
        bare_r.append(items / r["bare_calling"] / ideal)
        rel.append(call_r[-1] / bare_r[-1])
        lines.append(
            f"| {k} | {items} | {r['load']:.1f} | {r['wall']:.1f} | {wall_r[-1]:.2f} | "
            f"{r['calling']:.1f} | {call_r[-1]:.2f} | {r['max_in_flight']} | "
            f"{r['bare_calling']:.1f} | {bare_r[-1]:.2f} | {rel[-1]:.2f} | {r['cpu']:.1f} | "
            f"{r['bare_cpu']:.1f} | {r['rss_mb']:.0f} | {bare_rss:.0f} |"
        )
    n = len(rows)
    lines += [
        "",
        f"score, calling phase: ratio mean {statistics.mean(call_r):.2f} (95% CI {ci95(call_r)}, "
        f"n={n}, range {min(call_r):.2f}-{max(call_r):.2f}); score, whole command: mean "
        f"{statistics.mean(wall_r):.2f} (range {min(wall_r):.2f}-{max(wall_r):.2f}, n={n}); "
        f"bare loop: mean {statistics.mean(bare_r):.2f} (range {min(bare_r):.2f}-"
        f"{max(bare_r):.2f}, n={n}); score / bare: mean {statistics.mean(rel):.2f} (95% CI "
        f"{ci95(rel)}, range {min(rel):.2f}-{max(rel):.2f}). Goal on the calling phase: "
        + ("**met**" if min(call_r) >= 0.9 else "**not met**")
        + " on the worst run; on the whole command's wall time: "
        + ("**met**" if min(wall_r) >= 0.9 else "**not met**")
        + " on the worst run.",
        "",
    ]
    return lines


def _judgments(n: int) -> list[Any]:
    """`n` verdicts, each for its own transcript: one real verdict (the endpoint's answer to a
    gold transcript, parsed as `score` parses it) copied under distinct transcript hashes."""
    from fake_endpoint import judge_answer

    from calibrant.contracts import Judgment, content_hash
    from calibrant.files import load_transcript
    from calibrant.judge.answer import answer_schema, parse_answer
    from calibrant.judge.config import JudgeOptions, resolve_judge
    from calibrant.judge.prompt import build_prompt

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        config, rubric, _, _ = resolve_judge(JudgeOptions(model=MODEL, api_base="http://x/v1"))
    finally:
        os.chdir(cwd)
    t = load_transcript(sorted(GOLD.glob("*.json"))[0])
    prompt = build_prompt(t, rubric, datamark=config.datamark)
    schema = answer_schema(rubric, prompt.evidence_ids, rationale_max=config.rationale_max_chars)
    body = {"response_format": {"json_schema": {"schema": schema}}}
    base = Judgment(
        transcript_id=t.transcript_id,
        transcript_hash=content_hash(t),
        judge_hash=config.hash,
        judge=config,
        sample_index=0,
        outcome="verdict",
        criteria=parse_answer(judge_answer(body), rubric, prompt.evidence_ids),
        attempts=1,
        latency_ms=1.0,
        created_at=datetime.now(UTC),
    )
    tag = uuid.uuid4().hex[:8]
    return [
        base.model_copy(
            update={"transcript_id": f"w-{i}", "transcript_hash": f"sha256:{tag}{i:056d}"}
        )
        for i in range(n)
    ]


def _write_rates(url: str, n: int) -> dict[str, float]:
    from calibrant.store import Store, make_engine, new_owner

    js = _judgments(n)
    store = Store(make_engine(url))
    owner = new_owner()
    third = n // 3
    t0 = time.perf_counter()
    for j in js[:third]:
        store.claim(j.transcript_hash, j.judge_hash, j.sample_index, owner, 120.0)
        store.finish(j, owner)
    one = third / (time.perf_counter() - t0)
    grouped = js[third : 2 * third]
    t0 = time.perf_counter()
    for start in range(0, len(grouped), GROUP):
        group = grouped[start : start + GROUP]
        keys = [(j.transcript_hash, j.sample_index) for j in group]
        store.claim_many(group[0].judge_hash, keys, owner, 120.0)
        store.finish_many(group, owner)
    groups = len(grouped) / (time.perf_counter() - t0)
    rest = js[2 * third :]
    t0 = time.perf_counter()
    for start in range(0, len(rest), 500):
        store.put_many(rest[start : start + 500])
    many = len(rest) / (time.perf_counter() - t0)
    assert store.count() == n, store.count()
    store.engine.dispose()
    return {"one": one, "groups": groups, "many": many}


def part_writes(tmp: Path, n: int, repeats: int) -> list[str]:
    import sqlalchemy as sa

    results: dict[str, list[dict[str, float]]] = {"SQLite (file, WAL)": [], "PostgreSQL": []}
    for k in range(repeats):
        results["SQLite (file, WAL)"].append(_write_rates(f"sqlite:///{tmp}/writes-{k}.db", n))
        name = f"calibrant_bench_{uuid.uuid4().hex[:10]}"
        admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(sa.text(f'CREATE DATABASE "{name}"'))
        try:
            url = PG_ADMIN.rsplit("/", 1)[0] + f"/{name}"
            results["PostgreSQL"].append(_write_rates(url, n))
        finally:
            with admin.connect() as c:
                c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
        print(f"  writes #{k + 1}: {[(b, v[-1]) for b, v in results.items()]}", flush=True)
    lines = [
        "## Verdict write rate (judgments stored per second)",
        "",
        f"Each run: {n} judgments into a fresh store (SQLite file; PostgreSQL: a fresh database "
        f"on 127.0.0.1, dropped afterwards), one process. A third through `claim` + `finish` "
        "(two transactions per answer: what `score` did before group commit); a third through "
        f"`claim_many` + `finish_many` in groups of {GROUP} (two transactions per group: what "
        "`score` does now when a burst of answers arrives; each answer is still durable before "
        "its slot is reused); a third through `put_many` in batches of 500 (one transaction "
        "per batch).",
        "",
        "| store | runs | claim + finish, per s (mean, 95% CI) | claim_many + finish_many "
        f"x{GROUP}, per s (mean, 95% CI) | put_many x500, per s (mean, 95% CI) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for backend, rs in results.items():
        cells = []
        for key in ("one", "groups", "many"):
            xs = [r[key] for r in rs]
            cells.append(f"{statistics.mean(xs):.0f} ({ci95(xs, '{:.0f}')})")
        lines.append(f"| {backend} | {len(rs)} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def main() -> None:
    if sys.argv[1:2] == ["--bare"]:  # the bare litellm loop, run by bare_process
        url, n, conc = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        print(asyncio.run(bare_loop(url, n, conc)))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="rss,throughput,writes")
    ap.add_argument("--rss-sizes", default="10000,30000")
    ap.add_argument("--rerun-repeats", type=int, default=3)
    ap.add_argument("--items", type=int, default=640)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--write-items", type=int, default=4000)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    parts = args.parts.split(",")
    body: list[str] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if "rss" in parts:
            sizes = [int(x) for x in args.rss_sizes.split(",")]
            body += part_rss(tmp, sizes, args.rerun_repeats)
        if "throughput" in parts:
            body += part_throughput(tmp, args.items, args.repeats)
        if "writes" in parts:
            body += part_writes(tmp, args.write_items, args.repeats)
    lines = [
        "# `calibrant score` at scale",
        "",
        f"Generated by `python benchmarks/bench_score.py {' '.join(sys.argv[1:])}` on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Machine: nproc={os.cpu_count()}, Python "
        f"{platform.python_version()}, {platform.machine()} {platform.system()}; shared with "
        "other sessions, so wall times are noisy. Endpoint: `benchmarks/fake_endpoint.py`, its "
        "own process, fixed latency; model `openai/bench`.",
        "",
        *body,
        "## Reproduce",
        "",
        "```bash",
        "python benchmarks/bench_score.py                  # all parts",
        "python benchmarks/bench_score.py --parts rss --rss-sizes 1000 --rerun-repeats 1 "
        "--out /tmp/s.md",
        "```",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
