"""What `calibrant import tau-bench --domain retail` needs beside a benchmark's trajectory file:
a case contract per task, and the before/after snapshots of each trace.

    python domains/retail/scripts/tau_inputs.py TRAJECTORIES --db DB --out DIR [--tasks TASKS]

- TRAJECTORIES: a retail trajectory file as tau-bench or tau2-bench publishes it;
- DB: the benchmark's retail database (tau2's `data/tau2/domains/retail/db.json`, or a folder
  with tau-bench's `users.json`, `orders.json`, `products.json`);
- TASKS: tau2's `tasks.json` (tau-bench's records carry their task in `info.task`).

Writes `DIR/cases/task<id>.yaml` (the task's expected actions applied to the database: the end
state they leave, as the case's acceptable end state), `DIR/snapshots/<trace id>/before.json`
and `after.json` (the records the trace touches, before; after, the writes the tool log shows
committed, applied by the pack's service at the instants the import gives them) and
`DIR/assumptions.md` (what was assumed, and for which traces). Then:

    calibrant import tau-bench TRAJECTORIES --domain retail --cases DIR/cases \
      --snapshots DIR/snapshots --tenant shop --agent-principal agent:retail --out runs/tau
    calibrant check runs/tau
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from calibrant_retail.policy import WRITE_TOOLS
from calibrant_retail.replay import (
    Step,
    committed,
    end_state,
    load_db,
    replay,
    snapshot_file,
    subset,
)

from calibrant.importers.model import TraceCall
from calibrant.importers.tau import case_id_of, parse_tau

ASSUMED = {
    "committed": "a write the benchmark's tool answered without an error was committed, and "
    "a write it answered with an error changed nothing",
    "refused": "a write the benchmark committed that the pack's service refused (its status "
    "or ownership rules, or an argument it reads differently) is left out of the after-snapshot",
    "subset": "the snapshots hold the customers the trace names (by user id, email or order), "
    "all their orders and the products of those orders and of the items it names; the rest of "
    "the benchmark's database is left out",
    "no_task": "a task whose definition could not be read has no case contract (import with "
    "--no-contract)",
    "db_only": "a case states the end state of the database only: what the benchmark also "
    "asks the agent to say (its outputs, communicate_info and nl_assertions) is not in it",
}


def _actions(record: dict[str, Any], tasks: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The task's expected actions as [{name, arguments}]: tau-bench's `info.task.actions`
    ({name, kwargs}) or tau2's task's `evaluation_criteria.actions`."""
    task = (record.get("info") or {}).get("task")
    if isinstance(task, dict) and isinstance(task.get("actions"), list):
        return [{"name": a["name"], "arguments": a.get("kwargs", {})} for a in task["actions"]]
    t = tasks.get(str(record.get("task_id")))
    if t is not None:
        crit = t.get("evaluation_criteria") or {}
        return [
            {"name": a["name"], "arguments": a.get("arguments", {})}
            for a in crit.get("actions") or []
        ]
    return None


def _case(task_id: object, state: dict[str, Any], n_writes: int) -> dict[str, Any]:
    cid = case_id_of(task_id)
    return {
        "schema_version": 1,
        "domain": "retail",
        "case": cid,
        "title": f"Benchmark task {task_id}: the end state its expected actions leave",
        "description": f"Written by domains/retail/scripts/tau_inputs.py from task {task_id}'s "
        f"expected actions ({n_writes} write(s)) applied to the benchmark's database.",
        "tags": ["regression"],
        "fixture": {"tenant": "shop"},
        "expected": [{"name": "as the task expects", **state}],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trajectories", type=Path)
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--tasks", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    return write_inputs(a.trajectories, a.db, a.out, a.tasks)


def write_inputs(trajectories: Path, db_path: Path, out: Path, tasks_path: Path | None) -> int:
    db = load_db(db_path)
    tasks = {}
    if tasks_path is not None:
        tasks = {str(t["id"]): t for t in json.loads(tasks_path.read_text(encoding="utf-8"))}
    text = trajectories.read_text(encoding="utf-8")
    if trajectories.suffix == ".jsonl":
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        raw = json.loads(text)
        records = raw["simulations"] if isinstance(raw, dict) else raw
    traces = parse_tau(trajectories)
    (out / "cases").mkdir(parents=True, exist_ok=True)
    assumed: dict[str, list[str]] = {}
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        done: set[str] = set()
        for record, trace in zip(records, traces, strict=True):
            task_id = record["task_id"]
            cid = case_id_of(task_id)
            actions = _actions(record, tasks)
            if cid not in done and actions is not None:
                done.add(cid)
                mentioned = [a["arguments"] for a in actions]
                user = ((record.get("info") or {}).get("task") or {}).get("user_id")
                world = subset(db, [*mentioned, user])
                steps = [
                    Step(a["name"], a["arguments"], f"expected_{n}", n)
                    for n, a in enumerate(actions, start=1)
                ]
                r = replay(world, steps, Path(tmp), events=len(steps))
                if r.refused:
                    print(f"task {task_id}: expected action refused: {r.refused}", file=sys.stderr)
                writes = sum(1 for a in actions if a["name"] in WRITE_TOOLS)
                case = _case(task_id, end_state(r.before, r.after), writes)
                (out / "cases" / f"{cid}.yaml").write_text(
                    yaml.safe_dump(case, sort_keys=False, allow_unicode=True), encoding="utf-8"
                )
                counts["cases"] += 1
            elif actions is None:
                assumed.setdefault("no_task", []).append(trace.trace_id)
            calls = [e for e in trace.events if isinstance(e, TraceCall)]
            mentioned = [c.arguments for c in calls] + [c.result for c in calls]
            world = subset(db, mentioned)
            steps = []
            for place, ev in enumerate(trace.events, start=1):
                if isinstance(ev, TraceCall) and ev.tool in WRITE_TOOLS:
                    if ev.answered and committed(ev.result):
                        steps.append(Step(ev.tool, ev.arguments, ev.call_id, place))
                        assumed.setdefault("committed", []).append(trace.trace_id)
            r = replay(world, steps, Path(tmp), events=len(trace.events))
            if r.refused:
                assumed.setdefault("refused", []).append(trace.trace_id)
            folder = out / "snapshots" / trace.trace_id
            folder.mkdir(parents=True, exist_ok=True)
            for which, snap in (("before", r.before), ("after", r.after)):
                (folder / f"{which}.json").write_text(
                    json.dumps(snapshot_file(snap), indent=1) + "\n", encoding="utf-8"
                )
            counts["traces"] += 1
            assumed.setdefault("subset", []).append(trace.trace_id)
    if counts["cases"]:
        assumed["db_only"] = sorted({case_id_of(r["task_id"]) for r in records})
    lines = ["# What was assumed", ""]
    for key, ids in assumed.items():
        unique = sorted(set(ids))
        shown = ", ".join(unique[:8]) + (", ..." if len(unique) > 8 else "")
        lines.append(f"- {ASSUMED[key]} ({len(unique)}: {shown})")
    (out / "assumptions.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {counts['cases']} case(s) and the snapshots of {counts['traces']} trace(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
