"""Benchmark: the safety checker over 10,000 generated transcripts, against parsing them.

Run as ``python benchmarks/bench_check.py [--n 10000] [--repeats 3]``. Writes
``benchmarks/results/check.md``.

Generation (not timed): real trials (``run_trial``) of every scripted behaviour, and of the
``correct`` agent in every wording style, on every case in ``cases/``, written as ``run_trials``
writes them (``model_dump_json(indent=1)``). These base transcripts are replicated to ``--n``
files in a temporary folder; each copy gets its own ``transcript_id`` (the field is rewritten in
the JSON text), so every file is a distinct, valid transcript.

Measured in one process; every repeat runs every in-process measurement, so all see the same
background load (the machine is shared and noisy: every figure is the median of the repeats,
every ratio the median of the per-repeat ratios):

- (a) parse + validation: ``calibrant.files.load_transcript(path)`` for every file, all results
  kept, as ``calibrant check`` does; also ``Transcript.model_validate_json`` of texts already in
  memory (results dropped) and plain ``json.loads``, for scale;
- (b) check: ``calibrant.safety.check_transcript(t, source=path)`` on the parsed transcripts,
  then ``safety_json`` (the ``--json`` document);
- (a) and (b) again with the cyclic garbage collector paused (``gc.disable()``), because keeping
  thousands of parsed transcripts alive makes the collector, not the code, dominate;
- (c) end to end: ``calibrant check DIR --json`` in a subprocess (start-up, imports, discovery,
  parsing, checking, the JSON document written to a file), wall time and peak RSS; the same on
  one file (fixed cost); and the same command in a process that disables the GC first (the size
  of a possible fix, one run). The CLI's summary must equal the in-process one;
- for scale, parse + check streamed one file at a time, keeping only the verdicts.

Then the ratio (b)/(a) (goal: <= 1, checking costs no more than parsing), a per-invariant time
split (direct timers, no profiler), and a cProfile of (b) over ~1,000 transcripts.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import gc
import io
import json
import os
import platform
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

try:
    import calibrant  # noqa: F401
except ModuleNotFoundError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from calibrant import __version__
from calibrant.contracts import SafetyVerdict, Transcript, content_hash
from calibrant.files import load_case, load_transcript
from calibrant.harness import transcript_filename
from calibrant.reports.safety import safety_json
from calibrant.safety import Evidence, check_transcript, for_domain
from calibrant_refunds.agents import BEHAVIOURS, STYLES
from calibrant_refunds.runner import run_trial

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
RESULTS = Path(__file__).resolve().parent / "results" / "check.md"
CLI = Path(sys.executable).parent / "calibrant"
NOGC_CLI = (
    "import gc, sys; gc.disable(); from calibrant.cli import main; "
    "sys.argv = ['calibrant', *sys.argv[1:]]; main()"
)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --- generation (not timed) ------------------------------------------------------------------


def base_transcripts(workdir: Path) -> list[str]:
    """JSON texts of real trials: every scripted behaviour, and the correct agent in every
    wording style, on every case (one trial each, seeds differ)."""
    cases = [load_case(p) for p in sorted(CASES.glob("*.yaml"))]
    agents = [f"scripted:{b}" for b in BEHAVIOURS] + [f"scripted:correct/{s}" for s in STYLES]
    texts = []
    for i, case in enumerate(cases):
        for j, agent in enumerate(agents):
            t = run_trial(case, agent, trial=1 + (i + j) % 3, seed=i * 100 + j, workdir=workdir)
            texts.append(t.model_dump_json(indent=1, exclude_none=False))
    return texts


def replicate(texts: list[str], n: int, out: Path, *, start: int = 0) -> list[Path]:
    """Write files `start`..`n - 1` cycling over `texts`, each with its own transcript_id."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(start, n):
        text = texts[i % len(texts)]
        old_id = json.loads(text)["transcript_id"]
        new_id = f"{old_id}:x{i:05d}"
        old, new = f'"transcript_id": "{old_id}"', f'"transcript_id": "{new_id}"'
        assert text.count(old) == 1, old
        path = out / transcript_filename(new_id)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        paths.append(path)
    return paths


# --- measurements ----------------------------------------------------------------------------


def time_parse(paths: list[Path]) -> tuple[float, list[Transcript]]:
    start = time.perf_counter()
    parsed = [load_transcript(p) for p in paths]
    return time.perf_counter() - start, parsed


