"""Blind adjudication of the gold labels.

    python gold/adjudicate.py packet [--gold DIR] [--rubric FILE] [--seed N]
    python gold/adjudicate.py apply DECISIONS.jsonl [--gold DIR] [--rubric FILE]

`packet` reads the rater files (gold/labels/*.jsonl|csv, every rater but `consensus`) and writes
gold/adjudication/: one entry per (item, criterion) on which the raters disagree, showing the
sheet to read, the criterion with its rubric definition, and the raters' labels as "label X /
label Y" in a random order with no rater named. Which rater gave which letter goes to
gold/adjudication_key/key.json, kept apart: the adjudicator must not read it.

`apply` reads the adjudicator's decisions, one JSON object per line:
    {"item": "gold-010", "criterion": "separates_done_from_pending", "label": "pass",
     "reason": "..."}
(an "id" from the packet may be given too), checks every line before writing anything (a decision
must answer a disputed item and criterion of the packet, with a label the rubric allows; each
dispute answered once, none left out), then writes gold/labels/consensus.jsonl: the raters'
label where they agree, the decision where they did not, each decided line with a note giving
the decision, the reason and which rater the consensus followed (rater name or "neither"), and
prints how often the consensus followed each rater. A problem is one line naming the file, the
line and the field; exit code 2, nothing written."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calibrant.contracts import Criterion, Rubric
from calibrant.errors import CalibrantError, InputError
from calibrant.files import load_rubric, read_labels, write_atomic

HERE = Path(__file__).resolve().parent
RUBRIC = HERE.parent / "rubrics" / "refund_communication.yaml"
CONSENSUS = "consensus"
LETTERS = "XYZWVU"
ABSTAIN = {"cant_tell", "insufficient_evidence"}
PACKET_DIR = "adjudication"
KEY_DIR = "adjudication_key"


@dataclass(frozen=True)
class Dispute:
    id: str
    item: str
    criterion: str
    by_rater: dict[str, Any]  # rater -> label


def rater_labels(gold: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """(item, criterion) -> {rater: label}, from every label file but the consensus."""
    folder = gold / "labels"
    if not folder.is_dir():
        raise InputError(folder, "no labels folder")
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for f in sorted(p for p in folder.iterdir() if p.suffix in (".jsonl", ".csv")):
        for x in read_labels(f):
            lab = x.label
            if lab.rater == CONSENSUS:
                continue
            cell = out.setdefault((lab.item, lab.criterion), {})
            if lab.rater in cell:
                raise x.error(
                    f"rater {lab.rater} labels {lab.item} / {lab.criterion} twice", field="label"
                )
            cell[lab.rater] = lab.label
    if not out:
        raise InputError(folder, "no rater labels to adjudicate (only the consensus?)")
    return out


def disputes(labels: dict[tuple[str, str], dict[str, Any]]) -> list[Dispute]:
    """Every (item, criterion) whose raters gave different labels (abstentions count as a
    label: an abstention against a decision still needs a decision), in item order."""
    out = []
    for item, criterion in sorted(labels):
        cell = labels[(item, criterion)]
        if len(cell) >= 2 and len({json.dumps(v) for v in cell.values()}) > 1:
            out.append(
                Dispute(f"d-{len(out) + 1:03d}", item, criterion, dict(sorted(cell.items())))
            )
    return out


def _criterion_text(c: Criterion) -> list[str]:
    lines = [f"**{c.title}** (`{c.id}`): {c.question}", "", f"Definition: {c.definition}"]
    if c.not_applicable_when:
        lines += ["", f"Not applicable when: {c.not_applicable_when}"]
    lines += ["", "Scale:"]
    lines += [f"- `{lv.value}` ({lv.name}): {lv.description}" for lv in c.scale.levels]
    if c.not_applicable_when:
        lines.append("- `not_applicable`: see above")
    return lines


def make_packet(gold: Path, rubric: Rubric, *, seed: int = 0) -> tuple[int, Path, Path]:
    """Write the blind packet and its key; returns (disputes, packet folder, key file)."""
    crits = {c.id: c for c in rubric.criteria}
    found = disputes(rater_labels(gold))
    rng = random.Random(seed)
    entries, key = [], {}
    md = [
        "# Adjudication packet",
        "",
        "Read `README.md` in this folder first. For each entry: read the sheet, read the "
        "criterion's definition, and decide which label is right (or another label the scale "
        "allows), with a one-sentence reason.",
        "",
    ]
    for d in found:
        if d.criterion not in crits:
            raise InputError(gold / "labels", f"criterion '{d.criterion}' is not in the rubric")
        raters = list(d.by_rater)
        rng.shuffle(raters)
        options: dict[str, Any] = {}
        mapping: dict[str, str] = {}
        for letter, rater in zip(LETTERS, raters, strict=False):
            options[letter] = d.by_rater[rater]
            mapping[letter] = rater
        sheet = f"gold/sheets/{d.item}.md"
        entries.append(
            {
                "id": d.id,
                "item": d.item,
                "sheet": sheet,
                "criterion": d.criterion,
                "options": options,
            }
        )
        key[d.id] = {"item": d.item, "criterion": d.criterion, "letters": mapping}
        shown = " / ".join(f"label {k}: `{v}`" for k, v in options.items())
        md += [
            f"## {d.id} — {d.item}, {d.criterion}",
            "",
            f"Sheet: `{sheet}`",
            "",
            *_criterion_text(crits[d.criterion]),
            "",
            f"**The two labels given:** {shown}",
            "",
        ]
    out = gold / PACKET_DIR
    write_atomic(out / "packet.md", "\n".join(md))
    write_atomic(out / "packet.jsonl", "".join(json.dumps(e) + "\n" for e in entries))
    write_atomic(out / "README.md", ADJUDICATOR_README.format(n=len(entries)))
    key_file = gold / KEY_DIR / "key.json"
    write_atomic(
        key_file,
        json.dumps(
            {
                "note": "Maps each packet letter back to a rater. Not for the adjudicator.",
                "seed": seed,
                "entries": key,
            },
            indent=1,
            sort_keys=True,
        ),
    )
    return len(entries), out, key_file


ADJUDICATOR_README = """# Blind adjudication: instructions for the adjudicator

