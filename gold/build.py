"""Build the gold transcripts: python gold/build.py [--force | --add | --resplit | --verdicts]

Runs the controlled service with the scripted agents across every case and wording style, then
writes gold/transcripts/*.json, gold/sheets/*.md (what the experts label), gold/manifest.yaml
(case, agent, style, split, tags, calibration pairs) and gold/safety/verdicts.json (the
checker's verdicts, kept beside the labels, never mixed into them). Labels live in
gold/labels/ and are made by people from the labeling guide and the sheets; rebuilding the
transcripts invalidates them, so this refuses to overwrite unless --force is given.

--add      builds only the transcripts of EXTRA that the manifest does not hold yet, under new
           item ids after the highest one, and touches no existing file but the manifest and
           the verdicts (entries added). A new transcript whose conversation repeats an
           existing one is skipped. New items go to their case's split and have no labels.
--resplit  rewrites only the manifest's splits: whole cases, cases whose transcripts are
           near-duplicates kept together, chosen from the consensus labels so both splits
           cover every criterion's label values (calibrant.gold.choose_case_split)."""

from __future__ import annotations

import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

from calibrant.contracts import Transcript
from calibrant.files import load_case, write_atomic
from calibrant.gold import (
    case_groups,
    choose_case_split,
    conversation_text,
    read_manifest,
    split_problems,
)
from calibrant.harness import run_trial
from calibrant.judge.sheet import labeling_sheet
from calibrant.safety import check_transcript

HERE = Path(__file__).resolve().parent
CASES = HERE.parent / "cases"
STYLES = ["excellent", "ordinary", "terse", "misleading"]
TARGETS = {
    "retry-without-reconcile": "timeout_after_payment_commit",
    "cross-tenant": "cross_tenant_lookup_broken_guard",
    "premature-claim": "eligible_damaged_order",
    "note-obeyer": "policy_in_customer_note",
    "stale-writer": "concurrent_order_change",
    "pays-before-approval": "approval_required",
}
SEED = 2026


def plan() -> list[tuple[str, str, str, int]]:
    """(case, behaviour, style, seed) for every gold transcript."""
    cases = sorted(p.stem for p in CASES.glob("*.yaml"))
    out = [(c, "correct", s, SEED) for c in cases for s in STYLES]
    out += [(c, b, s, SEED) for b, c in TARGETS.items() for s in STYLES]
    out += [
        (c, "premature-claim", s, SEED)
        for c in ("revoked_permission", "timeout_after_payment_commit", "concurrent_order_change")
        for s in ("excellent", "ordinary")
    ]
    out += [
        (c, "retry-without-reconcile", s, SEED)
        for c in ("crash_before_checkpoint", "crash_after_notification_accept")
        for s in ("excellent", "ordinary", "terse")
    ]
    out += [
        (c, "correct", s, SEED + n)
        for n in (1, 2)
        for c in (
            "eligible_damaged_order",
            "approval_required",
            "timeout_after_payment_commit",
            "revoked_permission",
        )
        for s in ("excellent", "ordinary")
    ]
    return out


PAIRS = [(case, behaviour) for behaviour, case in TARGETS.items()]

# Added after the first 92 were labeled (--add), to give each split more of the label values it
# had least of (computed from the consensus with --resplit): access failures the agent hides or
# reports, excellent wording, and conversations the first set lacked for these cases.
EXTRA: list[tuple[str, str, str, int]] = [
    *[("revoked_permission", "premature-claim", s, SEED) for s in ("terse", "misleading")],
    *[("revoked_permission", "cross-tenant", s, SEED) for s in ("excellent", "terse")],
    ("crash_after_notification_accept", "retry-without-reconcile", "misleading", SEED),
    *[
        ("crash_after_notification_accept", "premature-claim", s, SEED)
        for s in ("excellent", "terse", "misleading")
    ],
    *[("approval_required", "cross-tenant", s, SEED) for s in ("excellent", "misleading")],
    *[("concurrent_order_change", "premature-claim", s, SEED) for s in ("terse", "misleading")],
    *[
        ("timeout_after_payment_commit", "premature-claim", s, SEED)
        for s in ("terse", "misleading")
    ],
    *[("crash_before_checkpoint", "premature-claim", s, SEED) for s in ("excellent", "terse")],
]


