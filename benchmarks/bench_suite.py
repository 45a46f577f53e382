"""Benchmark: the whole CI run (`bash .ci/run`) from a fresh clone, measured from outside.

    python benchmarks/bench_suite.py REV [--label NAME] [--log FILE]

clones the repository at commit REV into a scratch folder, runs `/usr/bin/time -v bash .ci/run`
there (as CI does: the README's test command, which installs, then whatever else that commit's
.ci/run does) and records:

- the whole run's wall time, user and system CPU and peak resident memory (`/usr/bin/time -v`);
- each pytest run of it: its tests (passed, failed, skipped) and its own time (JUnit);
- each CI step's wall time where that commit's .ci/run records them (`.ci/out/steps.tsv`);
- the machine: cores, load average before and after, whether llama.cpp's wheel was in the
  machine's wheelhouse before the run.

`--log FILE` reads a run made earlier the same way (its output and `/usr/bin/time -v` report)
instead of running one. Each measurement is added (or replaced, by label) as a row of
benchmarks/results/suite.json; benchmarks/results/suite.md is written from all rows. One run per
row: the machine has two cores that CI and the session share, so a row says its load average."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
ROWS = RESULTS / "suite.json"
PAGE = RESULTS / "suite.md"
WHEELHOUSE = Path(
    os.environ.get("CALIBRANT_WHEELHOUSE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "calibrant" / "wheelhouse"
)


def _time_report(text: str) -> dict[str, float]:
    """Wall seconds, user and system CPU seconds and peak RSS (MB) from `time -v` output."""
    found: dict[str, float] = {}
    for key, pattern in (
        ("user_s", r"User time \(seconds\): ([\d.]+)"),
        ("system_s", r"System time \(seconds\): ([\d.]+)"),
        ("max_rss_mb", r"Maximum resident set size \(kbytes\): (\d+)"),
    ):
        m = re.search(pattern, text)
        if m:
            found[key] = float(m.group(1)) / (1024 if key == "max_rss_mb" else 1)
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text)
    if m:
        parts = [float(p) for p in m.group(1).split(":")]
        found["wall_s"] = sum(p * 60**i for i, p in enumerate(reversed(parts)))
    return found


def _pytest_summaries(text: str) -> list[dict[str, Any]]:
    """Each pytest run's last line: '1896 passed, 1 skipped in 886.56s (0:14:46)'."""
    out = []
    for m in re.finditer(r"^=*\s*((?:\d+ \w+(?:, )?)+) in ([\d.]+)s", text, re.M):
        counts = {w: int(n) for n, w in re.findall(r"(\d+) (\w+)", m.group(1))}
        out.append({"counts": counts, "seconds": float(m.group(2))})
    return out


