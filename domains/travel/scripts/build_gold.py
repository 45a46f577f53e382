"""Build the travel pack's gold transcripts: python domains/travel/scripts/build_gold.py [--force]

Runs the pack's scripted agents (the correct one in its four wording styles, the faulty ones in
two) on every travel case through calibrant's own trial runner, and writes, under
src/calibrant_travel/data/gold/:

- transcripts/travel-gold-NNN.json (item numbers shuffled: they reveal no case or agent);
- sheets/travel-gold-NNN.md, what the annotators read (`calibrant.judge.sheet`: the trusted
  records and the conversation; nothing naming the agent, the case or its expected outcome);
- labeling_guide.md, from the pack's rubric (`calibrant rubric guide`);
- manifest.yaml (case, agent, style, seed, tags, split by whole case with the shipped gold
  set's near-duplicate rule, provenance);
- safety/verdicts.json, the checker's outcome of every invariant, kept apart from the labels.

Labels (labels/*.jsonl) are made by people from the guide and the sheets only; rebuilding the
transcripts invalidates them, so this refuses to run while labels exist unless --force."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from calibrant.contracts import Transcript
from calibrant.domains import runtime
from calibrant.files import load_case, write_atomic
from calibrant.gold import drawn_case_split
from calibrant.judge.sheet import labeling_sheet
from calibrant.safety import check_transcript

PACK = Path(__file__).resolve().parents[1] / "src" / "calibrant_travel"
CASES = PACK / "data" / "cases"
RUBRIC = PACK / "data" / "rubrics" / "rebooking_communication.yaml"
GOLD = PACK / "data" / "gold"
SEED = 2026
HELDOUT_SHARE = 0.3

STYLES = ("excellent", "ordinary", "terse", "misleading")
FAULTY = {
    # agent -> the cases where its fault shows, and the styles it is written in
    "travel-double-charger": ("timeout_after_charge_commit", "rebook_correct"),
    "travel-no-compensation": ("concurrent_change", "hold_expires"),
    "travel-premature-claim": ("charge_needs_approval", "crash_before_checkpoint"),
    "travel-cross-tenant": ("cross_tenant_lookup",),
    "travel-note-obeyer": ("note_waives_fees",),
    "travel-forwarder": ("confirmation_to_other_agency",),
}
FAULTY_STYLES = ("excellent", "misleading")


def plan() -> list[tuple[str, str, str, int]]:
    """(case, agent, style, seed) of every transcript: the correct agent in three of the four
    styles on every case (which one is left out turns with the case), the faulty agents in one
    style on each case that shows their fault (excellent and misleading in turn): excellent
    words over a wrong transaction, and wrong words over a right one, both occur."""
    cases = sorted(p.stem for p in CASES.glob("*.yaml"))
    out: list[tuple[str, str, str, int]] = []
    for i, case in enumerate(cases):
        for j, style in enumerate(STYLES):
            if j != i % len(STYLES):
                out.append((case, "travel-correct", style, SEED + i + j))
    k = 0
    for agent, its_cases in FAULTY.items():
        for case in its_cases:
            out.append((case, agent, FAULTY_STYLES[k % 2], SEED + 100 + k))
            k += 1
    return out


def main(force: bool) -> None:
    labels = GOLD / "labels"
    if labels.exists() and any(labels.iterdir()) and not force:
        sys.exit(f"{labels} holds labels for the current transcripts; use --force to rebuild")
    cases = {p.stem: load_case(p) for p in CASES.glob("*.yaml")}
    rt = runtime("travel")
    items = plan()
    order = list(range(len(items)))
    random.Random(SEED).shuffle(order)
    scratch = Path(tempfile.mkdtemp(prefix="travel-gold-"))
    built: dict[str, tuple[Transcript, str, tuple[str, str, str, int]]] = {}
    seen: dict[str, str] = {}
    try:
        for idx in order:
            case_id, agent, style, seed = items[idx]
            name = f"scripted:{agent}/{style}"
            t = rt.run_trial(
                cases[case_id],
                name,
                trial=1,
                seed=seed,
                workdir=scratch,
                agent_factory=rt.make_agent,
            )
            item = f"travel-gold-{len(built) + 1:03d}"
            t.transcript_id = item
            sheet = labeling_sheet(t, item=item)
            said = "\n".join(x.text for x in t.conversation)
            if said in seen:  # the same words as another item: nothing new to label
                print(f"skipped {case_id} {name}: same conversation as {seen[said]}")
                continue
            seen[said] = item
            built[item] = (t, sheet, items[idx])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    by_case = {item: spec[0] for item, (_, _, spec) in built.items()}
    sheets = {item: sheet for item, (_, sheet, _) in built.items()}
    split = drawn_case_split(by_case, sheets, set(), share=HELDOUT_SHARE)
    for sub in ("transcripts", "sheets", "safety"):
        shutil.rmtree(GOLD / sub, ignore_errors=True)
    manifest: dict[str, dict[str, object]] = {}
    verdicts: dict[str, dict[str, str]] = {}
    for item, (t, sheet, (case_id, agent, style, seed)) in built.items():
        write_atomic(GOLD / "transcripts" / f"{item}.json", t.model_dump_json(indent=1))
        write_atomic(GOLD / "sheets" / f"{item}.md", sheet)
        manifest[item] = {
            "domain": "travel",
            "case": case_id,
            "agent": f"scripted:{agent}",
            "style": style,
            "seed": seed,
            "tags": list(cases[case_id].tags),
            "split": split[case_id],
            "pair": None,
            "provenance": "travel pack's scripted agent, templated wording "
            "(calibrant_travel/wording.py)",
        }
        verdicts[item] = {r.invariant: r.outcome for r in check_transcript(t).results}
    write_atomic(GOLD / "manifest.yaml", yaml.safe_dump(manifest, sort_keys=True))
    write_atomic(
        GOLD / "safety" / "verdicts.json", json.dumps(verdicts, indent=1, sort_keys=True) + "\n"
    )
    guide = subprocess.run(
        [sys.executable, "-m", "calibrant", "rubric", "guide", str(RUBRIC)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    write_atomic(GOLD / "labeling_guide.md", guide)
    held = sorted({c for c, s in split.items() if s == "heldout"})
    print(
        f"{len(manifest)} transcripts from {len(set(by_case.values()))} cases; "
        f"held out: {', '.join(held) or 'none'}"
    )


if __name__ == "__main__":
    main(force="--force" in sys.argv[1:])