def _trial(cases: dict[str, object], spec: tuple[str, str, str, int], scratch: Path, item: str):
    case_id, behaviour, style, seed = spec
    t = run_trial(
        cases[case_id],  # type: ignore[arg-type]
        f"scripted:{behaviour}/{style}",
        trial=1,
        seed=seed,
        workdir=scratch,
    )
    t.transcript_id = item
    return t


def _entry(
    spec: tuple[str, str, str, int], tags: list[str], pair: dict[str, str] | None
) -> dict[str, object]:
    case_id, behaviour, style, seed = spec
    return {
        "case": case_id,
        "agent": f"scripted:{behaviour}",
        "style": style,
        "seed": seed,
        "tags": tags,
        "pair": pair,
    }


def _sheets() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in (HERE / "sheets").glob("*.md")}


def _write_manifest(manifest: dict[str, dict[str, object]]) -> None:
    write_atomic(
        HERE / "manifest.yaml",
        yaml.safe_dump(dict(sorted(manifest.items())), sort_keys=True, allow_unicode=True),
    )


def resplit() -> None:
    """Rewrite the manifest's splits from the consensus labels (nothing else changes)."""
    manifest = yaml.safe_load((HERE / "manifest.yaml").read_text(encoding="utf-8"))
    counts: dict[str, dict[tuple[str, str], int]] = {}
    for line in (HERE / "labels" / "consensus.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            x = json.loads(line)
            per = counts.setdefault(manifest[x["item"]]["case"], {})
            key = (x["criterion"], str(x["label"]))
            per[key] = per.get(key, 0) + 1
    labeled = {
        json.loads(ln)["item"]
        for ln in (HERE / "labels" / "consensus.jsonl").read_text(encoding="utf-8").splitlines()
        if ln.strip()
    }
    sizes: dict[str, int] = {}
    for i in sorted(labeled):
        sizes[manifest[i]["case"]] = sizes.get(manifest[i]["case"], 0) + 1
    groups = case_groups({i: m["case"] for i, m in manifest.items()}, _sheets())
    split = choose_case_split(counts, sizes, groups)
    for m in manifest.values():
        m["split"] = split[m["case"]]
    _write_manifest(manifest)
    print("groups kept together:", "; ".join(", ".join(g) for g in groups if len(g) > 1))
    for name in ("calibration", "heldout"):
        cases = [c for c, s in split.items() if s == name]
        n = sum(1 for m in manifest.values() if m["split"] == name)
        print(f"{name}: {n} items, cases {', '.join(cases)}")
    values = sorted({v for c in counts.values() for v in c})
    for v in values:
        cal = sum(n.get(v, 0) for c, n in counts.items() if split[c] == "calibration")
        held = sum(n.get(v, 0) for c, n in counts.items() if split[c] == "heldout")
        print(f"  {v[0]}={v[1]}: calibration {cal}, heldout {held}")


def add() -> None:
    """Build the EXTRA transcripts the manifest lacks, under new ids; existing files stay."""
    manifest = yaml.safe_load((HERE / "manifest.yaml").read_text(encoding="utf-8"))
    split_of = {m["case"]: m["split"] for m in manifest.values()}
    have = {(m["case"], m["agent"], m["style"], m["seed"]) for m in manifest.values()}
    todo = [s for s in EXTRA if (s[0], f"scripted:{s[1]}", s[2], s[3]) not in have]
    if not todo:
        print("nothing to add")
        return
    cases = {p.stem: load_case(p) for p in CASES.glob("*.yaml")}
    seen = {conversation_text(t): i for i, t in _sheets().items()}
    rng = random.Random(SEED + len(manifest))
    rng.shuffle(todo)  # new item numbers do not reveal case or agent either
    nxt = max(int(i.rsplit("-", 1)[1]) for i in manifest) + 1
    verdicts = json.loads((HERE / "safety" / "verdicts.json").read_text(encoding="utf-8"))
    scratch = Path(tempfile.mkdtemp())
    added = []
    for spec in todo:
        case_id, behaviour, style, seed = spec
        if case_id not in split_of:
            sys.exit(f"{case_id}: no split for this case yet; run --resplit first")
        item = f"gold-{nxt:03d}"
        t = _trial(cases, spec, scratch, item)
        sheet = labeling_sheet(t, item=item)
        if conversation_text(sheet) in seen:
            print(f"skipped {spec}: same conversation as {seen[conversation_text(sheet)]}")
            continue
        seen[conversation_text(sheet)] = item
        write_atomic(HERE / "transcripts" / f"{item}.json", t.model_dump_json(indent=1))
        write_atomic(HERE / "sheets" / f"{item}.md", sheet)
        verdicts[item] = _outcomes(t)
        manifest[item] = _entry(spec, list(cases[case_id].tags), None)
        manifest[item]["split"] = split_of[case_id]
        added.append(item)
        nxt += 1
    shutil.rmtree(scratch, ignore_errors=True)
    if not added:
        print("0 transcripts added")
        return
    _write_manifest(manifest)
    _write_verdicts(verdicts)
    problems = split_problems(read_manifest(HERE / "manifest.yaml"), _sheets())
    for p in problems:
        print("split problem:", p)
    print(f"{len(added)} transcripts added: {', '.join(added)}")


def main(force: bool) -> None:
    labels = HERE / "labels"
    if (labels.exists() and any(labels.iterdir())) and not force:
        sys.exit("gold/labels/ holds labels for the current transcripts; use --force to rebuild")
    cases = {p.stem: load_case(p) for p in CASES.glob("*.yaml")}
    previous: dict[str, str] = {}
    if (HERE / "manifest.yaml").exists():
        old = yaml.safe_load((HERE / "manifest.yaml").read_text(encoding="utf-8")) or {}
        previous = {m["case"]: m["split"] for m in old.values()}
    rng = random.Random(SEED)
    for sub in ("transcripts", "sheets", "safety"):
        shutil.rmtree(HERE / sub, ignore_errors=True)
    scratch = Path(tempfile.mkdtemp())
    manifest: dict[str, dict[str, object]] = {}
    verdicts = {}
    items = plan()
    order = list(range(len(items)))
    rng.shuffle(order)  # item numbers do not reveal case or agent
    for n, idx in enumerate(order, start=1):
        case_id, behaviour, style, seed = items[idx]
        item = f"gold-{n:03d}"
        t = run_trial(
            cases[case_id], f"scripted:{behaviour}/{style}", trial=1, seed=seed, workdir=scratch
        )
        t.transcript_id = item
        write_atomic(HERE / "transcripts" / f"{item}.json", t.model_dump_json(indent=1))
        write_atomic(HERE / "sheets" / f"{item}.md", labeling_sheet(t, item=item))
        verdicts[item] = _outcomes(t)
        pair = None
        if (case_id, behaviour) in PAIRS and style == "excellent":
            pair = {"id": f"pair-{case_id}", "role": "excellent text, wrong transaction"}
        elif (
            (case_id, "correct") == (case_id, behaviour)
            and style == "ordinary"
            and seed == SEED
            and any(c == case_id for c, _ in PAIRS)
        ):
            pair = {"id": f"pair-{case_id}", "role": "ordinary text, correct operation"}
        manifest[item] = _entry(items[idx], list(cases[case_id].tags), pair)
    # split: by whole case, as the previous manifest had it (--resplit chooses it from the
    # consensus labels once they exist); a case it did not know goes to calibration for now
    for m in manifest.values():
        m["split"] = previous.get(str(m["case"]), "calibration")
    _write_manifest(manifest)
    _write_verdicts(verdicts)
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{len(manifest)} gold transcripts written")
    add()  # the transcripts added later, under the same ids as before


def _outcomes(t: Transcript) -> dict[str, str]:
    """The checker's outcome for every invariant of one transcript."""
    return {r.invariant: r.outcome for r in check_transcript(t).results}


def _write_verdicts(verdicts: dict[str, dict[str, str]]) -> None:
    (HERE / "safety").mkdir(exist_ok=True)
    write_atomic(
        HERE / "safety" / "verdicts.json",
        json.dumps(dict(sorted(verdicts.items())), indent=1, sort_keys=True),
    )


def recheck() -> None:
    """Rewrite gold/safety/verdicts.json from the stored transcripts; print what changed."""
    path = HERE / "safety" / "verdicts.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    verdicts = {
        p.stem: _outcomes(Transcript.model_validate_json(p.read_text()))
        for p in sorted((HERE / "transcripts").glob("*.json"))
    }
    for item, now in verdicts.items():
        for inv, outcome in now.items():
            if old.get(item, {}).get(inv) != outcome:
                print(f"{item} {inv}: {old.get(item, {}).get(inv)} -> {outcome}")
    _write_verdicts(verdicts)
    print(f"{len(verdicts)} gold verdicts written")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--verdicts" in args:
        recheck()
    elif "--resplit" in args:
        resplit()
    elif "--add" in args:
        add()
    else:
        main(force="--force" in args)
