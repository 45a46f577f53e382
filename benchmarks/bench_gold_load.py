"""Loading the gold set and building a probe's requests, each beside the way it was done before,
in one run: `load_gold` of the whole shipped set with libyaml's parser (what calibrant uses when
PyYAML has it) and with PyYAML's own parser, beside the bare parsers on the manifest alone; and
the probe's requests on the calibration split with variants that copy only what they change,
and with a deep copy of every variant. Rounds alternate; medians of `--rounds`.
Writes benchmarks/results/gold_load.md.

    python benchmarks/bench_gold_load.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import yaml  # noqa: E402

from calibrant.contracts import Transcript  # noqa: E402
from calibrant.files import load_rubric, located  # noqa: E402
from calibrant.gold import load_gold  # noqa: E402
from calibrant.probes import (  # noqa: E402
    ATTACKS,
    ProbeContext,
    ProbeSettings,
    bias,
    collect_requests,
    injection,
    variants,
)
from calibrant.probes.run import default_probes  # noqa: E402


def _median(fn: Callable[[], object], rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def _deep_inject(t: Transcript, channel: str, text: str) -> Transcript:
    """The variant as it was built before: a deep copy of the whole transcript, then the change."""
    out = t.model_copy(deep=True)
    if channel == "agent":
        agent = [n for n, turn in enumerate(out.conversation) if turn.role == "agent"]
        if not agent:
            raise ValueError("no agent message")
        turn = out.conversation[agent[-1]]
        turn.text = f"{turn.text}\n\n{text}"
        return out
    found = variants.subject_record(out)
    if found is None:
        raise ValueError("no order")
    spec, record = found
    field = spec.customer_text_fields[0]
    note = record.get(field)
    record[field] = f"{note}\n\n{text}" if note else text
    return out


def _deep_pad(t: Transcript) -> Transcript:
    out = t.model_copy(deep=True)
    for turn in out.conversation:
        if turn.role == "agent":
            turn.text = variants.PADDING_OPEN + turn.text + variants.PADDING_CLOSE
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    gold_dir = ROOT / "gold"
    manifest = (gold_dir / "manifest.yaml").read_text(encoding="utf-8")
    fast = located._FAST_LOADER
    times: dict[str, list[float]] = {k: [] for k in ("c", "py", "bare_c", "bare_py")}
    for _ in range(args.rounds):  # alternate, so drift on the machine falls on both
        located._FAST_LOADER = fast
        times["c"] += _median(lambda: load_gold(gold_dir, split=None), 1)
        located._FAST_LOADER = yaml.SafeLoader
        times["py"] += _median(lambda: load_gold(gold_dir, split=None), 1)
        located._FAST_LOADER = fast
        times["bare_c"] += _median(lambda: yaml.load(manifest, Loader=fast), 1)  # noqa: S506
        times["bare_py"] += _median(lambda: yaml.safe_load(manifest), 1)
    n_items = len(load_gold(gold_dir, split=None).items)

    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    cal = load_gold(gold_dir, split="calibration")
    settings = ProbeSettings(probes=default_probes(), families=tuple(ATTACKS))
    ctx = ProbeContext(gold=cal, rubric=rubric, settings=settings)
    shared_inject, shared_pad = injection.inject, bias.pad
    probe: dict[str, list[float]] = {"shared": [], "deep": []}
    n_requests = 0
    for _ in range(args.rounds):
        injection.inject, bias.pad = shared_inject, shared_pad
        t0 = time.perf_counter()
        n_requests = len(collect_requests(ctx))
        probe["shared"].append(time.perf_counter() - t0)
        injection.inject, bias.pad = _deep_inject, _deep_pad
        t0 = time.perf_counter()
        assert len(collect_requests(ctx)) == n_requests
        probe["deep"].append(time.perf_counter() - t0)
    injection.inject, bias.pad = shared_inject, shared_pad

    def med(xs: list[float]) -> str:
        return f"{statistics.median(xs):.3f} (min {min(xs):.3f})"

    def ratio(a: list[float], b: list[float]) -> str:
        return f"{statistics.median(b) / statistics.median(a):.1f}×"

    lines = [
        "# Loading the gold set and building a probe's requests",
        "",
        f"`python benchmarks/bench_gold_load.py --rounds {args.rounds}`: each measure beside the "
        "way it was done before, in one process, rounds alternating; seconds, median of "
        f"{args.rounds} (and the fastest).",
        "",
        "| what | now | before (or bare) | before / now |",
        "|---|---|---|---|",
        f"| `load_gold` of the shipped set ({n_items} items, split=None): libyaml's parser vs "
        f"PyYAML's | {med(times['c'])} | {med(times['py'])} | {ratio(times['c'], times['py'])} |",
        f"| the manifest alone, bare `yaml.load` (CSafeLoader) vs `yaml.safe_load` | "
        f"{med(times['bare_c'])} | {med(times['bare_py'])} | "
        f"{ratio(times['bare_c'], times['bare_py'])} |",
        f"| a probe's requests on the calibration split ({n_requests} requests, every probe "
        f"and attack family): variants sharing what they do not change vs a deep copy each | "
        f"{med(probe['shared'])} | {med(probe['deep'])} | "
        f"{ratio(probe['shared'], probe['deep'])} |",
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.machine()}, Python "
        f"{platform.python_version()}, PyYAML {yaml.__version__} "
        f"(libyaml {'yes' if yaml.__with_libyaml__ else 'no'}); "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC.",
        "",
    ]
    out = ROOT / "benchmarks" / "results" / "gold_load.md"
    out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
