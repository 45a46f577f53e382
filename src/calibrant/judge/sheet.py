"""Labeling sheets: the same trusted evidence and conversation the judge sees, laid out for a
human expert (no fence, no nonce), and as blind as the workbench: nothing that names the agent,
its style, the run, the transcript id, the case, its title or its expected outcome (a case title
such as "... is refunded once, truthfully confirmed" tells the expert the answer)."""

from __future__ import annotations

from ..contracts import Transcript
from .evidence import conversation_items, trusted_evidence

__all__ = ["labeling_sheet"]


def labeling_sheet(t: Transcript, *, item: str) -> str:
    """Markdown for one transcript, headed by ``item``, the opaque id the expert labels it by
    (never the transcript id, which names the case and the agent)."""
    lines = [
        f"# {item}",
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
