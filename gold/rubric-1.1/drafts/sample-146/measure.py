"""Does rubric 1.1 (the adjudicators' principles written in) raise the experts' agreement?

Draft 1 of rubric 1.1 (`rubric-draft1.yaml`) against rubric 1.0, on a sample: two pairs of
fresh annotator sessions labelled the same blind sample of gold items
(`items.txt`: two items drawn at random from each of the gold set's 73 cases, seed 31; 146):
one pair with the guide of draft 1, one pair with today's guide of rubric 1.0
(`gold/labeling_guide.md`), each session blind to the other, to the labels in `../labels/` and to
the manifest. This prints, for each pair (and for gold's own rater_a / rater_b on the same
items, labelled on older sheets), per criterion the kappas that `bench_gold_power` and the gate
use — the level kappa on items both rate applicable (linear-weighted on the ordinal criterion)
and, where a criterion can be not applicable, the applicability kappa — each with a 95%
percentile bootstrap interval over the cases (the unit: a drawn case brings both its items),
and the difference 1.1 − 1.0 with a paired bootstrap interval (the same cases resampled for
both pairs).

    python gold/rubric-1.1/drafts/sample-146/measure.py           # prints the tables
    python gold/rubric-1.1/drafts/sample-146/measure.py --write   # and writes table.md here
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(HERE.parents[1]))
from pairs import RESAMPLES, SEED, bench, case_draws, interval, kappas, labels  # noqa: E402

from calibrant.files import load_rubric  # noqa: E402

PAIRS = {
    "1.1 (fresh pair)": (HERE / "v11_a.jsonl", HERE / "v11_b.jsonl"),
    "1.0 (fresh pair)": (HERE / "v10_a.jsonl", HERE / "v10_b.jsonl"),
    "1.0 (gold's raters, older sheets)": (None, None),
}
UNDEFINED = "undefined in over 10% of resamples"


def gold_rater(rater: str, items: list[str]) -> dict[tuple[str, str], object]:
    """gold's rater (or consensus) under rubric 1.0, on these items."""
    return labels(ROOT / "gold" / "labels-rubric-1.0" / f"{rater}.jsonl", items)


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--write", action="store_true")
    opts = args.parse_args(argv)
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")
    items = (HERE / "items.txt").read_text(encoding="utf-8").split()
    codes: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for name, (pa, pb) in PAIRS.items():
        if pa is None or pb is None:
            la, lb = gold_rater("rater_a", items), gold_rater("rater_b", items)
        elif pa.exists() and pb.exists():
            la, lb = labels(pa, items), labels(pb, items)
        else:
            continue
        codes[name] = {
            c.id: (
                bench._codes(c, [la.get((i, c.id)) for i in items]),
                bench._codes(c, [lb.get((i, c.id)) for i in items]),
            )
            for c in rubric.criteria
        }
    manifest = yaml.safe_load((ROOT / "gold" / "manifest.yaml").read_text(encoding="utf-8"))
    cases, draws = case_draws(items, {i: manifest[i]["case"] for i in items})
    lines = [
        f"{len(items)} items from {len(cases)} cases; 95% percentile bootstrap intervals over "
        f"the cases ({RESAMPLES} resamples, seed {SEED}).",
        "",
        "| criterion | pair | level κ | applicability κ | items both rated |",
        "|---|---|---|---|---|",
    ]
    boot: dict[tuple[str, str], list[tuple[float, float | None]]] = {}
    for c in rubric.criteria:
        for name, per in codes.items():
            a, b = per[c.id]
            level, app = kappas(c, a, b)
            reps = [kappas(c, a[d], b[d]) for d in draws]
            boot[(name, c.id)] = reps
            both = int(((a != bench.UNRATED) & (b != bench.UNRATED)).sum())
            app_text = (
                "—"
                if app is None
                else f"{app:.2f} {interval([r[1] for r in reps if r[1] is not None], UNDEFINED)}"
            )
            lines.append(
                f"| `{c.id}` | {name} | {level:.2f} {interval([r[0] for r in reps], UNDEFINED)} | "
                f"{app_text} | {both} |"
            )
    consensus = gold_rater("consensus", items)
    lines += [
        "",
        "Each annotator against gold's adjudicated consensus (made under 1.0, by adjudicators "
        "whose principles 1.1 writes in): level κ, applicability κ.",
        "",
        "| criterion | " + " | ".join(f"{n} {s}" for n in codes for s in ("A", "B")) + " |",
        "|---|" + "---|" * (2 * len(codes)),
    ]
    for c in rubric.criteria:
        truth = bench._codes(c, [consensus.get((i, c.id)) for i in items])
        cells = []
        for per in codes.values():
            for x in per[c.id]:
                level, app = kappas(c, x, truth)
                cells.append(f"{level:.2f}" + ("" if app is None else f" / {app:.2f}"))
        lines.append(f"| `{c.id}` | " + " | ".join(cells) + " |")
    new, old = "1.1 (fresh pair)", "1.0 (fresh pair)"
    if new in codes and old in codes:
        lines += [
            "",
            "| criterion | 1.1 − 1.0, level κ | 1.1 − 1.0, applicability κ |",
            "|---|---|---|",
        ]
        for c in rubric.criteria:
            ln, lo = kappas(c, *codes[new][c.id]), kappas(c, *codes[old][c.id])
            dl = [n[0] - o[0] for n, o in zip(boot[(new, c.id)], boot[(old, c.id)], strict=True)]
            app = "—"
            if ln[1] is not None and lo[1] is not None:
                da = [
                    n[1] - o[1]
                    for n, o in zip(boot[(new, c.id)], boot[(old, c.id)], strict=True)
                    if n[1] is not None and o[1] is not None
                ]
                app = f"{ln[1] - lo[1]:+.2f} {interval(da, UNDEFINED)}"
            lines.append(f"| `{c.id}` | {ln[0] - lo[0]:+.2f} {interval(dl, UNDEFINED)} | {app} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if opts.write:
        (HERE / "table.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
