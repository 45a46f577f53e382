"""Every refund trial of every shipped case with every scripted agent (each behaviour, plain and
in each wording style), written as JSON to a folder, so two calibrant versions can be compared
byte for byte: the check that moving the refund shop into its pack changed no transcript.

    PYTHONPATH=... python domains/refunds/scripts/snapshot_trials.py run OUT [--cases cases]
    python domains/refunds/scripts/snapshot_trials.py compare OUT_A OUT_B

Only what varies from run to run by nature is blanked: when the trial started and finished and
its wall time (`provenance.started_at`, `provenance.finished_at`, `metrics.latency_ms`). It
reaches the refund shop through calibrant's registry (`calibrant.domains.runtime`), so it runs
on any calibrant version that has packs."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

STYLES = ("", "/excellent", "/ordinary", "/terse", "/misleading")
TRIALS = 2


def run(out: Path, cases_dir: Path) -> int:
    from calibrant.domains import runtime
    from calibrant.files import load_case

    rt = runtime("refunds")
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    with tempfile.TemporaryDirectory(prefix="refund-trials-") as scratch:
        for path in sorted(cases_dir.glob("*.yaml")):
            case = load_case(path)
            for agent in rt.agent_names():
                for style in STYLES:
                    name = agent + style
                    for trial in range(1, TRIALS + 1):
                        t = rt.run_trial(
                            case,
                            name,
                            trial=trial,
                            seed=0,
                            workdir=Path(scratch),
                            agent_factory=rt.make_agent,
                        )
                        doc = json.loads(t.model_dump_json(exclude_none=False))
                        doc["provenance"]["started_at"] = doc["provenance"]["finished_at"] = None
                        doc["metrics"]["latency_ms"] = None
                        file = f"{case.case}-{name.replace(':', '-').replace('/', '-')}-t{trial}"
                        (out / f"{file}.json").write_text(json.dumps(doc, indent=1))
                        n += 1
    print(f"{n} transcripts in {out}")
    return 0


def compare(a: Path, b: Path) -> int:
    names_a = {p.name for p in a.glob("*.json")}
    names_b = {p.name for p in b.glob("*.json")}
    differ = sorted(n for n in names_a & names_b if (a / n).read_bytes() != (b / n).read_bytes())
    only = sorted(names_a ^ names_b)
    for n in differ:
        print(f"differs: {n}")
    for n in only:
        print(f"only in {'the first' if n in names_a else 'the second'}: {n}")
    same = len(names_a & names_b) - len(differ)
    print(f"{same} identical, {len(differ)} different, {len(only)} in one folder only")
    return 0 if not differ and not only else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("out", type=Path)
    r.add_argument("--cases", type=Path, default=Path("cases"))
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = parser.parse_args(argv)
    if args.command == "run":
        return run(args.out, args.cases)
    return compare(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
