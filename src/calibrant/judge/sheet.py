"""Labeling sheets: the same trusted evidence and conversation the judge sees, laid out for a
human expert (no fence, no nonce, and nothing that names the agent or its style)."""

from __future__ import annotations

from ..contracts import Transcript
from .evidence import conversation_items, trusted_evidence

__all__ = ["labeling_sheet"]


def labeling_sheet(t: Transcript, *, item: str | None = None) -> str:
    """Markdown for one transcript."""
    title = t.case.title if t.case and t.case.title else t.case_id
    lines = [
        f"# {item or t.transcript_id}",
        "",
        f"Case: `{t.case_id}` — {title}",
        "",
        "## Records (trusted: from the ledger, tickets, approvals, tool log, receiver)",
        "",
    ]
    lines += [f"- `[{e.id}]` t={e.t}: {e.text}" for e in trusted_evidence(t)] or ["- (none)"]
    lines += ["", "## Conversation and messages sent (what the customer saw)", ""]
    for item_id, when, header, text in conversation_items(t):
        quoted = "\n".join(f"> {ln}" if ln else ">" for ln in text.splitlines())
        lines += [f"**`{item_id}` · t={when} · {header}**", "", quoted, ""]
    return "\n".join(lines).rstrip() + "\n"
