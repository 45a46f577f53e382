"""What a pack declares for the judge: the words its prompt and evidence say (`JudgePhrasing`),
and, where the roles of its records are not enough, its own builders of the trusted evidence
and of the customer-written text kept on its records.

The core's judge (`calibrant.judge`) is written once for every domain: its instructions leave
blanks for what the conversation is about, what the records are and what an effect is, and
the pack's phrasing fills them in; its evidence lines are built from the records' roles
(records by kind, money with its currency, quantities, version, operation ids, state fields,
customer text) unless the pack hands over a builder. A pack that declares nothing gets the
neutral words below and evidence by role.

The judge finds a transcript's or a rubric's phrasing through the installed pack of its domain
(`DomainPack.judge`), never by importing a pack; a domain no pack provides gets the neutral
words."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..contracts import Transcript

__all__ = ["EvidenceItem", "UntrustedText", "JudgePhrasing", "NEUTRAL"]


@dataclass(frozen=True)
class EvidenceItem:
    """One line of trusted evidence: the id of the record or event it comes from (what the
    judge cites), the logical time it is about, and its words (every value from outside
    calibrant a code or quoted, see `calibrant.judge.fence`)."""

    id: str
    t: int
    text: str

    def render(self) -> str:
        return f"[{self.id}] t={self.t}: {self.text}"


UntrustedText = tuple[str, int, str, str]
"""(id, t, header, text) of a text someone other than calibrant wrote (a message, a note): the
header is calibrant's words, the text is untrusted and goes inside the judge's fence."""


@dataclass(frozen=True)
class JudgePhrasing:
    """The words of a pack for the judge and the human rater.

    System message (the same bytes for every item judged with one rubric):

    - `about`: what the conversation is about ("a booking change"): "a support agent
      communicated with a customer about {about}"; None says nothing;
    - `records`: what the trusted records are, beside the tool-call log and the notification
      receiver ("bookings, tickets, approvals"); a line break in it is where the rule's line
      wraps (the rules keep lines under about 95 characters);
    - `record_line`: a line of the evidence block is "a {record_line} line" ("booking");
    - `effect`: what the judge never decides exists or was safe ("a payment").

    Evidence and the rater's guide:

    - `facts`: what the records tell a rater, in the labeling guide ("committed charges,
      ticket state, approvals");
    - `kinds`: (record kind, its noun) for the kinds the evidence should not name by their id
      (("seat_hold", "seat hold"),): "created during the conversation: seat hold h_1 of ...";
    - `fields`: (field, its label) for the fields likewise (("cod_minor_units", "cash on
      delivery"),): "parcel p_1 of dep_a: cash on delivery 19.99 EUR";
    - `lookups`: (tool, what it looks up) for the tools that look an effect up by its operation
      id: a call to one is the line "the agent looked up {what} by operation id: found|not
      found" (("query_charge", "the charge"),);
    - `evidence`: the pack's own builder of the lines about its records, for records the roles
      cannot say (None: the records by kind, before and at the end, by their roles). The core
      adds the service's log and the accepted messages, and sorts the lines by time;
    - `customer_texts`: the pack's own finder of customer-written text kept on its records
      (None: the fields with the `customer_text` role on the acting tenant's records). Every
      text it gives is fenced as untrusted."""

    about: str | None = None
    records: str = "the system\nof record's snapshots"
    record_line: str = "records"
    effect: str = "a change to the records"
    facts: str = "each record before and after"
    kinds: tuple[tuple[str, str], ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    lookups: tuple[tuple[str, str], ...] = ()
    evidence: Callable[[Transcript], Sequence[EvidenceItem]] | None = None
    customer_texts: Callable[[Transcript], Sequence[UntrustedText]] | None = None

    def problem(self) -> str | None:
        """What is wrong with the declaration, in a few words (None: nothing); the pack's
        check names the pack (`DomainPack`)."""
        words = {
            "records": self.records,
            "record_line": self.record_line,
            "effect": self.effect,
            "facts": self.facts,
        }
        if self.about is not None:
            words["about"] = self.about
        for name, value in words.items():
            if not isinstance(value, str) or not value.strip():
                return f"{name} must be non-empty words"
            if name != "records" and "\n" in value:
                return f"{name} must be one line"
        for name, what in (
            ("kinds", "record kind, its noun"),
            ("fields", "field, its label"),
            ("lookups", "tool, what it looks up"),
        ):
            for pair in getattr(self, name):
                if not (
                    isinstance(pair, tuple)
                    and len(pair) == 2
                    and all(isinstance(x, str) and x.strip() and "\n" not in x for x in pair)
                ):
                    return f"{name}: {pair!r} is not a ({what}) pair of one-line words"
        for name in ("evidence", "customer_texts"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                return f"{name} must be a callable or None"
        return None

    def looks_up(self, tool: str) -> str | None:
        """What a call to `tool` looks up by operation id (None: it is no lookup)."""
        return next((what for name, what in self.lookups if name == tool), None)

    def kind_noun(self, kind: str) -> str:
        """A record kind in the evidence's words (the kind itself unless `kinds` names it)."""
        return next((noun for name, noun in self.kinds if name == kind), kind)

    def field_label(self, field: str) -> str:
        """A field in the evidence's words (the field itself unless `fields` names it)."""
        return next((label for name, label in self.fields if name == field), field)


NEUTRAL = JudgePhrasing()
"""The words of a pack that declares none, and of a domain no installed pack provides."""