def _junit(folder: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted(folder.glob("*.xml")):
        root = ET.parse(path).getroot()
        suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
        keys = ("tests", "failures", "errors", "skipped", "time")
        out.append(
            {"name": path.stem, **{k: sum(float(s.get(k, 0)) for s in suites) for k in keys}}
        )
    return out


def _load() -> float:
    return os.getloadavg()[0]


def run(rev: str, label: str) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="calibrant-bench-suite-"))
    clone = scratch / "clone"
    try:
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", rev], check=True)
        commit = subprocess.run(
            ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        warm = any(WHEELHOUSE.glob("llama-cpp-python-*/build.json"))
        load_before = _load()
        started = dt.datetime.now(dt.UTC)
        # each pytest run's summary line is read from the output; a .ci/run with tiers also
        # leaves each tier's JUnit report and the steps' times under .ci/out/
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
        proc = subprocess.run(
            ["/usr/bin/time", "-v", "bash", ".ci/run"],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
        )
        output = proc.stdout + proc.stderr
        log = Path(tempfile.gettempdir()) / f"calibrant-suite-{commit}.log"
        log.write_text(output)  # the whole output, for reading; not kept in the repository
        print(f"the run's output: {log}", file=sys.stderr)
        row = _row(output, label, commit, proc.returncode, warm, load_before, _load(), started)
        ci_out = clone / ".ci" / "out"
        if (ci_out / "steps.tsv").exists():
            row["steps"] = [
                {"name": n, "seconds": float(s)}
                for n, s in (
                    ln.split("\t") for ln in (ci_out / "steps.tsv").read_text().splitlines()
                )
            ]
            row["tiers"] = _junit(ci_out)
        return row
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _row(
    output: str,
    label: str,
    commit: str,
    code: int,
    warm: bool | None,
    load_before: float | None,
    load_after: float | None,
    started: dt.datetime,
) -> dict[str, Any]:
    return {
        "label": label,
        "commit": commit,
        "exit_code": code,
        "at": started.strftime("%Y-%m-%d %H:%M UTC"),
        "cores": len(os.sched_getaffinity(0)),
        "load_before": load_before,
        "load_after": load_after,
        "wheelhouse_warm": warm,
        **_time_report(output),
        "pytest_runs": _pytest_summaries(output),
    }


def _minutes(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return f"{int(seconds // 60)} min {round(seconds % 60):02d} s"


def _load_text(value: float | None) -> str:
    return "not recorded" if value is None else f"{value:.2f}"


def write_page(rows: list[dict[str, Any]]) -> None:
    lines = [
        "# The suite: each tier's time and the whole CI run, from a fresh clone",
        "",
        "Written by `python benchmarks/bench_suite.py REV --label NAME` (one row per run; see the",
        "script). Every row is one `bash .ci/run` in a fresh clone of the commit, timed from",
        "outside with `/usr/bin/time -v`, on this project's 2-core machine, which the session",
        "shares: each row gives the load average before and after. Issue 29's limits: the README's",
        "test command ≤ 10 min of test time (aim 6), the whole `.ci/run` ≤ 30 min including the",
        "install (aim 25), the union of the tiers' ids ≥ 1,897.",
        "",
        "| run | commit | whole `.ci/run` | CPU (user + sys) | peak RSS | exit | llama.cpp wheel "
        "| load before → after |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cpu = (r.get("user_s") or 0) + (r.get("system_s") or 0)
        warm = {True: "in the wheelhouse", False: "built", None: "built (no wheelhouse yet)"}[
            r.get("wheelhouse_warm")
        ]
        lines.append(
            f"| {r['label']} | {r['commit']} | {_minutes(r.get('wall_s'))} | "
            f"{cpu / 60:.1f} CPU-min | {r.get('max_rss_mb', 0):,.0f} MB | {r['exit_code']} | "
            f"{warm} | {_load_text(r.get('load_before'))} → {_load_text(r.get('load_after'))} |"
        )
    lines += [
        "",
        "## Each pytest run",
        "",
        "| run | pytest run | tests | passed | failed | skipped | pytest's time |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        tiers = r.get("tiers")
        if tiers:
            for t in tiers:
                passed = t["tests"] - t["failures"] - t["errors"] - t["skipped"]
                lines.append(
                    f"| {r['label']} | {t['name']} tier | {t['tests']:.0f} | {passed:.0f} | "
                    f"{t['failures'] + t['errors']:.0f} | {t['skipped']:.0f} | "
                    f"{_minutes(t['time'])} |"
                )
        else:
            for i, p in enumerate(r.get("pytest_runs", []), 1):
                c = p["counts"]
                total = sum(c.values())
                lines.append(
                    f"| {r['label']} | run {i} (all tests, one tier) | {total} | "
                    f"{c.get('passed', 0)} | "
                    f"{c.get('failed', 0) + c.get('error', 0) + c.get('errors', 0)} | "
                    f"{c.get('skipped', 0)} | {_minutes(p['seconds'])} |"
                )
    stepped = [r for r in rows if r.get("steps")]
    if stepped:
        lines += [
            "",
            "## Each CI step (wall time)",
            "",
            "| run | step | wall time |",
            "|---|---|---|",
        ]
        for r in stepped:
            for s in r["steps"]:
                lines.append(f"| {r['label']} | {s['name']} | {_minutes(s['seconds'])} |")
    notes = [r for r in rows if r.get("note")]
    if notes:
        lines += ["", "## Notes", ""] + [f"- **{r['label']}**: {r['note']}" for r in notes]
    PAGE.write_text("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", help="the commit to clone and run")
    ap.add_argument("--label", required=True, help="the row's name (replaces a row of that name)")
    ap.add_argument("--log", type=Path, help="read this earlier run's output instead")
    ap.add_argument("--note", default="", help="a sentence shown under the tables")
    ap.add_argument("--warm", choices=("yes", "no"), help="with --log: was the wheelhouse warm")
    args = ap.parse_args()
    if args.log:
        text = args.log.read_text()
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", args.rev],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        warm = None if args.warm is None else args.warm == "yes"
        stamp = dt.datetime.fromtimestamp(args.log.stat().st_mtime, dt.UTC)
        row = _row(text, args.label, commit, 0 if "rc 0" in text else 1, warm, None, None, stamp)
    else:
        row = run(args.rev, args.label)
    if args.note:
        row["note"] = args.note
    rows = json.loads(ROWS.read_text()) if ROWS.exists() else []
    rows = [r for r in rows if r["label"] != args.label] + [row]
    ROWS.write_text(json.dumps(rows, indent=1) + "\n")
    write_page(rows)
    print(PAGE.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
