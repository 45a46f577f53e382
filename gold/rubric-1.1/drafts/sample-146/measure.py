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
import json
import sys
from pathlib import Path

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_gold_power as bench  # noqa: E402

from calibrant.files import load_rubric  # noqa: E402

RESAMPLES, SEED = 2000, 31
PAIRS = {
    "1.1 (fresh pair)": (HERE / "v11_a.jsonl", HERE / "v11_b.jsonl"),
    "1.0 (fresh pair)": (HERE / "v10_a.jsonl", HERE / "v10_b.jsonl"),
    "1.0 (gold's raters, older sheets)": (None, None),
}


def read(path: Path, items: list[str]) -> dict[tuple[str, str], object]:
    wanted = set(items)
    out: dict[tuple[str, str], object] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row["item"] in wanted:
            out[(row["item"], row["criterion"])] = row["label"]
    return out


def gold_rater(rater: str, items: list[str]) -> dict[tuple[str, str], object]:
    return read(ROOT / "gold" / "labels" / f"{rater}.jsonl", items)


def statistics(c: object, a: np.ndarray, b: np.ndarray) -> tuple[float, float | None]:
    scale = bench.scale_of(c)
    level = bench._kappa(a, b, scale.k, scale.level == "ordinal")
    app = bench._applicability_kappa(a, b) if c.not_applicable_when else None  # type: ignore[attr-defined]
    return level, app


def interval(values: list[float]) -> str:
    v = np.asarray([x for x in values if np.isfinite(x)])
    if v.size < 0.9 * RESAMPLES:
        return "undefined in over 10% of resamples"
    lo, hi = np.percentile(v, [2.5, 97.5])
    return f"[{lo:.2f}, {hi:.2f}]"


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
            la, lb = read(pa, items), read(pb, items)
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
    cases = sorted({manifest[i]["case"] for i in items})
    rows_of = [
        np.asarray([n for n, i in enumerate(items) if manifest[i]["case"] == c]) for c in cases
    ]
    rng = np.random.default_rng(SEED)
    draws = [
        np.concatenate([rows_of[k] for k in rng.integers(0, len(cases), size=len(cases))])
        for _ in range(RESAMPLES)
    ]
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
            level, app = statistics(c, a, b)
            reps = [statistics(c, a[d], b[d]) for d in draws]
            boot[(name, c.id)] = reps
            both = int(((a != bench.UNRATED) & (b != bench.UNRATED)).sum())
            app_text = (
                "—"
                if app is None
                else f"{app:.2f} {interval([r[1] for r in reps if r[1] is not None])}"
            )
            lines.append(
                f"| `{c.id}` | {name} | {level:.2f} {interval([r[0] for r in reps])} | "
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
                level, app = statistics(c, x, truth)
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
            ln, lo = statistics(c, *codes[new][c.id]), statistics(c, *codes[old][c.id])
            dl = [n[0] - o[0] for n, o in zip(boot[(new, c.id)], boot[(old, c.id)], strict=True)]
            app = "—"
            if ln[1] is not None and lo[1] is not None:
                da = [
                    n[1] - o[1]
                    for n, o in zip(boot[(new, c.id)], boot[(old, c.id)], strict=True)
                    if n[1] is not None and o[1] is not None
                ]
                app = f"{ln[1] - lo[1]:+.2f} {interval(da)}"
            lines.append(f"| `{c.id}` | {ln[0] - lo[0]:+.2f} {interval(dl)} | {app} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if opts.write:
        (HERE / "table.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
