"""What serving the controlled service to another process costs: the round trip of one tool call
(read_policy) in process (the channel, no server), over the HTTP API and over MCP (streamable
HTTP), the three interleaved in one run; and the wall time of whole trials of the correct
scripted agent in process vs from its own process over MCP.

    PYTHONPATH=src python benchmarks/bench_sandbox.py [--calls 300] [-k 5]

Writes benchmarks/results/sandbox.md. Medians with a seeded bootstrap 95% CI; n on every row."""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "cases" / "eligible_damaged_order.yaml"
TOKEN = "sbx_bench"  # the sandbox takes it from CALIBRANT_SANDBOX_TOKEN, the clients send it
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "CALIBRANT_SANDBOX_TOKEN": TOKEN}
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def ci(values: list[float], stat: Any = np.median, seed: int = 0) -> tuple[float, float, float]:
    a = np.asarray(values)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(a), size=(2000, len(a)))
    boot = stat(a[idx], axis=1)
    return float(stat(a)), float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))


def _sandbox(out: Path, k: int) -> tuple[subprocess.Popen[str], str]:
    """`calibrant sandbox` on a free port, once it listens; (process, base URL)."""
    srv = subprocess.Popen(
        [sys.executable, "-m", "calibrant", "sandbox", str(CASE), "--out", str(out)]
        + ["-k", str(k), "--port", "0"],
        env=ENV,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert srv.stderr is not None
    m = re.search(r"at (http://127\.0\.0\.1:\d+)/mcp", srv.stderr.readline())
    assert m, "the sandbox did not start"
    return srv, m.group(1)


def per_call(calls: int) -> dict[str, list[float]]:
    import httpx2
    from anyio.from_thread import start_blocking_portal
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from calibrant.files import load_case
    from calibrant.sandbox import Channel, ExternalAgent, Stopped, dispatch
    from calibrant_refunds.runner import run_trial

    times: dict[str, list[float]] = {"in process": [], "HTTP API": [], "MCP": []}
    # in process: the runner in a thread, the agent's calls straight into the channel
    ch = Channel(reply_timeout=600)
    work = Path(tempfile.mkdtemp())

    def run() -> None:
        try:
            run_trial(
                load_case(CASE), "external:bench", trial=1, seed=0, workdir=work,
                agent_factory=lambda n: ExternalAgent(n, ch),
            )  # fmt: skip
        except Stopped:  # stopped once measured
            pass

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    dispatch(ch, "trial_start", {})
    # the server, for the other two
    srv, url = _sandbox(Path(tempfile.mkdtemp()) / "out", 1)

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(
            f"{url}{path}",
            data=json.dumps(body).encode(),
            headers={**AUTH, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as r:
            return dict(json.loads(r.read()))

    http = httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(30, read=300))
    mcp = Client(streamable_http_client(f"{url}/mcp", http_client=http))
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(http),
        portal.wrap_async_context_manager(mcp) as client,
    ):
        portal.call(client.call_tool, "trial_start", {})
        for _ in range(calls):  # interleaved, so load on the machine hits all three alike
            t0 = time.perf_counter()
            dispatch(ch, "read_policy", {})
            times["in process"].append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            post("/tools/read_policy", {})
            times["HTTP API"].append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            portal.call(client.call_tool, "read_policy", {})
            times["MCP"].append((time.perf_counter() - t0) * 1000)
    srv.kill()
    srv.communicate()
    ch.stop()
    return times


def whole_trials(k: int) -> dict[str, list[float]]:
    """Trial wall time (the transcripts' latency_ms) of scripted:correct, both ways."""
    tmp = Path(tempfile.mkdtemp())
    subprocess.run(
        [sys.executable, "-m", "calibrant", "trials", str(CASE), "--agent", "scripted:correct"]
        + ["-k", str(k), "--out", str(tmp / "local")],
        env=ENV,
        check=True,
        capture_output=True,
    )
    srv, url = _sandbox(tmp / "mcp", k)
    subprocess.run(
        [sys.executable, "-m", "calibrant_refunds.sandbox_client", "--url", f"{url}/mcp"]
        + ["--checkpoints", str(tmp / "agent.sqlite")],
        env=ENV,
        check=True,
        capture_output=True,
    )
    srv.communicate(timeout=120)

    def lat(folder: Path) -> list[float]:
        return [json.loads(p.read_text())["metrics"]["latency_ms"] for p in folder.glob("*.json")]

    return {"in process": lat(tmp / "local"), "MCP (agent in its own process)": lat(tmp / "mcp")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("-k", type=int, default=5)
    a = ap.parse_args()
    calls = per_call(a.calls)
    trials = whole_trials(a.k)
    import mcp

    lines = [
        "# Sandbox benchmark: the cost of serving the service to another process",
        "",
        f"Generated by `python benchmarks/bench_sandbox.py --calls {a.calls} -k {a.k}` on "
        f"{date.today()}.",
        f"Machine: nproc={os.cpu_count()}, Python {platform.python_version()}, mcp "
        f"{getattr(mcp, '__version__', '2.3.0')}, shared with other sessions (loaded).",
        "",
        "One tool call (read_policy, the service's SQLite read included), the three ways "
        "interleaved in one run:",
        "",
        "| path | median ms [95% CI] | n |",
        "| --- | ---: | ---: |",
    ]
    for name, v in calls.items():
        m, lo, hi = ci(v)
        lines.append(f"| {name} | {m:.2f} [{lo:.2f}, {hi:.2f}] | {len(v)} |")
    base = np.asarray(calls["in process"])
    for name in ("HTTP API", "MCP"):
        pairs = np.asarray(calls[name]) - base
        m, lo, hi = ci(list(pairs))
        lines.append(
            f"| {name} − in process, paired | {m:.2f} [{lo:.2f}, {hi:.2f}] | {len(pairs)} |"
        )
    lines += [
        "",
        f"Whole trials of `scripted:correct` on eligible_damaged_order (k={a.k} each; wall time "
        "from the transcripts' latency_ms):",
        "",
        "| agent | mean ms [95% CI] | n |",
        "| --- | ---: | ---: |",
    ]
    for name, v in trials.items():
        m, lo, hi = ci(v, stat=np.mean)
        lines.append(f"| {name} | {m:.1f} [{lo:.1f}, {hi:.1f}] | {len(v)} |")
    first = trials["MCP (agent in its own process)"]
    lines += [
        "",
        "A trial's clock starts when the sandbox seeds its fixture, so an external trial's "
        "latency includes the time the agent takes to pick up the customer's message: for the "
        "first trial of a run, the agent process starting and connecting (the widest values "
        f"above; max {max(first):.0f} ms). The MCP client here is `mcp.Client` driven through an "
        "anyio blocking portal; the server sets TCP_NODELAY on its connections (without it a "
        "call took ~50 ms: a small write held back for a delayed ACK).",
    ]
    out = ROOT / "benchmarks" / "results" / "sandbox.md"
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