def time_parse_memory(texts: list[str]) -> float:
    start = time.perf_counter()
    for text in texts:
        Transcript.model_validate_json(text)
    return time.perf_counter() - start


def time_json(texts: list[str]) -> float:
    start = time.perf_counter()
    for text in texts:
        json.loads(text)
    return time.perf_counter() - start


def time_check(paths: list[Path], parsed: list[Transcript]) -> tuple[float, list[SafetyVerdict]]:
    start = time.perf_counter()
    verdicts = [check_transcript(t, source=str(p)) for p, t in zip(paths, parsed, strict=True)]
    return time.perf_counter() - start, verdicts


def time_streamed(paths: list[Path]) -> float:
    """Parse and check one file at a time, keeping only the verdicts."""
    start = time.perf_counter()
    verdicts = [check_transcript(load_transcript(p), source=str(p)) for p in paths]
    secs = time.perf_counter() - start
    del verdicts
    return secs


def run_cli(args: list[str], out: Path) -> tuple[float, int, dict[str, Any] | None]:
    """Wall seconds, peak RSS (KiB) and the parsed --json document of one CLI run. The peak is
    read from outside by ``/usr/bin/time -v``: a child's ``ru_maxrss`` seen by this process would
    start from this process's own (large) footprint, inherited at fork."""
    with out.open("wb") as fh:
        start = time.perf_counter()
        proc = subprocess.run(
            ["/usr/bin/time", "-v", *args], stdout=fh, stderr=subprocess.PIPE, check=False
        )
        wall = time.perf_counter() - start
    err = proc.stderr.decode()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited {proc.returncode}: {err[-2000:]}")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    if peak is None:
        raise SystemExit(f"/usr/bin/time printed no peak RSS: {err[-500:]}")
    doc = json.loads(out.read_text(encoding="utf-8"))
    return wall, int(peak.group(1)), doc


def per_invariant(parsed: list[Transcript]) -> tuple[dict[str, float], float, float]:
    """Seconds spent in each invariant (in registration order, as check_transcript runs them;
    the first invariant to touch a cached Evidence property pays for it), plus the remaining
    per-transcript overhead of check_transcript (Evidence, contract hash, verdict model), and
    the total."""
    invs = for_domain(parsed[0].domain) if parsed else []  # the refund shop's, by its names
    spent = dict.fromkeys((i.name for i in invs), 0.0)
    overhead = 0.0
    clock = time.perf_counter
    start_all = clock()
    for t in parsed:
        t0 = clock()
        ev = Evidence.of(t)
        results = []
        t1 = clock()
        overhead += t1 - t0
        for inv in invs:
            a = clock()
            results.append(inv.run(ev).result(inv.name))
            spent[inv.name] += clock() - a
        t2 = clock()
        SafetyVerdict(
            transcript_id=t.transcript_id,
            case_id=t.case_id,
            trial=t.trial,
            source=None,
            checker_version=__version__,
            contract_hash=content_hash(ev.contract) if ev.contract is not None else None,
            results=results,
        )
        overhead += clock() - t2
    return spent, overhead, clock() - start_all


def profile_check(parsed: list[Transcript]) -> tuple[str, list[tuple[str, int, float, float]]]:
    """cProfile of check_transcript over `parsed`: the top lines by cumulative time (text), and
    (function, calls, tottime, cumtime) rows of the top 10 below check_transcript itself."""
    prof = cProfile.Profile()
    prof.enable()
    for t in parsed:
        check_transcript(t)
    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    stats.sort_stats("cumulative").print_stats(25)
    rows = []
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for (file, line, func), (_, ncalls, tottime, cumtime, _) in raw.items():
        if func in ("profile_check", "check_transcript", "<listcomp>", "<genexpr>") or (
            "disable" in func
        ):
            continue
        short = re.sub(r"^.*/(src|site-packages|lib/python3\.\d+)/", "", file)
        rows.append((f"{short}:{line}({func})", ncalls, tottime, cumtime))
    rows.sort(key=lambda r: r[3], reverse=True)
    return buf.getvalue(), rows[:10]


# --- report ----------------------------------------------------------------------------------


