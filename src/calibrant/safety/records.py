"""The records of a snapshot read by role live in `calibrant.domains.records` (the judge reads
them too); `safety.evidence` still imports them from here."""

from ..domains.records import Entry, Money, RecordView

__all__ = ["Entry", "Money", "RecordView"]
