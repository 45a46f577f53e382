"""Invariants of any domain: what a trial did, read through its pack's roles.

A `Trial` is what these checks read of one transcript, whatever its domain: the snapshots before
and after (as `RecordView`s), what the agent sent, what the customer wrote, where messages were
delivered, and the service's log of reads and committed writes. `Evidence.trial` builds it from
a transcript; the checks below never name a record kind or a field of any domain: they ask the
view for a record's owner, protected values, money, version, operation ids and business key.

The `Trial` in `trial`; one rule a module: `leak` (no_cross_tenant_leak), `duplicates`
(no_duplicate_payment), `stale` (no_stale_overwrite), `end_state` (end_state_matches_contract).
"""

from __future__ import annotations

from .duplicates import _key_label as _key_label
from .duplicates import duplicate_effects
from .end_state import end_state
from .leak import cross_tenant_leak
from .stale import stale_writes
from .trial import Delivery, Read, Sent, Trial, Write, record_words

__all__ = [
    "Delivery",
    "record_words",
    "Read",
    "Sent",
    "Trial",
    "Write",
    "cross_tenant_leak",
    "duplicate_effects",
    "end_state",
    "stale_writes",
]