Two annotators labeled the gold transcripts independently and disagreed on {n} (transcript,
criterion) pairs. You decide each one. The packet does not say who gave which label, and the
order of "label X / label Y" is random for each entry.

1. Read the labeling guide in full: `gold/labeling_guide.md`.
2. For each entry of `packet.md` (the same entries, machine-readable, are in `packet.jsonl`):
   read the sheet it names (`gold/sheets/gold-NNN.md`), read the criterion's definition, and
   decide the label. You may choose a label neither annotator gave, if the scale allows it.
   `cant_tell` is not a decision.
3. Write one JSON object per line to a file of your own (e.g. `DECISIONS.jsonl`), one line per
   entry, all {n} entries:

       {{"id": "d-001", "item": "gold-010", "criterion": "separates_done_from_pending",
        "label": "pass", "reason": "One sentence: why, from the records and the guide."}}

   (each object on ONE line; shown on two here for width)

   `label` is a value of the criterion's scale: `"pass"`, `"fail"`, `"not_applicable"` (only
   where the criterion allows it), or an integer 1-4 for `overall_clarity`.

Do NOT open: `gold/adjudication_key/` (which annotator gave which letter), `gold/labels/`
(the annotators' files and any earlier consensus), `gold/manifest.yaml` (the agents behind the
transcripts), `gold/safety/` (the safety checker's verdicts), `gold/transcripts/`, or the git
history of `gold/`. If you opened one by mistake, say so when you hand your file over.

The maintainer then runs `python gold/adjudicate.py apply DECISIONS.jsonl`, which checks your
file (every line is refused with its line number if it does not answer an entry of this packet
with a label the rubric allows) and writes `gold/labels/consensus.jsonl`.
"""


def _decision_error(path: Path, line: int, field: str, message: str) -> InputError:
    return InputError(path, message, line=line, field=field)


def _allowed(c: Criterion, label: Any) -> bool:
    if isinstance(label, bool) or label in ABSTAIN:
        return False
    return any(label == v and type(label) is type(v) for v in c.allowed_labels())


def read_decisions(
    path: Path, found: list[Dispute], rubric: Rubric
) -> dict[tuple[str, str], tuple[Any, str]]:
    """(item, criterion) -> (label, reason); every problem is one InputError naming the line."""
    crits = {c.id: c for c in rubric.criteria}
    by_cell = {(d.item, d.criterion): d for d in found}
    by_id = {d.id: d for d in found}
    if not path.is_file():
        raise InputError(path, "no such decisions file")
    out: dict[tuple[str, str], tuple[Any, str]] = {}
    seen_at: dict[tuple[str, str], int] = {}
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _decision_error(path, n, "line", f"not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise _decision_error(path, n, "line", "expected a JSON object")
        extra = set(data) - {"id", "item", "criterion", "label", "reason"}
        if extra:
            raise _decision_error(path, n, sorted(extra)[0], "unknown field")
        for f in ("item", "criterion", "reason"):
            if not isinstance(data.get(f), str) or not data[f].strip():
                raise _decision_error(path, n, f, "missing or empty")
        if "label" not in data:
            raise _decision_error(path, n, "label", "missing")
        cell = (data["item"], data["criterion"])
        if cell not in by_cell:
            raise _decision_error(
                path,
                n,
                "item",
                f"{cell[0]} / {cell[1]} is not disputed (the raters agree, or did not both "
                "label it): only the packet's entries take a decision",
            )
        if "id" in data and by_id.get(data["id"]) is not by_cell[cell]:
            raise _decision_error(
                path, n, "id", f"{data['id']} is not the packet entry for {cell[0]} / {cell[1]}"
            )
        c = crits[cell[1]]
        if not _allowed(c, data["label"]):
            allowed = ", ".join(json.dumps(v) for v in c.allowed_labels())
            raise _decision_error(
                path,
                n,
                "label",
                f"{json.dumps(data['label'])} is not a decision the rubric allows for "
                f"{c.id} (one of {allowed})",
            )
        if cell in seen_at:
            raise _decision_error(
                path, n, "item", f"{cell[0]} / {cell[1]} already decided on line {seen_at[cell]}"
            )
        seen_at[cell] = n
        out[cell] = (data["label"], data["reason"].strip())
    missing = [d for d in found if (d.item, d.criterion) not in out]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise InputError(
            path,
            f"no decision for {missing[0].id} ({missing[0].item} / {missing[0].criterion})"
            f"{more}: every dispute needs one",
        )
    return out


def apply(decisions_path: Path, gold: Path, rubric: Rubric) -> dict[str, int]:
    """Write labels/consensus.jsonl from agreement plus decisions; returns follow counts."""
    labels = rater_labels(gold)
    found = disputes(labels)
    decided = read_decisions(decisions_path, found, rubric)
    raters = sorted({r for cell in labels.values() for r in cell})
    followed: Counter[str] = Counter({r: 0 for r in raters} | {"neither": 0})
    lines = []
    single = 0
    for item, criterion in sorted(labels):
        cell = labels[(item, criterion)]
        row: dict[str, Any] = {"item": item, "rater": CONSENSUS, "criterion": criterion}
        if (item, criterion) in decided:
            label, reason = decided[(item, criterion)]
            who = [r for r, v in cell.items() if v == label and type(v) is type(label)]
            tag = "|".join(who) if who else "neither"
            for r in who or ["neither"]:
                followed[r] += 1
            row["label"] = label
            row["note"] = f"decision: {json.dumps(label)}; reason: {reason}; followed: {tag}"
        elif len(cell) >= 2:
            row["label"] = next(iter(cell.values()))
        else:
            single += 1  # one rater only: no consensus yet
            continue
        lines.append(json.dumps(row, ensure_ascii=False) + "\n")
    write_atomic(gold / "labels" / "consensus.jsonl", "".join(lines))
    n = len(found)
    print(f"{len(lines)} consensus labels written, {n} of them decided by adjudication")
    for r in [*raters, "neither"]:
        share = f"{followed[r] / n:.0%}" if n else "n/a"
        print(f"consensus followed {r}: {followed[r]} of {n} disagreements ({share})")
    if single:
        print(f"{single} label(s) given by one rater only were left out (no consensus yet)")
    return dict(followed)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="python gold/adjudicate.py", description=__doc__.split("\n")[0]
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    pk = sub.add_parser("packet", help="regenerate the blind packet from the rater files")
    pk.add_argument("--seed", type=int, default=0)
    ap = sub.add_parser("apply", help="write labels/consensus.jsonl from the decisions")
    ap.add_argument("decisions", type=Path)
    for s in (pk, ap):
        s.add_argument("--gold", type=Path, default=HERE)
        s.add_argument("--rubric", type=Path, default=RUBRIC)
    args = p.parse_args(argv)
    try:
        rubric = load_rubric(args.rubric)
        if args.cmd == "packet":
            n, out, key = make_packet(args.gold, rubric, seed=args.seed)
            print(f"{n} disputes written to {out}/ (key, not for the adjudicator: {key})")
        else:
            apply(args.decisions, args.gold, rubric)
    except CalibrantError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
