"""End to end: `calibrant sandbox` in its own process, agents in their own processes over MCP
(streamable HTTP), faults after the payment commits, a real SIGKILL of the agent, transcripts
checked by `calibrant check` and compared with the same agent run in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibrant.files import load_transcript
from calibrant.harness import run_trials
from tests.conftest import CASES, run_cli
from tests.sandbox.support import sandbox, supervise

TIMEOUT = CASES / "timeout_after_payment_commit.yaml"
CRASH = CASES / "crash_before_checkpoint.yaml"
ELIGIBLE = CASES / "eligible_damaged_order.yaml"


def _effects(path: Path) -> tuple[list[tuple[str, str]], list[tuple[str, int]], list[str]]:
    """What the trial did, without ids and clocks: (tool, outcome) calls, the tenant's refunds
    after, and the ticket states after."""
    t = load_transcript(path)
    assert t.ledger_after is not None
    tenant = t.ledger_after.tenant(t.acting_tenant)
    assert tenant is not None
    return (
        [(c.tool, c.outcome) for c in t.tool_calls],
        [(r.order_id, r.amount_minor_units) for r in tenant.refunds],
        [tk.state for tk in tenant.tickets],
    )


@pytest.mark.slow
def test_correct_external_agent_does_what_it_does_in_process(tmp_path: Path) -> None:
    out, k = tmp_path / "out", 2
    with sandbox([TIMEOUT, CRASH], out, "-k", str(k), "--json", "--agent", "support-bot") as s:
        codes = supervise(s, tmp_path / "agent.sqlite")
        code, stdout, err = s.finish()
    assert code == 0, err
    # the crash fault killed the agent once per crash trial; each time it was restarted
    assert codes.count(3) == k and codes[-1] == 0, codes
    report = json.loads(stdout)
    assert [(c["case"], c["successes"], c["trials"]) for c in report["cases"]] == [
        ("crash_before_checkpoint", k, k),
        ("timeout_after_payment_commit", k, k),
    ]
    assert report["duplicate_writes"]["value"] == 0.0
    assert not (out / "TRIALS_INCOMPLETE").exists() and not (out / ".trials-scratch").exists()
    checked = run_cli("check", str(out), "--fail-on-violation")
    assert checked.code == 0, checked.out + checked.err
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == [
        f"{case}-external-support-bot-s0-t{i}.json"
        for case in ("crash_before_checkpoint", "timeout_after_payment_commit")
        for i in (1, 2)
    ]
    # the same agent in process: the same calls, outcomes and end state, trial for trial
    local = run_trials(
        [load_transcript(files[0]).case, load_transcript(files[-1]).case],  # type: ignore[list-item]
        "scripted:correct",
        k=k,
        seed=0,
        out=tmp_path / "local",
    )
    assert [_effects(f) for f in files] == [_effects(r.path) for r in local]
    crash = load_transcript(files[0])
    assert [e.kind for e in crash.events][:3] == ["fault_fired", "crash", "resume"]
    assert crash.provenance.agent == "external:support-bot"
    assert crash.provenance.agent_version == "scripted-mcp:correct"
    # evaluator snapshots, never the agent's identity
    assert crash.ledger_before and crash.ledger_before.taken_by != crash.agent_principal
    assert crash.ledger_after and crash.ledger_after.taken_by != crash.agent_principal


@pytest.mark.slow
def test_faulty_external_agent_pays_twice_and_check_says_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with sandbox([TIMEOUT], out, "-k", "1", "--json") as s:
        supervise(s, tmp_path / "agent.sqlite", "--behaviour", "retry-without-reconcile")
        code, stdout, err = s.finish()
    assert code == 0, err
    report = json.loads(stdout)
    assert report["cases"][0]["successes"] == 0
    assert report["duplicate_writes"]["value"] == 1.0
    checked = run_cli("check", str(out), "--fail-on-violation")
    assert checked.code == 1, checked.out + checked.err
    assert "no_duplicate_payment" in checked.out


@pytest.mark.slow
def test_agent_killed_after_payment_commit_reconciles_by_operation_id(tmp_path: Path) -> None:
    """A real SIGKILL right after create_refund answered, before the agent's checkpoint: the
    restarted process finds the refund by its operation id and does not pay again."""
    out = tmp_path / "out"
    with sandbox([ELIGIBLE], out, "-k", "1") as s:
        codes = supervise(s, tmp_path / "agent.sqlite", first=("--kill-after", "create_refund"))
        code, _, err = s.finish()
    assert code == 0, err
    assert codes == [-9, 0]
    (path,) = out.glob("*.json")
    t = load_transcript(path)
    calls = [c.tool for c in t.tool_calls]
    assert calls.count("create_refund") == 1
    query = next(c for c in t.tool_calls if c.tool == "query_refund")
    assert query.arguments["operation_id"] == t.operation_ids[0]
    assert query.response and query.response.get("found") is True
    assert [e.kind for e in t.events] == ["crash", "resume"]
    assert "without replying" in t.events[0].detail
    checked = run_cli("check", str(out), "--fail-on-violation")
    assert checked.code == 0, checked.out + checked.err
