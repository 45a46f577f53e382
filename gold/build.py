"""Build the gold transcripts: python gold/build.py [--force | --verdicts]

Runs the controlled service with the scripted agents across every case and wording style, then
writes gold/transcripts/*.json, gold/sheets/*.md (what the experts label), gold/manifest.yaml
(case, agent, style, split, tags, calibration pairs) and gold/safety/verdicts.json (the
checker's verdicts, kept beside the labels, never mixed into them). Labels live in
gold/labels/ and are made by people from the labeling guide and the sheets; rebuilding the
transcripts invalidates them, so this refuses to overwrite unless --force is given.

--verdicts re-checks the stored transcripts (nothing else is touched) and rewrites only
gold/safety/verdicts.json: what to run after a checker change, since labels stay valid."""

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


def main(force: bool) -> None:
    labels = HERE / "labels"
    if (labels.exists() and any(labels.iterdir())) and not force:
        sys.exit("gold/labels/ holds labels for the current transcripts; use --force to rebuild")
    cases = {p.stem: load_case(p) for p in CASES.glob("*.yaml")}
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
        manifest[item] = {
            "case": case_id,
            "agent": f"scripted:{behaviour}",
            "style": style,
            "seed": seed,
            "tags": list(cases[case_id].tags),
            "pair": pair,
        }
    # split: stratified by (case, agent kind), pairs kept together, ~60% calibration
    groups: dict[tuple[str, bool], list[str]] = {}
    for item, m in manifest.items():
        groups.setdefault((str(m["case"]), m["agent"] == "scripted:correct"), []).append(item)
    for key in sorted(groups):
        members = sorted(groups[key])
        rng.shuffle(members)
        cut = max(1, round(len(members) * 0.6))
        for i, item in enumerate(members):
            manifest[item]["split"] = "calibration" if i < cut else "heldout"
    for item, m in manifest.items():
        if m["pair"]:
            manifest[item]["split"] = "calibration"
    write_atomic(
        HERE / "manifest.yaml",
        yaml.safe_dump(dict(sorted(manifest.items())), sort_keys=True, allow_unicode=True),
    )
    _write_verdicts(verdicts)
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{len(manifest)} gold transcripts written")


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
    if "--verdicts" in sys.argv[1:]:
        recheck()
    else:
        main(force="--force" in sys.argv[1:])
