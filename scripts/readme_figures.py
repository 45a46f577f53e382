"""The README's figures of the embedded judge, from the reports of a run.

    python scripts/readme_figures.py --run          # run the main job and the held-out check
    python scripts/readme_figures.py --from CAL HELD  # take two report.json files
    python scripts/readme_figures.py                # rewrite README.md from the kept reports
    python scripts/readme_figures.py --check        # exit 1 when README.md says otherwise

`--run` runs, in a scratch folder with a fresh store, the README's first command
(`calibrant calibrate`: the embedded judge on the calibration split) and its held-out check
(`calibrant calibrate --judge embedded --split heldout`), 40-90 minutes on two cores. The two
`report.json` it wrote (or the two given with `--from`) are kept, as they are, in
`benchmarks/results/readme_figures/` (`calibration.json`, `heldout.json`), and README.md's text
between `<!-- figures:begin -->` and `<!-- figures:end -->` is rewritten from them: the gate on
each split, how many criteria PASS, FAIL or are UNDECIDED, the range of κ, and per criterion κ
against the consensus with its 95% interval, items and cases, and the gate.
tests/test_readme_figures.py checks that README.md says what the kept reports say.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
KEPT = ROOT / "benchmarks" / "results" / "readme_figures"
SPLITS = ("calibration", "heldout")
BEGIN = "<!-- figures:begin: written by scripts/readme_figures.py from its reports; do not edit -->"
END = "<!-- figures:end -->"
COMMANDS = {
    "calibration": ["calibrate"],
    "heldout": ["calibrate", "--judge", "embedded", "--split", "heldout"],
}
STATISTIC = {"cohen_kappa": "", "weighted_kappa_linear": " (linear-weighted κ)"}
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def num(x: float) -> str:
    """0.14, −0.25 (a true minus sign, as the pages write it)."""
    text = f"{x:.2f}"
    return "0.00" if text == "-0.00" else text.replace("-", "−")


def load(folder: Path = KEPT) -> dict[str, dict[str, Any]]:
    return {s: json.loads((folder / f"{s}.json").read_text()) for s in SPLITS}


def _cell(criterion: dict[str, Any], gate: str) -> str:
    k = criterion["judge_vs_consensus"]
    if k["estimate"] is None:
        kappa = "κ undefined"
    else:
        lo, hi = k["ci"] if k["ci"] else (None, None)
        interval = f" [{num(lo)}, {num(hi)}]" if lo is not None and hi is not None else ""
        kappa = f"{num(k['estimate'])}{interval}"
    return f"{kappa}, {k['n']} ({k['n_clusters']}), {gate}"


def _statuses(report: dict[str, Any]) -> str:
    """'four criteria FAIL and one UNDECIDED'."""
    counts = Counter(report["gate"]["criteria"].values())
    parts = []
    for status in ("PASS", "FAIL", "UNDECIDED"):
        n = counts.get(status, 0)
        if n:
            noun = "" if parts else " criteria" if n > 1 else " criterion"
            parts.append(f"{WORDS.get(n, str(n))}{noun} {status}")
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def render(reports: dict[str, dict[str, Any]]) -> str:
    """The README's text between the markers, from the two reports."""
    cal, held = reports["calibration"], reports["heldout"]
    for split, report in reports.items():
        if report["split"] != split:
            raise SystemExit(f"the {split} report is of split {report['split']!r}")
    gates = {s: r["gate"]["judge"] for s, r in reports.items()}
    statuses = {s: _statuses(r) for s, r in reports.items()}
    kappas = [
        c["judge_vs_consensus"]["estimate"]
        for r in reports.values()
        for c in r["criteria"]
        if c["judge_vs_consensus"]["estimate"] is not None
    ]
    if gates["calibration"] == gates["heldout"]:
        gate = f"On the shipped gold set its gate is **{gates['calibration']}** on both splits"
    else:
        gate = (
            f"On the shipped gold set its gate is **{gates['calibration']}** on the calibration "
            "split and "
            f"**{gates['heldout']}** on the held-out split"
        )
    if statuses["calibration"] == statuses["heldout"]:
        per = statuses["calibration"]
    else:
        per = f"{statuses['calibration']} (held out: {statuses['heldout']})"
    day = cal["created_at"][:10]
    paragraph = (
        f"{gate}, {per} (κ from {num(min(kappas))} to {num(max(kappas))}). These are the "
        f"figures of a run on {day} (`scripts/readme_figures.py`): the first `calibrate`, "
        f"{cal['n_items']} items, and the held-out check of step 2, {held['n_items']} items. "
        "κ is the judge's against the experts' consensus with its 95% interval over cases, "
        "then the items (cases) it rests on and the criterion's gate:"
    )
    lines = [
        *textwrap.wrap(paragraph, 100, break_on_hyphens=False),
        "",
        "| criterion | calibration split | held-out split |",
        "|---|---|---|",
    ]
    held_by = {c["criterion"]: c for c in held["criteria"]}
    for c in cal["criteria"]:
        name = c["criterion"]
        extra = STATISTIC.get(c["statistic"], f" ({c['statistic']})")
        if c.get("not_applicable") is not None:
            extra += " (items both found applicable)"
        h = held_by[name]
        lines.append(
            f"| `{name}`{extra} | {_cell(c, cal['gate']['criteria'][name])} "
            f"| {_cell(h, held['gate']['criteria'][name])} |"
        )
    return "\n".join(lines)


