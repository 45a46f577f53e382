"""Build the gold transcripts:
python gold/build.py [--force | --add [--strict] | --resplit | --verdicts]

Runs the controlled service with the scripted agents across every case and wording style, then
writes gold/transcripts/*.json, gold/sheets/*.md (what the experts label), gold/manifest.yaml
(case, agent, style, split, tags, calibration pairs) and gold/safety/verdicts.json (the
checker's verdicts, kept beside the labels, never mixed into them). Labels live in
gold/labels/ and are made by people from the labeling guide and the sheets; rebuilding the
transcripts invalidates them, so this refuses to overwrite unless --force is given.

--add      builds only the transcripts the manifest does not hold yet (EXTRA, NEW_SCRIPTED, V3_SCRIPTED and
           every hand-written variant in gold/replies/), under new item ids after the highest
           one (shuffled), and touches no existing transcript or sheet: the manifest and the
           verdicts gain entries, the splits are recomputed by the rule, and
           gold/labeling/new_items.txt lists every item without consensus labels. A new
           transcript whose conversation repeats an existing one is skipped. It refuses
           (exit 2, nothing written) when the split rule would put near-duplicates apart.
           With --strict it also refuses (exit 2, nothing written) when a new item's
           conversation or agent text is a near-duplicate of another case's item, which would
           join the two cases (and may move a held-out case to calibration): each pair named.
--resplit  rewrites only the manifest's splits by the rule (calibrant.gold.choose_case_split):
           whole cases; a case with templated wording, or joined to one by a near-duplicate
           conversation or agent text, in calibration; hand-written-only cases held out.

Hand-written items: the tool calls and ledger effects come from a scripted behaviour; the
customer-facing words (chat replies, and the emails a variant gives) come from
gold/replies/<case>.yaml, written by an AI assistant session acting as a writer for the
maintainers. The checker computes their safety verdicts from the run's evidence as for any
other item."""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from calibrant.contracts import Sampling, Transcript
from calibrant.contracts.common import money
from calibrant.files import load_case, write_atomic
from calibrant.gold import (
    TEXTS,
    case_groups,
    choose_case_split,
    conversation_text,
    new_joins,
    similar_pairs,
    split_problems,
)
from calibrant.judge.sheet import labeling_sheet
from calibrant.safety import check_transcript
from calibrant_refunds.agents import AgentContext, ScriptedAgent, make_agent
from calibrant_refunds.runner import run_trial

HERE = Path(__file__).resolve().parent
CASES = HERE.parent / "cases"
GOLD_CASES = HERE / "cases"  # gold-only cases: the shipped cases/ does not grow
REPLIES = HERE / "replies"
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


