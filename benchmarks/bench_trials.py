"""Benchmark: scripted trials per second over every case x 20 trials, and where the time goes.

Run as ``python benchmarks/bench_trials.py [--k 20] [--repeats 3]``. Writes
``benchmarks/results/trials.md``.

The issue speaks of 9 cases; ``cases/`` holds 10 YAML files, and all 10 are run.

Measured in one process (the machine is shared and noisy: every figure is the median of the
repeats, and within a repeat the two passes alternate case by case, so that both see the same
background load):

- bare: ``calibrant.harness.run_trial`` of ``scripted:correct`` on every case x k trials (fresh
  SQLite ledger per trial, snapshots, tool calls, the Transcript model), nothing written;
- full: ``calibrant.harness.run_trials`` with the same agent, k and seed (called once per case,
  every TrialRun kept), which also serializes each transcript to JSON, writes it atomically
  and runs the safety checker.

Where the time goes: one more full pass with timers wrapped (at run time, in this process only)
around the functions a trial calls, patched where they are looked up: fixture setup
(``create_trial_service``, with ``open_engine``, ``create_engine`` and ``metadata.create_all``
inside it), evaluator snapshots (``take_snapshot``), conversation turns (``advance``), tool calls
(``ToolBox.call``), the agent's checkpoint store, the
notification sink, the case hash, the ``Transcript`` construction, ``engine.dispose``, and,
across all of them, SQLAlchemy's COMMIT and ROLLBACK calls; for the full run also
``model_dump_json``, ``write_atomic`` and ``check_transcript``. Then a cProfile of bare trials
(two per case) for the SQLite / SQLAlchemy / pydantic split, and one experiment that changes no
code: the same bare trials with the trial databases on tmpfs (``/dev/shm``), which shows what
the per-commit fsyncs cost.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import functools
import gc
import os
import platform
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:
    import calibrant  # noqa: F401
except ModuleNotFoundError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import sqlalchemy
import sqlalchemy.engine.create
import sqlalchemy.sql.compiler
from sqlalchemy.engine.base import Engine
from sqlalchemy.engine.default import DefaultDialect
from sqlmodel import SQLModel

import calibrant.engine.service as engine_service_mod
import calibrant.harness.checkpoint as checkpoint_mod
import calibrant.harness.runner as loop_mod
import calibrant.harness.trials as trials_mod
import calibrant_refunds.ledger.service as service_mod
import calibrant_refunds.runner as runner_mod
import calibrant_refunds.runtime as runtime_mod
import calibrant_refunds.toolbox as toolbox_mod
from calibrant.contracts import CaseContract, Transcript
from calibrant.files import load_case
from calibrant.harness import run_trials
from calibrant_refunds.runner import run_trial

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
RESULTS = Path(__file__).resolve().parent / "results" / "trials.md"
AGENT = "scripted:correct"
SEED = 20_240_601
SHM = Path("/dev/shm")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --- the two passes --------------------------------------------------------------------------


def bare_pass(cases: list[CaseContract], k: int, base: Path) -> float:
    """Seconds for k bare trials of every case (workdir under `base`, removed afterwards)."""
    work = Path(tempfile.mkdtemp(prefix="bare-", dir=base))
    try:
        start = time.perf_counter()
        for case in cases:
            for trial in range(1, k + 1):
                run_trial(case, AGENT, trial=trial, seed=SEED, workdir=work)
        return time.perf_counter() - start
    finally:
        shutil.rmtree(work, ignore_errors=True)


def full_pass(cases: list[CaseContract], k: int, base: Path) -> tuple[float, list[Any]]:
    """Seconds for run_trials (transcripts written, each checked); its TrialRuns."""
    out = Path(tempfile.mkdtemp(prefix="full-", dir=base))
    try:
        start = time.perf_counter()
        runs = run_trials(cases, AGENT, k=k, seed=SEED, out=out)
        return time.perf_counter() - start, runs
    finally:
        shutil.rmtree(out, ignore_errors=True)


def interleaved(
    cases: list[CaseContract], k: int, base: Path, flip: bool
) -> tuple[float, float, list[Any]]:
    """Both passes case by case, alternating which goes first, so that both see the same
    background load: summed seconds of the bare trials, of the full runs (``run_trials`` on one
    case at a time, all TrialRuns kept as one run over every case would keep them), and the
    TrialRuns."""
    bare = full = 0.0
    runs: list[Any] = []
    out = Path(tempfile.mkdtemp(prefix="full-", dir=base))
    work = Path(tempfile.mkdtemp(prefix="bare-", dir=base))
    try:
        for i, case in enumerate(cases):
            for which in ("bare", "full") if (i % 2 == 0) != flip else ("full", "bare"):
                start = time.perf_counter()
                if which == "bare":
                    for trial in range(1, k + 1):
                        run_trial(case, AGENT, trial=trial, seed=SEED, workdir=work)
                    bare += time.perf_counter() - start
                else:  # one run folder per case: a run folder holds one run
                    runs += run_trials([case], AGENT, k=k, seed=SEED, out=out / case.case)
                    full += time.perf_counter() - start
    finally:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    return bare, full, runs


@contextmanager
def temp_root(path: Path) -> Iterator[None]:
    """Make `tempfile` use `path` (run_trials keeps its scratch folder inside its --out)."""
    old = tempfile.tempdir
    tempfile.tempdir = str(path)
    try:
        yield
    finally:
        tempfile.tempdir = old


# --- timers wrapped around the trial's steps -------------------------------------------------


class Timers:
    def __init__(self) -> None:
        self.secs: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()

    def wrap(self, key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        clock = time.perf_counter
        secs, calls = self.secs, self.calls

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                secs[key] += clock() - start
                calls[key] += 1

        return timed


def wrapper_overhead(calls: int = 200_000) -> float:
    """Seconds a timer wrapper adds to one call (best of 5)."""

    def noop() -> None:
        return None

    timed = Timers().wrap("noop", noop)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            noop()
        plain = time.perf_counter() - start
        start = time.perf_counter()
        for _ in range(calls):
            timed()
        best = min(best, (time.perf_counter() - start - plain) / calls)
    return max(best, 0.0)


# (owner, attribute, key): patched where the code looks the name up
PATCHES: list[tuple[Any, str, str]] = [
    (runtime_mod, "run_trial", "trial"),
    (runner_mod, "create_trial_service", "fixture"),
    (service_mod, "open_engine", "fixture.engine"),
    (engine_service_mod, "create_engine", "fixture.engine.create_engine"),
    (SQLModel.metadata, "create_all", "fixture.engine.create_all"),
    (runner_mod, "take_snapshot", "snapshot"),
    (loop_mod, "advance", "turns"),
    (toolbox_mod.ToolBox, "call", "tools"),
    (checkpoint_mod.CheckpointStore, "__init__", "checkpoints.open"),
    (checkpoint_mod.CheckpointStore, "save", "checkpoints.save"),
    (checkpoint_mod.CheckpointStore, "load", "checkpoints.load"),
    (runner_mod, "notification_sink", "sink"),
    (loop_mod, "content_hash", "case_hash"),
    (runner_mod, "Transcript", "transcript"),
    (Engine, "dispose", "dispose"),
    (DefaultDialect, "do_commit", "sql.commit"),
    (DefaultDialect, "do_rollback", "sql.rollback"),
    (Transcript, "model_dump_json", "full.serialize"),
    (trials_mod, "write_atomic", "full.write"),
    (trials_mod, "check_transcript", "full.check"),
]


@contextmanager
def instrumented(timers: Timers) -> Iterator[None]:
    saved = []
    try:
        for owner, attr, key in PATCHES:
            own = attr in vars(owner)
            original = getattr(owner, attr)
            saved.append((owner, attr, own, vars(owner).get(attr)))
            setattr(owner, attr, timers.wrap(key, original))
        yield
    finally:
        for owner, attr, own, original in reversed(saved):
            if own:
                setattr(owner, attr, original)
            else:
                delattr(owner, attr)


# --- cProfile of bare trials -----------------------------------------------------------------

# (label, pstats function name, which figure): builtins are keyed ("~", 0, name)
PROFILE_BUCKETS: list[tuple[str, str, str]] = [
    (
        "sqlite3 COMMIT by SQLAlchemy (`Connection.commit`: journal + fsync)",
        "<method 'commit' of 'sqlite3.Connection' objects>",
        "tottime",
    ),
    (
        "sqlite3 statements via SQLAlchemy (`Cursor.execute`, incl. DDL)",
        "<method 'execute' of 'sqlite3.Cursor' objects>",
        "tottime",
    ),
    (
        "sqlite3 statements of the checkpoint store (`Connection.execute`, autocommit: fsync)",
        "<method 'execute' of 'sqlite3.Connection' objects>",
        "tottime",
    ),
    ("`sqlite3.connect`", "<built-in method _sqlite3.connect>", "tottime"),
    ("SQL and DDL compilation (`Compiled.__init__`, cumulative)", "Compiled.__init__", "cumtime"),
    ("`create_engine` (cumulative)", "create_engine", "cumtime"),
    ("`MetaData.create_all` (cumulative)", "MetaData.create_all", "cumtime"),
    (
        "pydantic validation (`validate_python`, own time)",
        "<method 'validate_python' of 'pydantic_core._pydantic_core.SchemaValidator' objects>",
        "tottime",
    ),
]


# the exact functions (their code objects) behind the non-builtin buckets
PROFILE_CODE = {
    "Compiled.__init__": sqlalchemy.sql.compiler.Compiled.__init__.__code__,
    "create_engine": sqlalchemy.engine.create.create_engine.__code__,
    "MetaData.create_all": sqlalchemy.MetaData.create_all.__code__,
}


def profile_trials(cases: list[CaseContract], per_case: int, base: Path) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="prof-", dir=base))
    prof = cProfile.Profile()
    try:
        prof.enable()
        for case in cases:
            for trial in range(1, per_case + 1):
                run_trial(case, AGENT, trial=trial, seed=SEED, workdir=work)
        prof.disable()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    stats = pstats.Stats(prof)
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    total = max(ct for (_, _, func), (_, _, _, ct, _) in raw.items() if func == "run_trial")
    found: dict[str, tuple[int, float]] = {}
    for (file, line, func), (_, ncalls, tottime, cumtime, _) in raw.items():
        for label, name, which in PROFILE_BUCKETS:
            if name.startswith("<"):  # a builtin, keyed by its full name
                match = func == name
            else:
                code = PROFILE_CODE[name]
                match = (file, line, func) == (
                    code.co_filename,
                    code.co_firstlineno,
                    code.co_name,
                )
            if match:
                value = tottime if which == "tottime" else cumtime
                calls, secs = found.get(label, (0, 0.0))
                found[label] = (calls + ncalls, secs + value)
    top = sorted(raw.items(), key=lambda kv: kv[1][2], reverse=True)[:12]
    top_rows = []
    for (file, line, func), (_, ncalls, tottime, _, _) in top:
        short = file.split("site-packages/")[-1].split("/src/")[-1]
        top_rows.append((f"{short}:{line}({func})" if file != "~" else func, ncalls, tottime))
    return {"total": total, "buckets": found, "top": top_rows, "n": len(cases) * per_case}


# --- report ----------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--k", type=int, default=20, help="trials per case")
    ap.add_argument("--repeats", type=int, default=3, help="repeats of the bare and full passes")
    ap.add_argument("--shm-k", type=int, default=3, help="trials per case in the tmpfs test")
    args = ap.parse_args()
    k, repeats = args.k, args.repeats
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    cases = [load_case(p) for p in sorted(CASES.glob("*.yaml"))]
    n = len(cases) * k
    disk = Path(tempfile.mkdtemp(prefix="calibrant-bench-trials-"))
    try:
        # warm-up: imports, pydantic and SQLAlchemy first-use costs
        bare_pass(cases, 1, disk)

        bare_s: list[float] = []
        full_s: list[float] = []
        outcomes: Counter[str] = Counter()
        for rep in range(repeats):
            gc.collect()  # nothing of the previous repeat is alive any more
            with temp_root(disk):
                b, f, runs = interleaved(cases, k, disk, flip=rep % 2 == 1)
            bare_s.append(b)
            full_s.append(f)
            outcomes = Counter(
                "violated"
                if r.verdict.violated
                else "harness_error"
                if r.verdict.harness_errors
                else "clean"
                for r in runs
            )
            del runs
            log(f"repeat {rep + 1}: bare {b:.2f} s, full {f:.2f} s ({n} trials each)")

        timers = Timers()
        gc.collect()
        with instrumented(timers), temp_root(disk):
            instr_s, runs = full_pass(cases, k, disk)
        del runs
        gc.collect()
        log(f"instrumented full pass: {instr_s:.2f} s")

        log("cProfile ...")
        prof = profile_trials(cases, 2, disk)

        shm_rows: list[tuple[float, float]] = []
        if SHM.is_dir() and os.access(SHM, os.W_OK):
            shm = Path(tempfile.mkdtemp(prefix="calibrant-bench-trials-", dir=SHM))
            try:
                for rep in range(repeats):
                    d = bare_pass(cases, args.shm_k, disk)
                    m = bare_pass(cases, args.shm_k, shm)
                    shm_rows.append((d, m))
                    log(f"tmpfs test {rep + 1}: disk {d:.2f} s, tmpfs {m:.2f} s")
            finally:
                shutil.rmtree(shm, ignore_errors=True)
    finally:
        shutil.rmtree(disk, ignore_errors=True)

    # --- the Markdown report ------------------------------------------------------------------
    bare, full = statistics.median(bare_s), statistics.median(full_s)
    t, c = timers.secs, timers.calls
    trial_total = t["trial"]
    ntr = c["trial"]

    def row(label: str, key: str | None, secs: float, calls: int | None, base: float) -> str:
        per_call = f"{secs / calls * 1e3:.2f}" if calls else ""
        calls_s = f"{calls:,} ({calls / ntr:.1f})" if calls else ""
        return (
            f"| {label} | {calls_s} | {secs:.3f} | {secs / ntr * 1e3:.2f} | {per_call} | "
            f"{secs / base:.1%} |"
        )

    top_keys = [
        ("fixture setup: `create_trial_service` (fresh SQLite file, schema, seeding)", "fixture"),
        ("evaluator snapshots: `take_snapshot` (before + after)", "snapshot"),
        ("conversation turns: `advance` (one transaction each)", "turns"),
        ("tool calls: `ToolBox.call` (faults, service, ToolCall record)", "tools"),
        ("agent checkpoints: `CheckpointStore` open/save/load", None),
        ("notification sink: `notification_sink`", "sink"),
        ("`Transcript(...)` construction + validation", "transcript"),
        ("case hash: `content_hash(case)`", "case_hash"),
        ("`engine.dispose()`", "dispose"),
    ]
    ck = ("checkpoints.open", "checkpoints.save", "checkpoints.load")
    ck_s, ck_n = sum(t[x] for x in ck), sum(c[x] for x in ck)
    seed_s = t["fixture"] - t["fixture.engine"]
    accounted = 0.0
    trial_rows = []
    for label, key in top_keys:
        secs, calls = (ck_s, ck_n) if key is None else (t[key], c[key])
        accounted += secs
        trial_rows.append(row(label, key, secs, calls, trial_total))
        if key == "fixture":
            trial_rows += [
                row(
                    "&nbsp;&nbsp;of which `open_engine` (engine + `create_all`)",
                    None,
                    t["fixture.engine"],
                    c["fixture.engine"],
                    trial_total,
                ),
                row(
                    "&nbsp;&nbsp;&nbsp;&nbsp;of which `create_engine`",
                    None,
                    t["fixture.engine.create_engine"],
                    c["fixture.engine.create_engine"],
                    trial_total,
                ),
                row(
                    "&nbsp;&nbsp;&nbsp;&nbsp;of which `metadata.create_all` (12 tables, DDL)",
                    None,
                    t["fixture.engine.create_all"],
                    c["fixture.engine.create_all"],
                    trial_total,
                ),
                row(
                    "&nbsp;&nbsp;of which seeding (rows + commit)", None, seed_s, None, trial_total
                ),
            ]
        if key is None:
            for x in ck:
                trial_rows.append(
                    row(f"&nbsp;&nbsp;of which `{x.split('.')[1]}`", None, t[x], c[x], trial_total)
                )
    rest = trial_total - accounted
    sqlite_keys = ("fixture", "snapshot", "turns", "tools", "sink")
    sqlite_s = sum(t[x] for x in sqlite_keys) + ck_s
    ranked = sorted(
        [(label.split(":")[0], t[key] if key else ck_s) for label, key in top_keys[:6]],
        key=lambda x: x[1],
        reverse=True,
    )
    summary = (
        "**What dominates:** "
        + ", ".join(f"{name} {secs / trial_total:.0%}" for name, secs in ranked[:4])
        + f" of the trial time. Everything that talks to SQLite (fixture, snapshots, turns, "
        f"tool calls, checkpoints, sink) is {sqlite_s / trial_total:.0%}; the `Transcript` "
        f"model {t['transcript'] / trial_total:.1%}; the scripted agent and the rest "
        f"{rest / trial_total:.1%}. {c['sql.commit'] / ntr:.1f} SQLAlchemy COMMITs per trial "
        f"(plus {ck_n / ntr:.1f} checkpoint-store calls, each on a new sqlite3 connection, "
        "the INSERTs in autocommit mode)."
    )
    trial_rows.append(
        row("rest: scripted agent logic, Recorder, ids, bookkeeping", None, rest, None, trial_total)
    )
    trial_rows.append(
        row("**trial wall time (sum of `run_trial`)**", None, trial_total, ntr, trial_total)
    )
    cross = [
        row(
            "SQLAlchemy COMMIT (`do_commit`; fsync of the journal)",
            None,
            t["sql.commit"],
            c["sql.commit"],
            trial_total,
        ),
        row(
            "SQLAlchemy ROLLBACK (`do_rollback`; connection reset on return to the pool)",
            None,
            t["sql.rollback"],
            c["sql.rollback"],
            trial_total,
        ),
    ]
    full_rest = instr_s - trial_total - t["full.serialize"] - t["full.write"] - t["full.check"]
    full_rows = [
        row("trials (`run_trial`, broken down above)", None, trial_total, ntr, instr_s),
        row(
            "serialize: `model_dump_json(indent=1)`",
            None,
            t["full.serialize"],
            c["full.serialize"],
            instr_s,
        ),
        row(
            "write: `write_atomic` (temp file + rename)",
            None,
            t["full.write"],
            c["full.write"],
            instr_s,
        ),
        row("check: `check_transcript`", None, t["full.check"], c["full.check"], instr_s),
        row("rest (`run_trials` loop, scratch folder, make_agent)", None, full_rest, None, instr_s),
        row("**full pass wall time (`run_trials`)**", None, instr_s, None, instr_s),
    ]

    wrapped = sum(c.values())
    per_wrap = wrapper_overhead()
    total_runtime = time.perf_counter() - started
    machine = (
        f"nproc={os.cpu_count()}, Python {platform.python_version()}, SQLAlchemy "
        f"{sqlalchemy.__version__}, SQLite {__import__('sqlite3').sqlite_version}, "
        f"{platform.machine()} {platform.system()}, load average (1 min) {load_before:.2f} "
        f"before and {os.getloadavg()[0]:.2f} after"
    )
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    head = "| what | calls (per trial) | seconds | ms/trial | ms/call | share |"
    sep = "| --- | ---: | ---: | ---: | ---: | ---: |"
    lines = [
        "# Trials benchmark: scripted trials per second, and where the time goes",
        "",
        f"Generated by `python benchmarks/bench_trials.py` on {now}; ran {total_runtime:.0f} s.",
        f"Machine: {machine}. Trial databases live in a temporary folder on the local disk "
        f"({disk.parent}). The machine is shared and noisy: each time is the median of "
        f"{repeats} repeats; within a repeat the bare and full passes alternate case by case "
        "(which goes first alternates too), so the full/bare ratio is taken within one run "
        "(median of the per-repeat ratios). The full pass calls `run_trials` once per case.",
        "",
        f"`{AGENT}` on all {len(cases)} cases in `cases/` (the issue says 9; there are "
        f"{len(cases)} YAML files and all are run) x {k} trials = {n} trials per pass, seed "
        f"{SEED}. Verdicts of the full run: "
        + ", ".join(f"{v} {kind}" for kind, v in sorted(outcomes.items()))
        + ".",
        "",
        "| pass | trials | seconds (median) | trials/s | ms/trial | per repeat (s) |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
        f"| bare: `run_trial` | {n} | {bare:.2f} | {n / bare:.1f} | {bare / n * 1e3:.1f} | "
        + ", ".join(f"{x:.2f}" for x in bare_s)
        + " |",
        f"| full: `run_trials` (+ JSON, write, check) | {n} | {full:.2f} | {n / full:.1f} | "
        f"{full / n * 1e3:.1f} | " + ", ".join(f"{x:.2f}" for x in full_s) + " |",
        "",
        "Full / bare: "
        f"{statistics.median(f / b for f, b in zip(full_s, bare_s, strict=True)):.2f} "
        "(median of the per-repeat ratios).",
        "",
        "## Where the time goes",
        "",
        f"One more full pass (`run_trials` over all cases, {n} trials, {instr_s:.2f} s; the "
        f"uninstrumented median is {full:.2f} s) with timers around each step. The timers add "
        f"{wrapped:,} wrapped calls x {per_wrap * 1e6:.2f} us = {wrapped * per_wrap:.3f} s; any "
        "other difference is the machine's noise. "
        "Shares are of the summed `run_trial` wall time; indented rows are part of the row "
        "above them; the top-level rows do not overlap, and 'rest' is what they leave.",
        "",
        head,
        sep,
        *trial_rows,
        "",
        summary,
        "",
        "Across the rows above (each transaction ends with one of these):",
        "",
        head,
        sep,
        *cross,
        "",
        "The full run on top of the trials (shares of the full pass):",
        "",
        head,
        sep,
        *full_rows,
        "",
        f"cProfile of {prof['n']} bare trials (2 per case), {prof['total']:.2f} s under the "
        "profiler (which inflates Python-level work, not time spent inside SQLite). Buckets "
        "overlap: `create_all` includes compiling and executing its DDL, and each new engine "
        "starts with an empty compiled-statement cache, so every trial compiles its SQL again. "
        "The sqlite3 buckets are mostly fsync latency, which on this shared disk varies several "
        "fold from one run to the next (compare the mean COMMIT time above):",
        "",
        "| bucket | calls | seconds | share |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, _, _ in PROFILE_BUCKETS:
        calls, secs = prof["buckets"].get(label, (0, 0.0))
        lines.append(f"| {label} | {calls:,} | {secs:.3f} | {secs / prof['total']:.1%} |")
    lines += [
        "",
        "Top functions by own time under the profiler:",
        "",
        "| function | calls | tottime s |",
        "| --- | ---: | ---: |",
        *[f"| `{f}` | {nc:,} | {tt:.3f} |" for f, nc, tt in prof["top"]],
        "",
    ]
    if shm_rows:
        d = statistics.median(x for x, _ in shm_rows)
        m = statistics.median(y for _, y in shm_rows)
        r = statistics.median(y / x for x, y in shm_rows)
        ns = len(cases) * args.shm_k
        lines += [
            "## Experiment: trial databases on tmpfs",
            "",
            "No code changed: the same bare trials with their workdir on `/dev/shm` (tmpfs, so "
            "fsync is free) instead of the local disk, alternating, "
            f"{ns} trials per pass, median of {repeats}. The difference is roughly what "
            "durable commits cost (the ledger's COMMITs, and the checkpoint store's autocommit "
            "INSERTs).",
            "",
            "| workdir | trials | seconds | trials/s | ms/trial |",
            "| --- | ---: | ---: | ---: | ---: |",
            f"| local disk | {ns} | {d:.2f} | {ns / d:.1f} | {d / ns * 1e3:.1f} |",
            f"| tmpfs | {ns} | {m:.2f} | {ns / m:.1f} | {m / ns * 1e3:.1f} |",
            "",
            f"tmpfs / disk: {r:.2f} (median of the per-repeat ratios).",
            "",
        ]
    lines += [
        "## Reproduce",
        "",
        "```bash",
        ".venv/bin/python benchmarks/bench_trials.py            # --k 20 --repeats 3 --shm-k 3",
        "```",
        "",
    ]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