def rewrite(text: str, block: str) -> str:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"README.md has no {BEGIN} ... {END} markers")
    return text[: start + len(BEGIN)] + "\n" + block + "\n" + text[end:]


def between(text: str) -> str:
    """What README.md says between the markers."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"README.md has no {BEGIN} ... {END} markers")
    return text[start + len(BEGIN) : end].strip("\n")


def run() -> dict[str, Path]:
    """The README's first run and its held-out check, in a scratch folder: their report.json."""
    scratch = Path(tempfile.mkdtemp(prefix="readme-figures-"))
    for name in ("judges", "rubrics"):
        shutil.copytree(ROOT / name, scratch / name)
    env = {
        **os.environ,
        "CALIBRANT_DATABASE_URL": f"sqlite:///{scratch / 'calibrant.db'}",
        "CALIBRANT_EMBEDDED_CACHE": str(scratch / "cache"),
    }
    out: dict[str, Path] = {}
    for split, args in COMMANDS.items():
        before = set((scratch / "reports").glob("*/report.json"))
        print(f"calibrant {' '.join(args)} ...", file=sys.stderr, flush=True)
        proc = subprocess.run([sys.executable, "-m", "calibrant", *args], cwd=scratch, env=env)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"calibrant {' '.join(args)} exited {proc.returncode}")
        [report] = set((scratch / "reports").glob("*/report.json")) - before
        out[split] = report
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    how = p.add_mutually_exclusive_group()
    how.add_argument("--run", action="store_true", help="run the two calibrations (40-90 min)")
    how.add_argument("--from", dest="given", nargs=2, metavar=("CALIBRATION", "HELDOUT"))
    how.add_argument("--check", action="store_true", help="exit 1 if README.md differs")
    a = p.parse_args(argv)
    sources = (
        run() if a.run else dict(zip(SPLITS, map(Path, a.given), strict=True)) if a.given else None
    )
    if sources is not None:
        KEPT.mkdir(parents=True, exist_ok=True)
        for split, path in sources.items():
            shutil.copyfile(path, KEPT / f"{split}.json")
    block = render(load())
    text = README.read_text()
    if a.check:
        if between(text) != block:
            print(f"README.md's figures differ from the reports; they should read:\n{block}")
            return 1
        return 0
    README.write_text(rewrite(text, block))
    print(block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