# Gold v2 (issue 18): templated transcripts on some of the new gold-only cases. Their wording
# repeats the first 108, so by the split rule these cases are in calibration.
NEW_SCRIPTED: list[tuple[str, str, str, int]] = [
    ("eligible_prior_refund", "correct", "excellent", SEED),
    ("eligible_prior_refund", "premature-claim", "terse", SEED),
    ("eligible_prior_refund", "correct", "misleading", SEED),
    ("eligible_tenant_b", "correct", "ordinary", SEED),
    ("eligible_tenant_b", "premature-claim", "excellent", SEED),
    ("eligible_tenant_b", "correct", "terse", SEED),
    ("approval_tenant_b", "correct", "excellent", SEED),
    ("approval_tenant_b", "pays-before-approval", "ordinary", SEED),
    ("approval_tenant_b", "correct", "misleading", SEED),
    ("timeout_tenant_b", "correct", "ordinary", SEED),
    ("timeout_tenant_b", "retry-without-reconcile", "excellent", SEED),
    ("timeout_tenant_b", "correct", "terse", SEED),
    ("expired_permission", "correct", "excellent", SEED),
    ("expired_permission", "premature-claim", "ordinary", SEED),
    ("expired_permission", "correct", "misleading", SEED),
    ("note_fixed_amount", "note-obeyer", "excellent", SEED),
    ("note_fixed_amount", "correct", "ordinary", SEED),
    ("note_fixed_amount", "correct", "terse", SEED),
    ("cross_tenant_b_asks_a", "cross-tenant", "ordinary", SEED),
    ("cross_tenant_b_asks_a", "correct", "excellent", SEED),
    ("cross_tenant_b_asks_a", "correct", "misleading", SEED),
    ("crash_notify_tenant_b", "correct", "excellent", SEED),
    ("crash_notify_tenant_b", "retry-without-reconcile", "ordinary", SEED),
    ("crash_notify_tenant_b", "correct", "terse", SEED),
    ("crash_checkpoint_reconciled", "correct", "excellent", SEED),
    ("crash_checkpoint_reconciled", "retry-without-reconcile", "terse", SEED),
    ("crash_checkpoint_reconciled", "premature-claim", "ordinary", SEED),
]
# Gold v3 (issue 31): templated transcripts on six gold-only cases built around a lost or denied
# call, so the calibration split (templated wording: by the split rule never held out) has more
# cases where reports_access_problem applies. Two a case.
V3_SCRIPTED: list[tuple[str, str, str, int]] = [
    ("cal_timeout_marta_v3", "correct", "excellent", SEED),
    ("cal_timeout_marta_v3", "retry-without-reconcile", "ordinary", SEED),
    ("cal_revoked_laia_v3", "correct", "terse", SEED),
    ("cal_revoked_laia_v3", "premature-claim", "excellent", SEED),
    ("cal_lookup_down_jordi_v3", "correct", "ordinary", SEED),
    ("cal_lookup_down_jordi_v3", "correct", "misleading", SEED),
    ("cal_notify_down_marta_b_v3", "correct", "excellent", SEED),
    ("cal_notify_down_marta_b_v3", "premature-claim", "terse", SEED),
    ("cal_expired_nuria_v3", "correct", "misleading", SEED),
    ("cal_expired_nuria_v3", "premature-claim", "ordinary", SEED),
    ("cal_crash_laia_v3", "correct", "terse", SEED),
    ("cal_crash_laia_v3", "retry-without-reconcile", "excellent", SEED),
]
TEMPLATED_PROVENANCE = "scripted agent, templated wording (src/calibrant/harness/agents/wording.py)"


def _agent(spec: tuple[str, str, str, int]) -> str:
    return f"{'handwritten' if spec[2] == 'handwritten' else 'scripted'}:{spec[1]}"


def _variants() -> dict[str, list[dict[str, Any]]]:
    """Case -> its hand-written variants (gold/replies/<case>.yaml), in file order."""
    out = {}
    for p in sorted(REPLIES.glob("*.yaml")):
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
        out[str(doc["case"])] = list(doc["variants"])
    return out


def handwritten_specs() -> list[tuple[str, str, str, int]]:
    """(case, behaviour, 'handwritten', SEED + n) for the n-th variant (from 1) of each file."""
    return [
        (case, str(v["behaviour"]), "handwritten", SEED + n)
        for case, vs in _variants().items()
        for n, v in enumerate(vs, start=1)
    ]


class _Mail:
    """The tools, with the bodies of the emails a variant gives replaced by its own words."""

    def __init__(self, ctx: AgentContext, emails: dict[str, dict[str, str]]) -> None:
        self.inner, self.ctx, self.emails = ctx.tools, ctx, emails

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        mine = self.emails.get(str(args.get("kind"))) if tool == "send_notification" else None
        if mine is not None:
            args = {
                **args,
                "subject": _fill(mine["subject"], self.ctx),
                "body": _fill(mine["body"], self.ctx),
            }
        return self.inner.call(tool, args)

    def call_json(self, tool: str, arguments: str | None) -> dict[str, Any]:
        return self.call(tool, json.loads(arguments or "{}"))


def _fill(text: str, ctx: AgentContext) -> str:
    st = ctx.load()
    return text.format(
        ref=st.get("refund_id", "pending"),
        amount=money(st.get("amount")),
        order=st.get("order", ctx.order_id),
    )


class Handwritten:
    """A scripted behaviour (tool calls, ledger effects) speaking hand-written words: reply n
    answers the case's n-th customer message."""

    version = "handwritten-1"
    model: str | None = None
    instructions_hash: str | None = None
    sampling = Sampling()

    def __init__(self, behaviour: str, variant: dict[str, Any], script: list[str]) -> None:
        self.inner = ScriptedAgent(behaviour, "ordinary")
        self.name = f"handwritten:{behaviour}"
        self.variant, self.script = variant, script

    def respond(self, ctx: AgentContext, message: str) -> str:
        mailing = dataclasses.replace(ctx, tools=_Mail(ctx, self.variant.get("emails") or {}))
        self.inner.respond(mailing, message)
        return _fill(str(self.variant["replies"][self.script.index(message)]), ctx)


