"""What `calibrant score` of one transcript loads, measured from outside the process.

Run: ``python benchmarks/bench_score_imports.py [--runs 5] [--label now] [--before FILE]``.
Writes ``benchmarks/results/score_imports.md`` and the raw figures beside it
(``score_imports.json``, one entry per ``--label``, so a run on the old commit and one on the
new are shown side by side).

Each run is the real command line in a fresh process: ``python -m calibrant score T --model
openai/bench --api-base URL --json`` on one gold transcript, into a fresh SQLite store (so the
judge is asked once; the store is made by `calibrant db upgrade` beforehand, unmeasured, as
a user's store exists on any day but the first), against ``benchmarks/fake_endpoint.py`` in
its own process (no latency). Beside it in the same run, the baseline
``python -c "import calibrant"``.

Per run, twice: once with ``-X importtime`` for what was imported (calibrant modules, the
calibrant packages they sit in, domain packs, the heavy third-party packages and, for each,
the module that first imported it), once without it under ``/usr/bin/time -v`` for the wall
time and the peak RSS (so the import tracing costs the timing nothing). Medians with min-max
over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_judge import Endpoint  # noqa: E402

TRANSCRIPT = ROOT / "gold" / "transcripts" / "gold-001.json"
OUT = HERE / "results" / "score_imports.md"
RAW = HERE / "results" / "score_imports.json"
MODEL = "openai/bench"

# third-party packages a score run of one transcript should not need, or needs only for one
# kind of judge or one statistic; each is reported present or absent, with its importer
HEAVY = [
    "fastapi",
    "starlette",
    "uvicorn",
    "jinja2",
    "sqlmodel",
    "sqlalchemy",
    "alembic",
    "procrastinate",
    "psycopg",
    "numpy",
    "scipy",
    "sklearn",
    "pandas",
    "litellm",
    "openai",
    "httpx",
    "aiohttp",
    "tenacity",
    "rich",
    "typer",
    "llama_cpp",
    "yaml",
]
PACKS = ("calibrant_refunds", "calibrant_travel", "calibrant_retail")

_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


def import_tree(stderr: str) -> dict[str, str | None]:
    """Each module `-X importtime` reports -> the module whose import imported it (None: a
    top-level import, made by running code rather than by another module's import).

    The report lists a module after the modules its import imported, indented one step deeper
    (two spaces), so the module a line sits under is the next line one step less deep. A
    package is listed under its first submodule imported (`import a.b` imports `a` first): its
    importer is that submodule's."""
    rows = [
        ((len(m[3]) - 1) // 2, m[4]) for line in stderr.splitlines() if (m := _LINE.match(line))
    ]
    under: dict[str, str | None] = {}
    for i, (depth, name) in enumerate(rows):
        above = next((n for d, n in rows[i + 1 :] if d == depth - 1), None) if depth else None
        under.setdefault(name, above)
    parent: dict[str, str | None] = {}
    for name, above in under.items():
        seen = {name}
        while above is not None and above.startswith(name + ".") and above not in seen:
            seen.add(above)
            above = under.get(above)
        parent[name] = None if above in seen else above
    return parent


def chain(parent: dict[str, str | None], name: str, limit: int = 4) -> str:
    """`name` <- its importer <- ... (up to `limit` steps)."""
    steps = [name]
    while (up := parent.get(steps[-1])) is not None and len(steps) <= limit:
        steps.append(up)
    return " <- ".join(steps)


def summarise(parent: dict[str, str | None]) -> dict[str, Any]:
    ours = sorted(m for m in parent if m == "calibrant" or m.startswith("calibrant."))
    packages = sorted({".".join(m.split(".")[:2]) for m in ours if m != "calibrant"})
    tops = {m.split(".")[0] for m in parent}
    heavy = {h: chain(parent, h) for h in HEAVY if h in tops}
    packs = sorted(t for t in tops if t in PACKS)
    return {
        "calibrant_modules": len(ours),
        "packages": packages,
        "modules_total": len(parent),
        "heavy": heavy,
        "packs": packs,
        "service": sorted(m for m in ours if m.startswith("calibrant.service")),
        "modules": ours,
    }


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MB, stderr) of `cmd` under /usr/bin/time -v; it must exit 0."""
    t0 = time.perf_counter()
    r = subprocess.run(
        ["/usr/bin/time", "-v", *cmd], env=env, cwd=cwd, capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr[-3000:]}")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", r.stderr))
    return wall, cpu, (int(rss[1]) / 1024 if rss else float("nan")), r.stderr


def one_run(kind: str, endpoint: Endpoint, env: dict[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-score-imports-") as tmp:
        folder = Path(tmp)
        run_env = {**env, "CALIBRANT_DATABASE_URL": f"sqlite:///{folder / 'store.db'}"}
        if kind == "import":
            args = ["-c", "import calibrant"]
        else:
            args = ["-m", "calibrant", "score", str(TRANSCRIPT), "--model", MODEL]
            args += ["--api-base", endpoint.url, "--json"]
        store = [sys.executable, "-m", "calibrant", "db", "upgrade"]
        timed(store, run_env, folder)  # the store exists, as on any day but the first
        if kind == "rerun":  # the answer is in the store: both runs below ask nothing
            timed([sys.executable, *args], run_env, folder)
        *_, traced = timed([sys.executable, "-X", "importtime", *args], run_env, folder)
        if kind == "score":  # the timed run, on a store as fresh, asks the judge again
            (folder / "store.db").unlink()
            timed(store, run_env, folder)
        wall, cpu, rss, _ = timed([sys.executable, *args], run_env, folder)
    return {"wall_s": wall, "cpu_s": cpu, "rss_mb": rss, **summarise(import_tree(traced))}


def spread(values: list[float], fmt: str) -> str:
    median, low, high = (
        fmt.format(v) for v in (statistics.median(values), min(values), max(values))
    )
    return f"{median} ({low}–{high})"


def measure(runs: int, kinds: list[str]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CALIBRANT_")}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "src")]
        + [str(p) for p in sorted((ROOT / "domains").glob("*/src"))]
        + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
    )
    endpoint = Endpoint(0.0)
    try:
        out: dict[str, Any] = {}
        for kind in kinds:
            rows = [one_run(kind, endpoint, env) for _ in range(runs)]
            same = {r["calibrant_modules"] for r in rows}
            first = rows[0]
            out[kind] = {
                **{k: v for k, v in first.items() if k not in ("wall_s", "cpu_s", "rss_mb")},
                "calibrant_modules_seen": sorted(same),
                "wall_s": [r["wall_s"] for r in rows],
                "cpu_s": [r["cpu_s"] for r in rows],
                "rss_mb": [r["rss_mb"] for r in rows],
            }
        out["requests"] = endpoint.stats()["requests"]
    finally:
        endpoint.close()
    return out


def commit() -> str:
    r = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "src"], cwd=ROOT, capture_output=True, text=True
    )
    return r.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def _fig(fmt: str) -> Any:
    return lambda values: spread(values, fmt)


def _get(r: dict[str, Any], kind: str, key: str, fn: Any = str) -> str:
    """A figure of a run kind, shown by `fn`; '—' when that kind was not measured."""
    return "—" if kind not in r else str(fn(r[kind][key]))


def render(results: dict[str, dict[str, Any]], runs: int, cmd: str) -> str:
    labels = list(results)
    head = "| | " + " | ".join(f"{lab} ({results[lab]['commit']})" for lab in labels) + " |"
    sep = "|---|" + "---|" * len(labels)

    def row(title: str, fn: Any) -> str:
        return f"| {title} | " + " | ".join(fn(results[lab]) for lab in labels) + " |"

    lines = [
        "# What `calibrant score` of one transcript loads",
        "",
        f"Command: `{cmd}` ({runs} runs of each command per label; medians with min–max).",
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; "
        f"written {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.",
        "",
        "Each run is a fresh process: `python -m calibrant score gold/transcripts/gold-001.json "
        f"--model {MODEL} --api-base URL --json` into a new SQLite store made beforehand by "
        "`calibrant db upgrade` (unmeasured: a store exists on any day but the first), so one "
        "judge call, to "
        "`benchmarks/fake_endpoint.py` in its own process, no latency), and the baseline "
        '`python -c "import calibrant"`. Modules are counted from a run with `-X importtime`; '
        "wall time, CPU time and peak RSS (`/usr/bin/time -v`) from a run without it. The "
        "machine is shared with other jobs: wall time moves with their load, CPU time much "
        "less, so CPU time is the figure to compare.",
        "",
        "What the rest of a first run's path is: litellm (the client of every judge, the "
        "embedded one included: most of the run's CPU time; a rerun that asks nothing does not "
        "import it), every report model behind `contracts.reports.checked`, and every command "
        "module, which the CLI imports to register its commands.",
        "",
        "## score, one transcript",
        "",
        head,
        sep,
        row("calibrant modules imported", lambda r: str(r["score"]["calibrant_modules"])),
        row("calibrant packages", lambda r: str(len(r["score"]["packages"]))),
        row("modules imported in all", lambda r: str(r["score"]["modules_total"])),
        row("calibrant.service modules", lambda r: str(len(r["score"]["service"]))),
        row("domain packs imported", lambda r: ", ".join(r["score"]["packs"]) or "none"),
        row("wall time, s", lambda r: spread(r["score"]["wall_s"], "{:.2f}")),
        row("CPU time (user + system), s", lambda r: spread(r["score"]["cpu_s"], "{:.2f}")),
        row("peak RSS, MB", lambda r: spread(r["score"]["rss_mb"], "{:.0f}")),
        "",
        "## score, the same transcript again (its answer in the store: no model call)",
        "",
        head,
        sep,
        row("calibrant modules imported", lambda r: _get(r, "rerun", "calibrant_modules")),
        row("calibrant packages", lambda r: _get(r, "rerun", "packages", len)),
        row("modules imported in all", lambda r: _get(r, "rerun", "modules_total")),
        row(
            "litellm imported",
            lambda r: _get(r, "rerun", "heavy", lambda h: "yes" if "litellm" in h else "no"),
        ),
        row("wall time, s", lambda r: _get(r, "rerun", "wall_s", _fig("{:.2f}"))),
        row("CPU time (user + system), s", lambda r: _get(r, "rerun", "cpu_s", _fig("{:.2f}"))),
        row("peak RSS, MB", lambda r: _get(r, "rerun", "rss_mb", _fig("{:.0f}"))),
        "",
        "## baseline: `import calibrant`",
        "",
        head,
        sep,
        row("calibrant modules imported", lambda r: str(r["import"]["calibrant_modules"])),
        row("modules imported in all", lambda r: str(r["import"]["modules_total"])),
        row("wall time, s", lambda r: spread(r["import"]["wall_s"], "{:.2f}")),
        row("CPU time (user + system), s", lambda r: spread(r["import"]["cpu_s"], "{:.2f}")),
        row("peak RSS, MB", lambda r: spread(r["import"]["rss_mb"], "{:.0f}")),
        "",
        "## heavy third-party packages on the score run",
        "",
        "Present: who imported it first (`module <- its importer <- ...`, from the importtime "
        "tree; a chain that stops at a module imported it from running code, not at import).",
        "",
        head,
        sep,
    ]
    for h in HEAVY:
        lines.append(
            row(
                f"`{h}`",
                lambda r, h=h: f"`{r['score']['heavy'][h]}`" if h in r["score"]["heavy"] else "—",
            )
        )
    lines += ["", "## calibrant packages on the score run", ""]
    for lab in labels:
        lines.append(
            f"- {lab}: "
            + ", ".join(p.removeprefix("calibrant.") for p in results[lab]["score"]["packages"])
        )
    if len(labels) > 1:
        first, last = (set(results[lab]["score"]["modules"]) for lab in (labels[0], labels[-1]))
        for title, names in (
            (f"no longer imported ({labels[-1]} against {labels[0]})", first - last),
            (f"newly imported ({labels[-1]} against {labels[0]})", last - first),
        ):
            lines += ["", f"## calibrant modules {title}: {len(names)}", ""]
            lines += [", ".join(f"`{m}`" for m in sorted(names)) or "none"]
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--label", default="now", help="the column these figures go in")
    ap.add_argument("--fresh", action="store_true", help="forget the other labels' figures")
    ap.add_argument("--commit", help="what the column measured (default: git's HEAD here)")
    ap.add_argument("--render", action="store_true", help="rewrite the page from the figures")
    ap.add_argument("--kinds", default="import,score,rerun", help="what to measure (of these)")
    args = ap.parse_args()
    if shutil.which("/usr/bin/time") is None:
        raise SystemExit("needs /usr/bin/time (GNU time) for the peak RSS")
    results: dict[str, Any] = {} if args.fresh or not RAW.exists() else json.loads(RAW.read_text())
    if not args.render:
        found = measure(args.runs, args.kinds.split(","))
        results[args.label] = {**results.get(args.label, {}), **found}
        results[args.label]["commit"] = args.commit or commit()
        RAW.write_text(json.dumps(results, indent=1) + "\n")
    cmd = f"python benchmarks/bench_score_imports.py --runs {args.runs} --label LABEL"
    OUT.write_text(render(results, args.runs, cmd))
    print(OUT.read_text())


if __name__ == "__main__":
    main()
