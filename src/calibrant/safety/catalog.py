"""Which invariants there are, and which a domain's transcript is checked by: calibrant's own
(imported here, so they are registered), under the names its pack publishes them by, then the
pack's own."""

from __future__ import annotations

from dataclasses import replace

from . import invariants  # noqa: F401  (registration happens on import of the rule modules)
from .registry import Invariant, registry

__all__ = ["registered", "for_domain"]


def registered() -> list[Invariant]:
    """All of calibrant's invariants under their generic names, in registration order."""
    return registry()


def for_domain(domain: str) -> list[Invariant]:
    """The invariants a transcript of `domain` is checked by: every registered one offered to
    its pack (each reads the roles the pack declares; one whose roles the pack does not declare
    says not_applicable), named as the pack publishes it (`DomainPack.published`), then the
    pack's own invariants (`PackRuntime.invariants()`), in the pack's order. A pack that is not
    installed adds none and renames none (its transcripts' record-reading invariants then say
    why). A published name of no invariant, or a name given twice, is refused in one line."""
    from ..domains import UnknownDomain, get, runtime
    from ..errors import CalibrantError

    core = registered()
    try:
        pack = get(domain).pack
    except UnknownDomain:
        return [inv for inv in core if inv.offered_to is None]
    who = f"domain pack '{domain}'"
    known = {inv.name for inv in core}
    for p in pack.published:
        if p.invariant not in known:
            raise CalibrantError(
                f"{who} publishes '{p.invariant}' as '{p.name}', but calibrant has no "
                f"invariant '{p.invariant}'"
            )
    out: list[Invariant] = []
    for inv in core:
        if inv.offered_to is not None and not inv.offered_to(pack):
            continue
        named = pack.published_name(inv.name)
        if named is not None:
            summary = named.summary or inv.summary
            inv = replace(inv, name=named.name, summary=summary, generic=inv.name)
        out.append(inv)
    own = [] if pack.runtime is None else runtime(domain).invariants()
    out += [Invariant(name=i.name, summary=i.summary, check=i.check) for i in own]
    taken: set[str] = set()
    for inv in out:
        if inv.name in taken:
            raise CalibrantError(
                f"{who}: invariant '{inv.name}' is named like another invariant; a pack's "
                "invariants and published names need names of their own"
            )
        taken.add(inv.name)
    return out
