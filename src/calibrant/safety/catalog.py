"""Which invariants there are, and which a domain's transcript is checked by: calibrant's own
(imported here, so they are registered), then the pack's."""

from __future__ import annotations

from . import invariants  # noqa: F401  (registration happens on import of the rule modules)
from .registry import Invariant, registry

__all__ = ["registered", "for_domain"]


def registered() -> list[Invariant]:
    """All registered invariants, in registration order."""
    return registry()


def for_domain(domain: str) -> list[Invariant]:
    """The invariants a transcript of `domain` is checked by: every registered one (each reads
    the roles the pack declares; one whose roles the pack does not declare says
    not_applicable), then the domain pack's own invariants
    (`PackRuntime.invariants()`), in the pack's order. A pack that is not installed or has no
    runtime adds none (its transcripts' record-reading invariants then say why). A pack
    invariant named like a core one is refused in one line."""
    from ..contracts import LEGACY_DOMAIN
    from ..domains import UnknownDomain, runtime
    from ..errors import CalibrantError

    core = registered()
    if domain == LEGACY_DOMAIN:
        return core
    try:
        own = list(runtime(domain).invariants())
    except UnknownDomain:
        return core
    taken = {inv.name for inv in core}
    out = list(core)
    for inv in own:
        if inv.name in taken:
            raise CalibrantError(
                f"domain pack '{domain}': invariant '{inv.name}' is named like another "
                "invariant; a pack's invariants need names of their own"
            )
        taken.add(inv.name)
        out.append(Invariant(name=inv.name, summary=inv.summary, check=inv.check, by_role=True))
    return out
