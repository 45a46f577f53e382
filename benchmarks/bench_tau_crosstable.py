"""calibrant's `check` beside a benchmark's reward, on retail trajectories in tau-bench's
published layout (issue 33, item 4).

    PYTHONPATH=src:domains/retail/src python benchmarks/bench_tau_crosstable.py \
        [--trajectories FILE --db DB [--tasks TASKS]] [--all-tasks TASKS DB]

With `--trajectories` (a retail file as tau-bench or tau2-bench publishes it, with the
benchmark's database and, for tau2, its tasks), the reward is the benchmark's own, as the file
records it. Without, the trajectories are the retail pack's scripted agents on the pack's eight
tau2-bench tasks (three trials each), written in tau-bench's layout, and the reward is the
benchmark's database check restated: 1 when the records the trace changed and created are those
the task's expected actions change and create (tau2-bench's DB component; its communicate and
natural-language components are left out).

Either way the same path runs: `domains/retail/scripts/tau_inputs.py` (case contracts from the
tasks, snapshots by replaying the committed writes), `calibrant import tau-bench --domain
retail`, `calibrant check`. Writes benchmarks/results/tau_crosstable.md: per invariant, the
conversations and tasks calibrant finds a breach in among those the reward scores 1, and the
conversations the reward scores 0 that calibrant passes; 95% Wilson intervals on task-level
rates (the unit is the task: a task counts once, however many of its trials)."""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "benchmarks" / "results" / "tau_crosstable.md"
sys.path.insert(0, str(ROOT / "domains" / "retail" / "scripts"))

AGENTS = (
    "retail-correct",
    "retail-no-auth",
    "retail-no-confirm",
    "retail-other-user",
    "retail-status-blind",
)
TRIALS = 3


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def _env() -> dict[str, str]:
    env = dict(os.environ)
    paths = [ROOT / "src", *(ROOT / "domains" / d / "src" for d in ("refunds", "travel", "retail"))]
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), env.get("PYTHONPATH", "")])
    return env


def install_pack(site: Path) -> None:
    """The retail pack's entry point, as pip would declare it (a dist-info on the path)."""
    info = site / "calibrant_retail_bench-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: calibrant-retail-bench\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[calibrant.domains]\nretail = calibrant_retail:pack\n", encoding="utf-8"
    )


# --- the pack's agents, written as tau-bench writes its trajectories --------------------------


def as_tau_bench(transcript: Any, task_id: str, trial: int) -> dict[str, Any]:
    """One transcript as a tau-bench record: {task_id, trial, reward, info, traj}."""
    events: list[tuple[int, int, Any]] = [(t.seq, 0, t) for t in transcript.conversation]
    events += [(c.seq, 1, c) for c in transcript.tool_calls]
    traj: list[dict[str, Any]] = [{"role": "system", "content": "retail agent policy"}]
    for _, kind, ev in sorted(events, key=lambda e: (e[0], e[1])):
        if kind == 0:
            role = "user" if ev.role == "customer" else "assistant"
            traj.append({"role": role, "content": ev.text})
            continue
        traj.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": ev.call_id,
                        "type": "function",
                        "function": {"name": ev.tool, "arguments": json.dumps(ev.arguments)},
                    }
                ],
            }
        )
        answer = ev.response
        if ev.outcome == "error":  # the benchmark's tools answer a refusal with text
            answer = f"Error: {json.dumps(answer)}"
        traj.append(
            {
                "role": "tool",
                "tool_call_id": ev.call_id,
                "name": ev.tool,
                "content": answer if isinstance(answer, str) else json.dumps(answer),
            }
        )
    return {"task_id": task_id, "trial": trial, "reward": None, "info": {}, "traj": traj}


def pack_trajectories(work: Path) -> tuple[Path, Path, Path]:
    """The pack's agents on its tau2 tasks, a trajectory file, the pack's database subset and
    the tau2 tasks excerpt; rewards filled in by `db_reward` afterwards."""
    import calibrant_retail
    from calibrant_retail.cases import load_cases
    from calibrant_retail.runtime import RetailRuntime

    rt = RetailRuntime()
    records = []
    for case in load_cases():
        if not case.case.startswith("tau2_"):
            continue
        task_id = case.case.split("_")[1]
        for agent in AGENTS:
            for trial in range(TRIALS):
                name = f"scripted:{agent}"
                t = rt.run_trial(
                    case,
                    name,
                    trial=trial + 1,
                    seed=trial,
                    workdir=work / "trials",
                    agent_factory=lambda n: rt.make_agent(n),
                )
                rec = as_tau_bench(t, task_id, len([r for r in records if r["task_id"] == task_id]))
                rec["info"]["agent"] = name
                records.append(rec)
    path = work / "pack-retail-trajectories.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    tasks = ROOT / "tests" / "importers" / "data" / "tau-retail" / "tau2-retail-tasks-excerpt.json"
    return path, calibrant_retail.world.SOURCE, tasks


