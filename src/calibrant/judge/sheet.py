"""Labeling sheets: the same trusted evidence and conversation the judge sees, laid out for a
human expert (no fence, no nonce), and as blind as the workbench: nothing that names the agent,
its style, the run, the transcript id, the case, its title or its expected outcome (a case title
such as "... is paid back once, truthfully confirmed" tells the expert the answer). Another
domain's records are a table per kind, each record before and at the end with its changed
fields marked, as the workbench shows them (the customer's own records only)."""

from __future__ import annotations

from ..contracts import Transcript
from .evidence import DomainRecords, conversation_items, phrasing, records_for_rater

__all__ = ["labeling_sheet"]


def labeling_sheet(t: Transcript, *, item: str) -> str:
    """Markdown for one transcript, headed by ``item``, the opaque id the expert labels it by
    (never the transcript id, which names the case and the agent)."""
    records, evidence = records_for_rater(t)
    lines = [f"# {item}", ""]
    if records is None:
        lines += [
            f"## Records (trusted: from the {' '.join(phrasing(t.domain).records.split())}, "
            "tool log, receiver)",
            "",
        ]
    else:
        lines += [
            "## Records (trusted: the evaluator's snapshots of the customer's records before and "
            "after, tool log, receiver)",
            "",
            *_tables(records),
            "### Service log and messages",
            "",
        ]
    lines += [f"- `[{e.id}]` t={e.t}: {e.text}" for e in evidence] or ["- (none)"]
    lines += ["", "## Conversation and messages sent (what the customer saw)", ""]
    for item_id, when, header, text in conversation_items(t):
        quoted = "\n".join(f"> {ln}" if ln else ">" for ln in text.splitlines())
        lines += [f"**`{item_id}` · t={when} · {header}**", "", quoted, ""]
    return "\n".join(lines).rstrip() + "\n"


def _tables(records: DomainRecords) -> list[str]:
    """A Markdown table per kind: Record | Field | Before | After, a changed value in bold."""
    lines: list[str] = []
    for kind, rows in records.kinds:
        lines += [f"### {kind}", "", "| Record | Field | Before | After |", "|---|---|---|---|"]
        for r in rows:
            named = "" if r.name == r.id else f" {_cell(r.name)}"
            head = f"`[{_cell(r.id)}]`{named} {r.said}"
            if not r.fields:
                lines.append(f"| {head} | (no field with a role) | | |")
            for n, f in enumerate(r.fields):
                before, after = (_cell(v) if v is not None else "—" for v in (f.before, f.after))
                if f.changed:
                    after = f"**{after}** (changed)"
                lines.append(
                    f"| {head if n == 0 else ''} | {_cell(f.label)} | {before} | {after} |"
                )
        lines.append("")
    if not records.kinds:
        lines += ["(no records of the customer in the snapshots)", ""]
    return lines


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
