"""The experts' agreement on gold v3's 300 items, rubric 1.0's labels against each draft of 1.1,
and rubric 1.1's on gold v4's new items.

Per criterion and pair of raters: the kappas the gate and `bench_gold_power` use — the level
kappa on the items both rate applicable (linear-weighted on the ordinal criterion) and, where a
criterion can be not applicable, the applicability kappa — each with a 95% percentile bootstrap
interval over the gold set's 73 cases (the unit: a drawn case brings all its items).

    python gold/rubric-1.1/agreement.py            # prints the table (Markdown)
    python gold/rubric-1.1/agreement.py --write    # and writes agreement.md here
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from pairs import RESAMPLES, SEED, case_draws, codes, interval, kappas, labels  # noqa: E402

from calibrant.files import load_rubric  # noqa: E402

SETS = {
    "1.0 (gold/labels)": (ROOT / "gold" / "labels-rubric-1.0", ["rater_a", "rater_b"]),
    "1.1 draft 2": (HERE / "drafts" / "full-draft2", ["rater_a", "rater_b"]),
    "1.1 draft 3": (HERE / "drafts" / "full-draft3", ["rater_a", "rater_b"]),
    "1.1 (labels, a–b)": (ROOT / "gold" / "labels", ["rater_a", "rater_b"]),
    "1.1 (replication, c–d)": (HERE / "replication", ["rater_c", "rater_d"]),
}


def v4_table(rubric: object, manifest: dict[str, dict[str, str]], v3: set[str]) -> list[str]:
    """Rubric 1.1 on gold v4's items: conversations written after the rubric, never used to
    revise it (the test the caveat in README.md asks for)."""
    gold = ROOT / "gold" / "labels"
    a, b = labels(gold / "rater_a.jsonl"), labels(gold / "rater_b.jsonl")
    items = sorted({i for i, _ in a} - v3)
    if not items:
        return []
    cases, draws = case_draws(items, {i: manifest[i]["case"] for i in items})
    lines = [
        "",
        f"Rubric 1.1 on gold v4's {len(items)} new items ({len(cases)} cases, written and "
        "labelled after the rubric was fixed): rater_a – rater_b, 95% case-bootstrap intervals.",
        "",
        "| criterion | level κ | applicability κ |",
        "|---|---|---|",
    ]
    for c in rubric.criteria:  # type: ignore[attr-defined]
        x, y = codes(c, a, items), codes(c, b, items)
        level, app = kappas(c, x, y)
        reps = [kappas(c, x[d], y[d]) for d in draws]
        app_text = "—"
        if app is not None:
            app_text = f"{app:.2f} {interval([r[1] for r in reps if r[1] is not None])}"
        lines.append(f"| `{c.id}` | {level:.2f} {interval([r[0] for r in reps])} | {app_text} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    opts = parser.parse_args(argv)
    rubric = load_rubric(ROOT / "rubrics" / "refund_communication.yaml")  # 1.1; 1.0's scales
    manifest = yaml.safe_load((ROOT / "gold" / "manifest.yaml").read_text(encoding="utf-8"))
    # gold v3's items (the ones rubric 1.0 labelled), not the ones gold v4 added under 1.1
    v3 = labels(ROOT / "gold" / "labels-rubric-1.0" / "consensus.jsonl")
    items = sorted({i for i, _ in v3})
    cases, draws = case_draws(items, {i: manifest[i]["case"] for i in items})
    lines = [
        f"{len(items)} items of {len(cases)} cases; 95% percentile bootstrap intervals over the "
        f"cases ({RESAMPLES} resamples, seed {SEED}). Level κ: on the items both rate "
        "applicable (linear-weighted on `overall_clarity`); applicability κ: applicable or not.",
        "",
        "| criterion | labels | level κ | applicability κ |",
        "|---|---|---|---|",
    ]
    for c in rubric.criteria:
        for name, (folder, raters) in SETS.items():
            a, b = (codes(c, labels(folder / f"{r}.jsonl", items), items) for r in raters)
            level, app = kappas(c, a, b)
            reps = [kappas(c, a[d], b[d]) for d in draws]
            app_text = "—"
            if app is not None:
                app_text = f"{app:.2f} {interval([r[1] for r in reps if r[1] is not None])}"
            lines.append(
                f"| `{c.id}` | {name} | {level:.2f} {interval([r[0] for r in reps])} | {app_text} |"
            )
    four = [ROOT / "gold" / "labels" / f"rater_{r}.jsonl" for r in "ab"] + sorted(
        (HERE / "replication").glob("*.jsonl")
    )
    lines += ["", "Rubric 1.1 (final), all six pairs of its four raters: lowest – highest.", ""]
    lines += ["| criterion | level κ | applicability κ |", "|---|---|---|"]
    for c in rubric.criteria:
        rated = [codes(c, labels(p, items), items) for p in four]
        ks = [kappas(c, x, y) for x, y in itertools.combinations(rated, 2)]
        lv = [k[0] for k in ks]
        ap = [k[1] for k in ks if k[1] is not None]
        app_text = f"{min(ap):.2f} – {max(ap):.2f}" if ap else "—"
        lines.append(f"| `{c.id}` | {min(lv):.2f} – {max(lv):.2f} | {app_text} |")
    lines += v4_table(rubric, manifest, {i for i, _ in v3})
    text = "\n".join(lines) + "\n"
    print(text)
    if opts.write:
        (HERE / "agreement.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