def db_reward(inputs: Path, trace_id: str, case_id: str) -> float:
    """tau2-bench's database component, restated: 1 when what the trace changed and created
    is what the task's expected actions change and create."""
    import yaml
    from calibrant_retail.replay import end_state

    from calibrant import domains
    from calibrant.importers.snapshots import read_domain_snapshot

    folder = inputs / "snapshots" / trace_id
    retail = domains.get("retail").pack
    before, after = (
        read_domain_snapshot(retail, folder / f"{w}.json") for w in ("before", "after")
    )
    got = end_state(before, after)
    case = yaml.safe_load((inputs / "cases" / f"{case_id}.yaml").read_text())
    want = case["expected"][0]

    def norm(state: dict[str, Any]) -> Any:
        return (
            {
                k: sorted(json.dumps(r, sort_keys=True) for r in v)
                for k, v in state["records"].items()
            },
            state["created"],
        )

    return 1.0 if norm(got) == norm(want) else 0.0


# --- the cross-table --------------------------------------------------------------------------


def check_imported(
    trajectories: Path, inputs: Path, out: Path, env: dict[str, str], *, contracts: bool = True
) -> tuple[dict[str, dict[str, Any]], str]:
    """`calibrant import tau-bench` then `calibrant check`: per transcript, its task, the
    benchmark's reward and the invariants violated (and said harness_error); the import's
    report. Without `contracts`, every trace is imported with its end state not judged."""
    from calibrant.files import load_transcript

    py = sys.executable
    cases = ["--cases", str(inputs / "cases")] if contracts else []
    imp = subprocess.run(
        [py, "-m", "calibrant", "import", "tau-bench", str(trajectories), "--domain", "retail",
         *cases, "--no-contract", "--snapshots", str(inputs / "snapshots"), "--tenant", "shop",
         "--agent-principal", "agent:retail", "--out", str(out)],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    if imp.returncode != 0:
        raise SystemExit(f"import failed: {imp.stderr}")
    chk = subprocess.run(
        [py, "-m", "calibrant", "check", str(out), "--jsonl"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    if chk.returncode not in (0, 1):
        raise SystemExit(f"check failed: {chk.stderr}")
    rows: dict[str, dict[str, Any]] = {}
    for f in out.glob("*.json"):
        t = load_transcript(f)
        rows[t.transcript_id] = {"task": t.case_id, "reward": t.provenance.benchmark_reward}
    for line in chk.stdout.splitlines():
        doc = json.loads(line)
        if "results" not in doc:
            continue
        row = rows[doc["transcript_id"]]
        row["violated"] = sorted(
            x["invariant"] for x in doc["results"] if x["outcome"] == "violated"
        )
        row["harness"] = sorted(
            x["invariant"] for x in doc["results"] if x["outcome"] == "harness_error"
        )
    return rows, imp.stdout.strip()


def run(trajectories: Path | None, db: Path | None, tasks: Path | None) -> str:
    from tau_inputs import write_inputs

    from calibrant.importers.tau import case_id_of, trace_id_of

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        site = work / "site"
        install_pack(site)
        sys.path.append(str(site))
        from calibrant import domains

        domains.refresh()
        env = _env()
        env["PYTHONPATH"] = f"{site}{os.pathsep}{env['PYTHONPATH']}"
        published = trajectories is not None
        if trajectories is None:
            trajectories, db, tasks = pack_trajectories(work)
        assert db is not None
        inputs = work / "inputs"
        write_inputs(trajectories, db, inputs, tasks)
        if not published:  # the benchmark's database check, restated, as the reward
            records = json.loads(trajectories.read_text())
            for r in records:
                r["reward"] = db_reward(
                    inputs, trace_id_of(r["task_id"], r["trial"]), case_id_of(r["task_id"])
                )
            trajectories.write_text(json.dumps(records), encoding="utf-8")
        rows, import_report = check_imported(trajectories, inputs, work / "runs", env)
        import_report = import_report.replace(str(work), "<work>")
        bare, _ = check_imported(trajectories, inputs, work / "bare", env, contracts=False)
        for tid, row in rows.items():
            row["violated_without_contracts"] = bare[tid].get("violated", [])
        agents = {}
        for r in json.loads(trajectories.read_text()):
            agents[trace_id_of(r["task_id"], r["trial"])] = (r.get("info") or {}).get("agent")
        assumptions = (inputs / "assumptions.md").read_text().split("\n", 2)[2]
    seconds = time.perf_counter() - started
    return render(rows, agents, published, trajectories.name, assumptions, import_report, seconds)


def _example(rows: dict[str, Any], agents: dict[str, Any], transcript_id: str) -> str:
    trace = transcript_id.split(":import:")[1]
    return f"{trace} ({agents.get(trace) or '-'})"


def render(
    rows: dict[str, dict[str, Any]],
    agents: dict[str, Any],
    published: bool,
    source: str,
    assumptions: str,
    import_report: str,
    seconds: float,
) -> str:
    n = len(rows)
    tasks = sorted({r["task"] for r in rows.values()})
    ok = {tid: r for tid, r in rows.items() if r["reward"] == 1.0}
    bad = {tid: r for tid, r in rows.items() if r["reward"] != 1.0}
    flagged = {tid for tid, r in rows.items() if r.get("violated")}
    out = [
        "# calibrant's check beside the benchmark's reward (tau retail)",
        "",
        "Written by `benchmarks/bench_tau_crosstable.py`; do not edit by hand. Command: "
        "`PYTHONPATH=src:domains/retail/src python benchmarks/bench_tau_crosstable.py`"
        + ("" if not published else " `--trajectories ...`")
        + f"; machine: {platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}.",
        "",
    ]
    if published:
        out.append(f"Trajectories: `{source}`, as the benchmark published it; its own reward.")
    else:
        out += [
            "Trajectories: **the retail pack's scripted agents** (`" + "`, `".join(AGENTS) + "`), "
            f"{TRIALS} trials each, on the pack's eight tau2-bench retail tasks (2, 3, 6, 17, 24, "
            "33, 38, 40), written in tau-bench's published layout and imported with `calibrant "
            "import tau-bench` like any published file. tau-bench's published retail "
            "trajectories (`historical_trajectories/gpt-4o-retail.json`) and tau2-bench's retail "
            "results could not be fetched here (their blobs are absent from every snapshot "
            "available), so the published gpt-4o retail run is **not** measured: run this script "
            "with `--trajectories` on it when you have it.",
            "",
            "These agents' faults are planted by design (one rule broken each), so the "
            "numbers below measure the path — import, contracts, snapshots, checks — and what "
            "the reward cannot see, not how often a model breaks a rule.",
            "",
            "Reward: tau2-bench's database component restated — 1 when the records the trace "
            "changed and created are those the task's expected actions change and create (the "
            "benchmark's communicate and natural-language components are left out).",
        ]
    out += [
        "",
        f"{n} conversations, {len(tasks)} tasks; {len(ok)} conversations with reward 1; "
        f"{len(flagged)} with at least one breach calibrant finds. Wall time {seconds:.0f} s.",
        "",
        "## The cross-table (conversations)",
        "",
        "| | calibrant: a breach | calibrant: no breach |",
        "|---|---|---|",
        f"| reward 1 | {len(set(ok) & flagged)} | {len(set(ok) - flagged)} |",
        f"| reward 0 | {len(set(bad) & flagged)} | {len(set(bad) - flagged)} |",
        "",
        "## Breaches calibrant finds in reward-1 conversations, by invariant",
        "",
        "The unit is the task: a task counts when any of its reward-1 conversations breaches "
        "the invariant; the rate is over the tasks with a reward-1 conversation (95% Wilson "
        "interval).",
        "",
        "| invariant | conversations | tasks | task rate [95% CI] | examples (trace, agent) |",
        "|---|---|---|---|---|",
    ]
    ok_tasks = sorted({r["task"] for r in ok.values()})
    by_inv: dict[str, list[str]] = defaultdict(list)
    for tid, r in ok.items():
        for inv in r.get("violated", []):
            by_inv[inv].append(tid)
    for inv, tids in sorted(by_inv.items(), key=lambda x: -len(x[1])):
        t_ = sorted({rows[t]["task"] for t in tids})
        lo, hi = wilson(len(t_), len(ok_tasks))
        first: dict[str, str] = {}
        for t in sorted(tids):
            first.setdefault(rows[t]["task"], t)
        ex = ", ".join(_example(rows, agents, t) for t in list(first.values())[:3])
        out.append(
            f"| `{inv}` | {len(tids)} | {len(t_)} of {len(ok_tasks)} | "
            f"{len(t_) / len(ok_tasks):.2f} [{lo:.2f}, {hi:.2f}] | {ex} |"
        )
    if not by_inv:
        out.append("| (none) | 0 | 0 | | |")
    missed = sorted(t for t in bad if t not in flagged)
    m_tasks = sorted({rows[t]["task"] for t in missed})
    bad_tasks = sorted({r["task"] for r in bad.values()})
    lo, hi = wilson(len(m_tasks), len(bad_tasks))
    out += [
        "",
        "## Outcomes the reward sees that calibrant misses",
        "",
        f"Reward-0 conversations calibrant passes (no invariant violated, the task's contract "
        f"included): {len(missed)} conversations, {len(m_tasks)} of {len(bad_tasks)} tasks "
        f"with a reward-0 conversation"
        + (f" ({len(m_tasks) / len(bad_tasks):.2f} [{lo:.2f}, {hi:.2f}])" if bad_tasks else "")
        + ".",
        "",
    ]
    for t in missed[:10]:
        out.append(f"- {_example(rows, agents, t)}")
    bare_missed = sorted(t for t in bad if not rows[t].get("violated_without_contracts"))
    out += [
        "",
        f"Without the task contracts (every trace imported with `--no-contract`: its end state "
        f"not judged), calibrant passes {len(bare_missed)} of the {len(bad)} reward-0 "
        "conversations"
        + (
            ": the contracts written from the tasks' expected actions close that gap."
            if len(bare_missed) > len(missed)
            else ": here the invariants alone already flag every one of them."
        ),
    ]
    if agents and any(agents.values()):
        out += [
            "",
            "## By agent",
            "",
            "| agent | conversations | reward 1 | a breach | reward 1 and a breach |",
            "|---|---|---|---|---|",
        ]
        for name in sorted({a for a in agents.values() if a}):
            mine = [t for t in rows if agents.get(t.split(":import:")[1]) == name]
            out.append(
                f"| `{name}` | {len(mine)} | {sum(t in ok for t in mine)} | "
                f"{sum(t in flagged for t in mine)} | "
                f"{sum(t in ok and t in flagged for t in mine)} |"
            )
    harness = sorted({i for r in rows.values() for i in r.get("harness", [])})
    out += [
        "",
        "## Assumptions",
        "",
        "From the snapshots and cases (`domains/retail/scripts/tau_inputs.py`):",
        "",
        assumptions.strip(),
        "",
        "From the import (`calibrant import tau-bench`):",
        "",
        "```",
        import_report,
        "```",
        "",
        "Invariants that said `harness_error` on some conversation (not counted as breaches): "
        + (", ".join(f"`{h}`" for h in harness) or "none")
        + ".",
        "",
    ]
    return "\n".join(out)


def task_contracts(tasks_path: Path, db_path: Path) -> str:
    """Every task of a tau2-bench retail task file through the pack's service: how many of
    their expected actions apply as the benchmark has them (the case contracts
    `tau_inputs.py` writes from them state the end state they leave)."""
    from calibrant_retail.policy import WRITE_TOOLS
    from calibrant_retail.replay import Step, load_db, replay, subset

    db = load_db(db_path)
    tasks = json.loads(tasks_path.read_text(encoding="utf-8"))
    clean, no_writes, refused = 0, 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for t in tasks:
            acts = (t.get("evaluation_criteria") or {}).get("actions") or []
            no_writes += not any(a["name"] in WRITE_TOOLS for a in acts)
            steps = [
                Step(a["name"], a.get("arguments") or {}, f"expected_{n}", n)
                for n, a in enumerate(acts, start=1)
            ]
            world = subset(db, [a.get("arguments") or {} for a in acts])
            r = replay(world, steps, Path(tmp), events=len(steps))
            if r.refused:
                refused.append((t["id"], r.refused[0][1]))
            else:
                clean += 1
    lo, hi = wilson(clean, len(tasks))
    lines = [
        "## Task definitions as case contracts",
        "",
        f"All {len(tasks)} tasks of `{tasks_path.name}` (tau2-bench retail, with its "
        f"`{db_path.name}`): the expected actions of {clean} apply on the pack's service as the "
        f"benchmark states them ({clean / len(tasks):.2f} [{lo:.2f}, {hi:.2f}]), so their case "
        f"contracts state the end state the benchmark's gold database holds; {no_writes} expect "
        "no write at all (their contract: nothing changes). Refused by the pack's service:",
        "",
    ]
    lines += [f"- task {tid}: `{why[:200]}`" for tid, why in refused] or ["- none"]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trajectories", type=Path)
    ap.add_argument("--db", type=Path)
    ap.add_argument("--tasks", type=Path)
    ap.add_argument(
        "--all-tasks",
        nargs=2,
        type=Path,
        metavar=("TASKS", "DB"),
        help="tau2-bench's retail tasks.json and db.json: every task's expected actions "
        "through the pack's service (the section on task contracts)",
    )
    a = ap.parse_args()
    text = run(a.trajectories, a.db, a.tasks)
    if a.all_tasks:
        text += "\n" + task_contracts(*a.all_tasks)
        text = text.replace(
            "python benchmarks/bench_tau_crosstable.py`",
            "python benchmarks/bench_tau_crosstable.py --all-tasks tasks.json db.json` "
            "(tau2-bench's `data/tau2/domains/retail/` files; this page: commit a2c0247)",
            1,
        )
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
