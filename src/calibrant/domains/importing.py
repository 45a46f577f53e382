"""What `calibrant import` reads from a pack beyond its roles (docs/import.md).

The import rebuilds each tool call of a trace from the pack's snapshots through its roles: the
records a call returned (any kind the pack declares, found by id or address), the records new
in the 'after' snapshot it committed (by operation id, or the call its effect record names), the
grant its tool needs (`GrantSpec`). A pack whose system of record says more than the roles can
read declares it here; every rule is optional, and a pack that declares none (`ImportRules()`)
is imported by its roles alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..contracts import CommittedWrite, DomainSnapshot, ToolCall

__all__ = ["ImportRules", "MessageRule", "WriteRule"]

WriteRule = Callable[
    [Sequence[ToolCall], DomainSnapshot | None, DomainSnapshot | None],
    Mapping[str, list[CommittedWrite]],
]
"""(every call of the trace, the 'before' and 'after' snapshots) -> by call id, the writes the
system of record says each call committed."""

MessageRule = Callable[[Mapping[str, Any]], dict[str, Any] | None]
"""A message call's arguments -> the message's `recipient`, `kind`, `order_id` and
`amount_minor_units` (None: the call sent nothing the receiver would hold)."""


@dataclass(frozen=True)
class ImportRules:
    """- `scopes`: tool -> the scope its grant must hold; the agent's grant for it is looked up
      in the 'before' snapshot through the pack's `grants` (a tool not named: no scope, no
      grant);
    - `reads`: the kinds a call's answer is searched for, in this order within each tenant
      (empty: every kind, in the snapshot's order);
    - `writes`: the pack's own reading of what each call committed (None: the roles' reading,
      by operation id and `EffectSpec.call`);
    - `sent_operations`: the transcript's operation ids are those the calls of the effects'
      tools sent (`EffectSpec.tools`, `operation_argument`), answered or not (False: those of
      the writes tied to a call);
    - `message`: how a message call's arguments give the message (None: `recipient`, else "not
      in the trace", and `kind` when it is an id);
    - `unknown`: what a missing snapshot leaves unknown, in the harness error's words."""

    scopes: Mapping[str, str] = field(default_factory=dict)
    reads: tuple[str, ...] = ()
    writes: WriteRule | None = None
    sent_operations: bool = False
    message: MessageRule | None = None
    unknown: str = "the records"