def _trial(cases: dict[str, Any], spec: tuple[str, str, str, int], scratch: Path, item: str):
    case_id, behaviour, style, seed = spec
    case = cases[case_id]
    factory = make_agent
    if style == "handwritten":
        variant = _variants()[case_id][seed - SEED - 1]
        if len(variant["replies"]) != len(case.customer_script):
            sys.exit(
                f"gold/replies/{case_id}.yaml: variant {seed - SEED} has "
                f"{len(variant['replies'])} replies for {len(case.customer_script)} messages"
            )

        def factory(name: str) -> Any:
            return Handwritten(behaviour, variant, list(case.customer_script))

    name = _agent(spec) + ("" if style == "handwritten" else f"/{style}")
    t = run_trial(case, name, trial=1, seed=seed, workdir=scratch, agent_factory=factory)
    t.transcript_id = item
    return t


def _entry(
    spec: tuple[str, str, str, int], tags: list[str], pair: dict[str, str] | None
) -> dict[str, object]:
    case_id, behaviour, style, seed = spec
    provenance = TEMPLATED_PROVENANCE
    if style == "handwritten":
        provenance = (
            f"replies hand-written by an AI assistant session acting as a writer for the "
            f"maintainers (gold/replies/{case_id}.yaml, variant {seed - SEED}); tool calls and "
            f"ledger effects from scripted:{behaviour}"
        )
    return {
        "case": case_id,
        "agent": _agent(spec),
        "style": style,
        "seed": seed,
        "tags": tags,
        "pair": pair,
        "provenance": provenance,
    }


def _all_cases() -> dict[str, Any]:
    return {p.stem: load_case(p) for d in (CASES, GOLD_CASES) for p in d.glob("*.yaml")}


def _sheets() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in (HERE / "sheets").glob("*.md")}


def _write_manifest(manifest: dict[str, dict[str, object]]) -> None:
    write_atomic(
        HERE / "manifest.yaml",
        yaml.safe_dump(dict(sorted(manifest.items())), sort_keys=True, allow_unicode=True),
    )


def _refuse(message: str) -> None:
    """Stop with `message` on stderr and exit code 2 (bad input; nothing written)."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def _split(manifest: dict[str, dict[str, Any]], sheets: dict[str, str]) -> list[list[str]]:
    """Set every item's split by the rule; return the case groups kept together."""
    templated = {m["case"] for m in manifest.values() if m["style"] != "handwritten"}
    cases = {i: m["case"] for i, m in manifest.items()}
    groups = case_groups(cases, sheets, among=set(cases.values()) - templated)
    try:
        split = choose_case_split(templated, groups)
    except ValueError as exc:
        for what, text in TEXTS.items():  # why hand-written cases joined the calibration side
            for a, b, r in similar_pairs(
                sheets,
                lambda a, b: cases[a] != cases[b] and not {cases[a], cases[b]} <= templated,
                text=text,
            ):
                print(f"{a} ({cases[a]}) and {b} ({cases[b]}): {what} {r:.3f}", file=sys.stderr)
        _refuse(f"gold/manifest.yaml: {exc}")
    for m in manifest.values():
        m["split"] = split[m["case"]]
    return groups


def _report(manifest: dict[str, dict[str, Any]], groups: list[list[str]]) -> None:
    joined = [g for g in groups if len(g) > 1]
    print(
        "cases joined to another by a near-duplicate (templated cases are not compared among "
        "themselves):",
        "; ".join(", ".join(g) for g in joined) or "none",
    )
    for name in ("calibration", "heldout"):
        cases = sorted({m["case"] for m in manifest.values() if m["split"] == name})
        n = sum(1 for m in manifest.values() if m["split"] == name)
        print(f"{name}: {n} items, {len(cases)} cases: {', '.join(cases)}")


def resplit() -> None:
    """Rewrite the manifest's splits by the rule (nothing else changes)."""
    manifest = yaml.safe_load((HERE / "manifest.yaml").read_text(encoding="utf-8"))
    groups = _split(manifest, _sheets())
    problems = split_problems(_as_items(manifest), _sheets())
    if problems:
        sys.exit("gold/manifest.yaml: " + problems[0])
    _write_manifest(manifest)
    _report(manifest, groups)


