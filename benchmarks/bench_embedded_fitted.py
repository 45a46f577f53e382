"""The embedded judge with a label prior fitted on the calibration split's transcripts.

Run: python benchmarks/bench_embedded_fitted.py [--splits heldout,calibration] [--subset N]
Three real commands, each in a subprocess with its own store and embedded cache folder:
1. `calibrant judges fit-prior --gold G --split calibration --judge embedded --out fitted`
   (the calibration split's transcripts, their labels not read);
2. `calibrant calibrate --gold G --split S --judge fitted --json` for each split asked, the
   held-out split first: it was never used to fit anything;
3. the same with judges/embedded.yaml picking its labels jointly (`joint`, the old
   default): the before.
Per criterion: the judge's label counts (a constant rater uses one), κ against the consensus
with its 95% case-clustered CI, items and cases, the gate. `--subset N`: N items of each split,
round-robin over its cases, to iterate quickly. Results: benchmarks/results/embedded_fitted.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_embedded_calibration import judge_labels, subset_gold, table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def calibrant(
    args: list[str], env: dict[str, str]
) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "calibrant", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        sys.exit(f"calibrant {' '.join(args)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return wall, proc


def environment(tmp: Path, name: str, judges: Path) -> dict[str, str]:
    return {
        **os.environ,
        "CALIBRANT_DATABASE_URL": f"sqlite:///{tmp / name}.db",
        "CALIBRANT_JUDGES_DIR": str(judges),
        "CALIBRANT_EMBEDDED_CACHE": str(tmp / f"cache-{name}"),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", default="heldout,calibration")
    ap.add_argument("--before", default="heldout", help="splits to judge with joint too")
    ap.add_argument("--subset", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/embedded_fitted.md")
    args = ap.parse_args()
    import json

    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        judges = tmp / "judges"
        judges.mkdir()
        # the before: judges/embedded.yaml picking its labels jointly, as it did until the prior
        saved = yaml.safe_load((ROOT / "judges" / "embedded.yaml").read_text())
        saved = {k: v for k, v in saved.items() if k not in ("label_scoring", "label_prior")}
        (judges / "embedded.yaml").write_text(yaml.safe_dump(saved) + "label_scoring: joint\n")
        golds = {}
        for split in args.splits.split(","):
            golds[split] = ROOT / "gold"
            if args.subset:
                golds[split] = tmp / f"gold-{split}"
                subset_gold(ROOT / "gold", golds[split], split, args.subset)
        fit_gold = golds.get("calibration", ROOT / "gold")
        fit_args = ["judges", "fit-prior", "--gold", str(fit_gold), "--split", "calibration"]
        fit_args += ["--judge", "embedded", "--out", "fitted"]

        def judged(judge: str, split: str) -> tuple[str, str, float, Any, Any]:
            env = environment(tmp, f"{judge}-{split}", judges)
            cmd = ["calibrate", "--gold", str(golds[split]), "--split", split, "--judge", judge]
            wall, proc = calibrant([*cmd, "--json"], env)
            print(judge, split, f"{wall:.0f} s", file=sys.stderr)
            report = json.loads(proc.stdout)
            return judge, split, wall, report, judge_labels(tmp / f"{judge}-{split}.db")

        # two at a time (one model thread each on two cores): the befores beside the fit
        with ThreadPoolExecutor(max_workers=2) as pool:
            befores = [pool.submit(judged, "embedded", s) for s in args.before.split(",") if s]
            fit_wall, fit = calibrant(fit_args, environment(tmp, "fit", judges))
            print(f"fit {fit_wall:.0f} s", file=sys.stderr)
            prior = (judges / "fitted.yaml").read_text()
            afters = [pool.submit(judged, "fitted", s) for s in args.splits.split(",")]
            results = [f.result() for f in afters + befores]
    what = f"{args.subset} items of each split" if args.subset else "whole splits"
    lines = [
        "# The embedded judge with a label prior fitted on the items (batch calibration)",
        "",
        "`python benchmarks/bench_embedded_fitted.py"
        + (f" --subset {args.subset}" if args.subset else "")
        + f"` ({what}). SmolLM2-135M picks one label per criterion by log-probability, each "
        "right after the prompt. `calibrant judges fit-prior` measured every label's probability "
        "on each transcript of the calibration split (the experts' labels are not read), "
        "averaged within each case and then over cases; the judge `fitted` picks the label "
        "with the largest log-probability minus that prior's (the abstention is not "
        "rebalanced). The held-out split was used to fit nothing. Every run is the real "
        "command in a subprocess with a fresh store and embedded cache folder. κ is the "
        "judge's against the consensus with its 95% case-clustered bootstrap CI, as the report "
        "gives it; the gate is calibrate's own. `embedded` is judges/embedded.yaml with "
        "`label_scoring: joint` (each label after the ones before it: the default until this "
        "prior), the before. Runs went two at a time "
        "(one model thread each), so wall times include waiting for the other core.",
        "",
        f"Fitting the prior took {fit_wall / 60:.1f} min. It printed, per criterion, each "
        "label's mean probability:",
        "",
        "```",
        fit.stdout.strip(),
        "```",
        "",
    ]
    for judge, split, wall, report, labels in results:
        lines += [
            f"## `{judge}` on the {split} split",
            "",
            f"Wall time {wall / 60:.1f} min for {report['n_items']} items; judge outcomes "
            f"{report['judge_outcomes']}; release gate {report['gate']['judge']}.",
            "",
            *table(report, labels),
            "",
        ]
    lines += [
        "The fitted judge as saved (prior rounded to 4 decimals):",
        "",
        "```yaml",
        prior.strip(),
        "```",
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.machine()}, Python "
        f"{platform.python_version()}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. The machine is "
        "shared (other sessions ran beside it); one run each.",
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