def profile_summary(
    spent: dict[str, float],
    overhead: float,
    total: float,
    top: list[tuple[str, int, float, float]],
    sampled: int,
) -> str:
    """One paragraph: which invariant dominates, and what the profile shows inside it."""
    ranked = sorted(spent.items(), key=lambda kv: kv[1], reverse=True)
    (first, first_s), (second, second_s) = ranked[0], ranked[1]
    text = (
        f"**What dominates:** `{first}` takes {first_s / total:.0%} of the check time, "
        f"{first_s / second_s:.1f}x the next invariant (`{second}`, {second_s / total:.0%}); "
        f"the per-transcript overhead of `check_transcript` (Evidence, the SHA-256 content hash "
        f"of the embedded case contract, the pydantic verdict) is {overhead / total:.0%}."
    )
    for func, ncalls, _, _ in top:
        if func.endswith("(mentions)"):
            text += (
                f" In the profile, `mentions()` runs {ncalls / sampled:.0f} times per transcript "
                "(each protected value of the other tenant against each sent message; every call "
                "normalizes both strings, escapes the value and runs a regex search)"
            )
            break
    return text + "."


def goal_text(ratio: float) -> str:
    if ratio <= 0.95:
        return "met"
    if ratio <= 1.05:
        return "at the limit (within the run-to-run noise of 1)"
    return "NOT met"