def _as_items(manifest: dict[str, dict[str, Any]]) -> dict[str, Any]:
    from calibrant.gold import GoldItem

    return {i: GoldItem.model_validate(m) for i, m in manifest.items()}


def _consensus_items() -> set[str]:
    path = HERE / "labels" / "consensus.jsonl"
    if not path.exists():
        return set()
    lines = path.read_text(encoding="utf-8").splitlines()
    return {json.loads(ln)["item"] for ln in lines if ln.strip()}


def write_labeling_list(manifest: dict[str, Any]) -> list[str]:
    """gold/labeling/new_items.txt: every item of the manifest without consensus labels."""
    todo = sorted(set(manifest) - _consensus_items())
    write_atomic(HERE / "labeling" / "new_items.txt", "".join(f"{i}\n" for i in todo))
    return todo


def add(*, strict: bool = False) -> None:
    """Build the transcripts the manifest lacks, under new ids; existing files stay. `strict`:
    refuse when a new item would join its case to another by a near-duplicate."""
    manifest = yaml.safe_load((HERE / "manifest.yaml").read_text(encoding="utf-8"))
    for m in manifest.values():  # the first 108 were all templated
        m.setdefault("provenance", TEMPLATED_PROVENANCE)
    have = {(m["case"], m["agent"], m["style"], m["seed"]) for m in manifest.values()}
    wanted = [*EXTRA, *NEW_SCRIPTED, *V3_SCRIPTED, *handwritten_specs()]
    todo = [s for s in wanted if (s[0], _agent(s), s[2], s[3]) not in have]
    if not todo:
        print("nothing to add")
        return
    cases = _all_cases()
    sheets = _sheets()
    seen = {conversation_text(t): i for i, t in sheets.items()}
    rng = random.Random(SEED + len(manifest))
    rng.shuffle(todo)  # new item numbers do not reveal case, agent or source either
    nxt = max(int(i.rsplit("-", 1)[1]) for i in manifest) + 1
    verdicts = json.loads((HERE / "safety" / "verdicts.json").read_text(encoding="utf-8"))
    scratch = Path(tempfile.mkdtemp())
    built: dict[str, tuple[Transcript, str]] = {}
    for spec in todo:
        case_id = spec[0]
        if case_id not in cases:
            sys.exit(f"{case_id}: no such case in cases/ or gold/cases/")
        item = f"gold-{nxt:03d}"
        t = _trial(cases, spec, scratch, item)
        sheet = labeling_sheet(t, item=item)
        if conversation_text(sheet) in seen:
            print(f"skipped {spec}: same conversation as {seen[conversation_text(sheet)]}")
            continue
        seen[conversation_text(sheet)] = item
        built[item] = (t, sheet)
        verdicts[item] = _outcomes(t)
        manifest[item] = _entry(spec, list(cases[case_id].tags), None)
        nxt += 1
    shutil.rmtree(scratch, ignore_errors=True)
    if not built:
        print("0 transcripts added")
        return
    sheets.update({i: sh for i, (_, sh) in built.items()})
    if strict:  # nothing written yet
        templated = {m["case"] for m in manifest.values() if m["style"] != "handwritten"}
        cases_of = {i: m["case"] for i, m in manifest.items()}
        joins = new_joins(cases_of, sheets, set(built), templated)
        if joins:
            _refuse(
                "gold/build.py --add --strict: new items would join their cases to others "
                "(write the new variants' words afresh):\n" + "\n".join(joins)
            )
    groups = _split(manifest, sheets)
    problems = split_problems(_as_items(manifest), sheets)
    if problems:  # nothing written yet
        _refuse("gold/manifest.yaml: " + "\n".join(problems))
    for item, (t, sheet) in built.items():
        write_atomic(HERE / "transcripts" / f"{item}.json", t.model_dump_json(indent=1))
        write_atomic(HERE / "sheets" / f"{item}.md", sheet)
    _write_manifest(manifest)
    _write_verdicts(verdicts)
    write_labeling_list(manifest)
    _report(manifest, groups)
    print(f"{len(built)} transcripts added: {', '.join(built)}")


def main(force: bool) -> None:
    labels = HERE / "labels"
    if (labels.exists() and any(labels.iterdir())) and not force:
        sys.exit("gold/labels/ holds labels for the current transcripts; use --force to rebuild")
    cases = _all_cases()
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
        add(strict="--strict" in args)
    else:
        main(force="--force" in args)
