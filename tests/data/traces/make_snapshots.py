"""Regenerate the system-of-record snapshots of the hand-written traces here.

Plays each trace's tool calls, in order and under the trace's call ids, on calibrant's own
refund service (the stand-in for a team's system of record), one clock tick per message, and
writes what its evaluator identity reads before and after: snapshots/<trace id>/before.json and
after.json. Calls listed in SKIP are not played (their tool result lied: nothing committed);
calls in BREAK_GUARD run with the tenant guard off (the system leaked another tenant's order).

    PYTHONPATH=src python tests/data/traces/make_snapshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from calibrant.files import load_case
from calibrant.importers.chat import parse_chat
from calibrant.importers.model import TraceTurn
from calibrant.importers.otel import parse_otel
from calibrant_refunds.ledger import Caller, advance, create_trial_service, run_operation, snapshot

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
SKIP = {("conv-lying-tool", "call_refund_1")}
BREAK_GUARD = {("conv-cross-leaked", "call_lookup_1")}
CASES = {"cross_tenant_lookup": "cross_tenant_lookup", None: "eligible_damaged_order"}


def main(out: Path) -> None:
    traces = [
        *parse_chat(HERE / "chat" / "refunds.jsonl"),
        *parse_chat(HERE / "chat" / "cross_tenant.jsonl"),
        *parse_otel(HERE / "otel" / "refunds.json"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for trace in traces:
            name = CASES[trace.attributes.get("calibrant.case")]
            case = load_case(ROOT / "cases" / f"{name}.yaml")
            svc = create_trial_service(Path(tmp) / f"{trace.trace_id}.sqlite", case.fixture)
            caller = Caller("agent:support-a", case.fixture.tenant)
            before = snapshot(svc)
            for ev in trace.events:
                key = (trace.trace_id, getattr(ev, "call_id", ""))
                if isinstance(ev, TraceTurn) or key in SKIP:
                    advance(svc)
                    continue
                svc.broken_guard_once = key in BREAK_GUARD
                handled = run_operation(svc, ev.tool, caller, ev.call_id, dict(ev.arguments))
                print(trace.trace_id, ev.call_id, handled.error or "ok", handled.response)
            after = snapshot(svc)
            svc.engine.dispose()
            folder = out / trace.trace_id
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "before.json").write_text(before.model_dump_json(indent=1) + "\n")
            (folder / "after.json").write_text(after.model_dump_json(indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "snapshots")