def fmt_rate(n: int, secs: float) -> str:
    return f"{n / secs:,.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="transcript files to check")
    ap.add_argument("--repeats", type=int, default=3, help="repeats of every measurement")
    ap.add_argument("--profile-n", type=int, default=1_000, help="transcripts under cProfile")
    args = ap.parse_args()
    n, repeats = args.n, args.repeats
    load_before = os.getloadavg()[0]
    started = time.perf_counter()

    tmp = Path(tempfile.mkdtemp(prefix="calibrant-bench-check-"))
    try:
        log("generating base transcripts from real trials ...")
        t0 = time.perf_counter()
        base = base_transcripts(tmp / "work")
        gen_secs = time.perf_counter() - t0
        folder = tmp / "transcripts"
        paths = replicate(base, n, folder)
        texts = [p.read_text(encoding="utf-8") for p in paths]
        sizes = [len(t.encode()) for t in base]
        log(f"{len(base)} base transcripts in {gen_secs:.1f} s; {n} files written to {folder}")

        # warm-up: imports, regex cache, pydantic validators
        warm = [load_transcript(p) for p in paths[:200]]
        for t in warm:
            check_transcript(t)
        del warm

        keys = ("parse", "check", "parse_nogc", "check_nogc", "parse_mem", "json", "streamed")
        secs: dict[str, list[float]] = {k: [] for k in keys}
        ratios: list[float] = []
        ratios_nogc: list[float] = []
        verdicts: list[SafetyVerdict] = []
        parsed: list[Transcript] = []
        json_doc_s: list[float] = []
        for rep in range(repeats):
            parsed, verdicts = [], []  # nothing from the previous repeat stays alive
            gc.collect()
            # parse cost alone: texts in memory, every result dropped at once
            am = time_parse_memory(texts)
            j = time_json(texts)
            st = time_streamed(paths)
            gc.collect()
            # as `calibrant check` does: parse every file (all kept), check them all, and build
            # the --json document
            a, parsed = time_parse(paths)
            b, verdicts = time_check(paths, parsed)
            t0 = time.perf_counter()
            safety_json(verdicts)
            json_doc_s.append(time.perf_counter() - t0)
            parsed, verdicts = [], []
            gc.collect()
            # the same two passes with the cyclic garbage collector paused
            gc.disable()
            try:
                a0, parsed = time_parse(paths)
                b0, verdicts = time_check(paths, parsed)
            finally:
                gc.enable()
            for k, v in zip(keys, (a, b, a0, b0, am, j, st), strict=True):
                secs[k].append(v)
            ratios.append(b / a)
            ratios_nogc.append(b0 / a0)
            log(
                f"repeat {rep + 1}: parse {a:.2f} s, check {b:.2f} s (ratio {b / a:.2f}), "
                f"--json document {json_doc_s[-1]:.2f} s; GC paused: parse {a0:.2f} s, "
                f"check {b0:.2f} s (ratio {b0 / a0:.2f}); model_validate_json from memory "
                f"{am:.2f} s, json.loads {j:.2f} s; streamed parse + check {st:.2f} s"
            )

        # (c) the CLI, end to end, and its fixed cost (start-up + one transcript)
        cli_s: list[float] = []
        cli_rss: list[int] = []
        one_s: list[float] = []
        cli_doc: dict[str, Any] | None = None
        for rep in range(repeats):
            wall, rss, cli_doc = run_cli([str(CLI), "check", str(folder), "--json"], tmp / "o.json")
            cli_s.append(wall)
            cli_rss.append(rss)
            one, _, _ = run_cli([str(CLI), "check", str(paths[0]), "--json"], tmp / "one.json")
            one_s.append(one)
            log(f"CLI repeat {rep + 1}: {wall:.2f} s for {n} files ({rss / 1024:.0f} MiB peak)")
        # to size a possible fix: once, the same command in a process that disables the GC
        c0, nogc_rss, doc0 = run_cli(
            [sys.executable, "-c", NOGC_CLI, "check", str(folder), "--json"], tmp / "o0.json"
        )
        assert doc0 == cli_doc
        log(f"CLI with the GC disabled: {c0:.2f} s ({nogc_rss / 1024:.0f} MiB peak)")

        # the CLI must agree with the in-process checker
        summary: dict[str, Counter[str]] = {}
        for v in verdicts:
            for r in v.results:
                summary.setdefault(r.invariant, Counter())[r.outcome] += 1
        assert cli_doc is not None and cli_doc["transcripts"] == n
        assert cli_doc["summary"] == {k: dict(c) for k, c in summary.items()}, "CLI disagrees"
        violated = sum(1 for v in verdicts if v.violated)
        herr = sum(1 for v in verdicts if v.harness_errors)

        log("per-invariant split ...")
        gc.disable()
        try:
            spent, overhead, split_total = per_invariant(parsed)
        finally:
            gc.enable()
        step = max(1, n // args.profile_n)
        sample = parsed[::step][: args.profile_n]
        log(f"cProfile over {len(sample)} transcripts ...")
        gc.disable()
        try:
            profile_text, top = profile_check(sample)
        finally:
            gc.enable()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # --- the Markdown report ------------------------------------------------------------------
    med = {k: statistics.median(v) for k, v in secs.items()}
    a, b, a0, b0 = med["parse"], med["check"], med["parse_nogc"], med["check_nogc"]
    am, j = med["parse_mem"], med["json"]
    c, one = statistics.median(cli_s), statistics.median(one_s)
    st = med["streamed"]
    jd = statistics.median(json_doc_s)
    ratio, ratio0 = statistics.median(ratios), statistics.median(ratios_nogc)
    goal, goal0 = goal_text(ratio), goal_text(ratio0)
    total_runtime = time.perf_counter() - started
    machine = (
        f"nproc={os.cpu_count()}, Python {platform.python_version()}, "
        f"{platform.machine()} {platform.system()}, load average (1 min) {load_before:.2f} "
        f"before and {os.getloadavg()[0]:.2f} after"
    )
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    rows = [
        (
            "(a) parse + validation: `load_transcript(path)` for every file, all kept "
            "(file read + `Transcript.model_validate_json`), as `calibrant check` does",
            n,
            a,
            1.0,
        ),
        ("(b) check: `check_transcript(t)` on the parsed transcripts (all kept)", n, b, b / a),
        ("(a) + (b): what `calibrant check` does in process", n, a + b, (a + b) / a),
        ("(a) with the cyclic GC paused (`gc.disable()` during the pass)", n, a0, a0 / a),
        ("(b) with the cyclic GC paused", n, b0, b0 / a),
        (
            "(a) + (b) streamed: parse and check one file at a time, keep only the verdicts "
            "(size of a possible fix)",
            n,
            st,
            st / a,
        ),
        (
            "`model_validate_json` of texts already in memory, each result dropped "
            "(no file read, little GC work)",
            n,
            am,
            am / a,
        ),
        ("plain `json.loads` of the same texts (no validation), for scale", n, j, j / a),
        ("`safety_json(verdicts)`: building the `--json` document (in process)", n, jd, jd / a),
        ("(c) `calibrant check DIR --json`, subprocess wall time (incl. start-up)", n, c, c / a),
        (
            "(c) with the cyclic GC disabled in the CLI process (one run; size of a possible fix)",
            n,
            c0,
            c0 / a,
        ),
        ("`calibrant check FILE --json` on one file: start-up + fixed cost", 1, one, one / a),
    ]
    lines = [
        "# Check benchmark: the safety checker vs parsing",
        "",
        f"Generated by `python benchmarks/bench_check.py` on {now}; ran {total_runtime:.0f} s.",
        f"Machine: {machine}. The machine is shared and noisy: every time is the median of "
        f"{repeats} repeats (the CLI with the GC disabled: one run); every repeat runs every "
        "in-process measurement in turn, so each ratio is taken within one run (median of the "
        "per-repeat ratios).",
        "",
        f"Input: {n:,} transcript files, {len(base)} distinct real trials (every scripted "
        "behaviour, and `scripted:correct` in every wording style, on every one of the "
        f"{len(list(CASES.glob('*.yaml')))} cases, seeds differing) replicated with distinct "
        f"`transcript_id`s; {statistics.mean(sizes) / 1024:.1f} KiB per file on average "
        f"({min(sizes) / 1024:.1f}-{max(sizes) / 1024:.1f}). Of the {n:,} verdicts, {violated:,} "
        f"have a violation and {herr:,} a harness error. Files were just written, so they are "
        "read from the page cache.",
        "",
        "| what | n | seconds | transcripts/s | ratio to (a) |",
        "| --- | ---: | ---: | ---: | ---: |",
        *[f"| {w} | {k:,} | {s:.3f} | {fmt_rate(k, s)} | {r:.2f} |" for w, k, s, r in rows],
        "",
        f"**Ratio check / parse = (b)/(a) = {ratio:.2f}** (per repeat: "
        + ", ".join(f"{r:.2f}" for r in ratios)
        + f"). Goal <= 1 (checking costs no more than parsing): **{goal}**. "
        f"With the GC paused in both passes the ratio is **{ratio0:.2f}** (per repeat: "
        + ", ".join(f"{r:.2f}" for r in ratios_nogc)
        + f"): goal **{goal0}**.",
        "",
        f"Per transcript: parse + validation {a / n * 1e3:.3f} ms ({a0 / n * 1e3:.3f} ms with "
        f"the GC paused), check {b / n * 1e3:.3f} ms ({b0 / n * 1e3:.3f} ms). Keeping "
        f"{n:,} parsed transcripts alive makes CPython's cyclic GC traverse an ever larger heap: "
        f"{1 - a0 / a:.0%} of (a) and {1 - b0 / b:.0%} of (b) is garbage-collector time, "
        "although nothing is garbage. End to end, the CLI spends "
        f"{one:.2f} s on start-up and {c - one:.2f} s on the {n:,} files; with the GC disabled "
        f"it takes {c0:.2f} s ({c / c0:.1f}x faster). Peak RSS of the CLI, read by "
        f"`/usr/bin/time -v`: {statistics.median(cli_rss) / 1024:.0f} MiB "
        f"({nogc_rss / 1024:.0f} MiB with the GC disabled): it parses and checks one file at a "
        "time and spools the verdicts to a temporary file (memory in the number of "
        "transcripts: [check_scale.md](check_scale.md)). In process, parsing and checking one "
        f"file at a time, keeping only the verdicts, takes {st:.2f} s instead of {a + b:.2f} s.",
        "",
        "## Where the check time goes",
        "",
        f"Per invariant, timed directly (no profiler, GC paused so that its pauses do not land "
        f"on whichever invariant happens to allocate) over the {n:,} parsed transcripts. "
        "Evidence properties are cached per transcript, so the first invariant that uses one "
        f"(e.g. `new_refunds`) pays for it. Total {split_total:.3f} s.",
        "",
        "| invariant | seconds | share | us/transcript |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, inv_s in sorted(spent.items(), key=lambda kv: kv[1], reverse=True):
        lines.append(
            f"| `{name}` | {inv_s:.3f} | {inv_s / split_total:.1%} | {inv_s / n * 1e6:.1f} |"
        )
    lines.append(
        f"| (Evidence, contract hash, verdict model) | {overhead:.3f} | "
        f"{overhead / split_total:.1%} | {overhead / n * 1e6:.1f} |"
    )
    lines += [
        "",
        f"cProfile of `check_transcript` over {len(sample):,} transcripts (every {step}th file, "
        "GC paused), top 10 functions by cumulative time (profiler overhead inflates small "
        "Python calls):",
        "",
        "| function | calls | tottime s | cumtime s |",
        "| --- | ---: | ---: | ---: |",
        *[f"| `{f}` | {nc:,} | {tt:.3f} | {ct:.3f} |" for f, nc, tt, ct in top],
        "",
        profile_summary(spent, overhead, split_total, top, len(sample)),
        "",
        "## Reproduce",
        "",
        "```bash",
        ".venv/bin/python benchmarks/bench_check.py            # --n 10000 --repeats 3",
        "```",
        "",
    ]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    print(profile_text, file=sys.stderr)


if __name__ == "__main__":
    main()
