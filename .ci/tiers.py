"""What each tier of a CI run ran, and that no test was lost.

    python3 .ci/tiers.py OUT_DIR

reads, for each tier (fast, slow, lint), `OUT_DIR/TIER.ids` (the ids the tier selected, written
by `pytest --ids-out`) and `OUT_DIR/TIER.xml` (its JUnit report: outcomes and time), and
`OUT_DIR/steps.tsv` (each CI step's wall time). It prints one table, then checks that every id
the suite collected at 1c65a78 (.ci/ids-1c65a78.txt, 1,897 ids) is in the union of the tiers,
under its name then or the one .ci/ids-renamed.txt gives it (`old -> new` lines), and that no
id runs in two tiers. Exit 1 when an id was lost or a tier's report is missing. Standard library
only."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "ids-1c65a78.txt"
RENAMED = HERE / "ids-renamed.txt"
TIERS = ("fast", "slow", "lint")


def _ids(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.strip()]


def _junit(path: Path) -> dict[str, float]:
    """tests, failures, errors, skipped and time of a JUnit report (summed over its suites)."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    keys = ("tests", "failures", "errors", "skipped", "time")
    return {k: sum(float(s.get(k, 0)) for s in suites) for k in keys}


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:04.1f} s"


def main(out: Path) -> int:
    problems: list[str] = []
    selected: dict[str, list[str]] = {}
    rows = []
    for tier in TIERS:
        ids_file, xml_file = out / f"{tier}.ids", out / f"{tier}.xml"
        if not ids_file.exists() or not xml_file.exists():
            problems.append(f"tier {tier}: no report ({ids_file.name}, {xml_file.name})")
            continue
        selected[tier] = _ids(ids_file)
        j = _junit(xml_file)
        passed = j["tests"] - j["failures"] - j["errors"] - j["skipped"]
        rows.append(
            f"| {tier} | {len(selected[tier])} | {passed:.0f} | {j['failures'] + j['errors']:.0f}"
            f" | {j['skipped']:.0f} | {_minutes(j['time'])} |"
        )
    print("| tier | ids selected | passed | failed | skipped | pytest time |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    steps = out / "steps.tsv"
    if steps.exists():
        print()
        print("| CI step | wall time |")
        print("|---|---|")
        total = 0.0
        for line in _ids(steps):
            name, seconds = line.split("\t")
            total += float(seconds)
            print(f"| {name} | {_minutes(float(seconds))} |")
        print(f"| whole .ci/run | {_minutes(total)} |")

    union: set[str] = set()
    for tier, ids in selected.items():
        for other, theirs in selected.items():
            both = set(ids) & set(theirs)
            if tier < other and both:
                problems.append(
                    f"{len(both)} ids run in both {tier} and {other}: {sorted(both)[:5]}"
                )
        union |= set(ids)
    renamed = {}
    if RENAMED.exists():
        for line in _ids(RENAMED):
            if not line.startswith("#"):
                # an id may hold " -> " itself (a parameter): the new id starts with a path
                found = re.match(r"(.+?) -> ((?:tests|domains|examples)/.+)$", line)
                old, new = found.groups() if found else line.partition(" -> ")[::2]
                renamed[old.strip()] = new.strip()
    baseline = _ids(BASELINE)
    lost = [i for i in baseline if renamed.get(i, i) not in union]
    print()
    print(
        f"union of the tiers: {len(union)} ids; of the {len(baseline)} collected at 1c65a78, "
        f"{len(baseline) - len(lost)} present ({sum(1 for i in baseline if i in renamed)} under a "
        f"new name), {len(lost)} lost; {len(union - set(baseline) - set(renamed.values()))} new"
    )
    if lost:
        problems.append(f"{len(lost)} ids lost: " + ", ".join(lost[:20]))
    for problem in problems:
        print(f"tiers: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
