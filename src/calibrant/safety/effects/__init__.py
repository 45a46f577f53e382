"""Rules about the effects a pack declares (`EffectSpec`, `Confirmation`), read by role.

An effect is a record the agent's work commits and the business counts: a shop's credit notes,
a travel agency's charges. Each rule here reads what the pack declares about it (the
record it acts on, its amount, when and by whom it was committed, what bounds it, what approval
gates it, which policy must be read first, which messages confirm it) and never names a record
kind or a field of any domain. A pack that declares none of a rule's roles gets not_applicable
with the reason.

One rule a module: `bound` (effects_within_bound), `approval` (approval_before_payment),
`policy` (policy_read_before_effect), `notes` (customer_note_not_obeyed); what they read off the
pack's roles in `roles`."""

from __future__ import annotations

from .approval import approval_gates, approval_required
from .bound import effects_within_bound
from .notes import notes_not_obeyed
from .policy import policy_read_first
from .roles import _find as _find
from .roles import _int as _int
from .roles import _of_subject as _of_subject
from .roles import _plural as _plural
from .roles import new_effects

__all__ = [
    "approval_gates",
    "approval_required",
    "effects_within_bound",
    "new_effects",
    "notes_not_obeyed",
    "policy_read_first",
]
