"""Finding the installed domain packs: entry points of the group `calibrant.domains`.

Each entry point's object is a `DomainPack`, or a callable taking no argument that returns one
(`refunds = "calibrant_refunds:pack"` under a distribution's
`[project.entry-points."calibrant.domains"]`).
The core never imports a pack by name. A pack that cannot be loaded (its import fails, its object
is not a pack, its declaration is wrong, its name is taken by another entry point) is not loaded:
it is reported in one line naming the entry point, and the other packs stay usable.

Packs are looked up once per process; `refresh()` forgets what was found (a test that installs
a pack, a long-lived process after `pip install`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points

from ..errors import CalibrantError
from .pack import DomainPack
from .runtime import PackRuntime

__all__ = [
    "ENTRY_POINT_GROUP",
    "InstalledPack",
    "BrokenPack",
    "Discovery",
    "UnknownDomain",
    "discover",
    "available",
    "broken",
    "get",
    "refresh",
    "runtime",
]

ENTRY_POINT_GROUP = "calibrant.domains"


class UnknownDomain(CalibrantError):
    """A domain named that no installed pack provides (or whose pack is broken)."""


@dataclass(frozen=True)
class InstalledPack:
    """A pack and where it came from: its entry point (`name = module:object`) and the
    distribution that declares it (None when the metadata does not say)."""

    pack: DomainPack
    entry_point: str
    distribution: str | None


@dataclass(frozen=True)
class BrokenPack:
    """An entry point that gave no usable pack, and why (one line)."""

    entry_point: str
    distribution: str | None
    reason: str

    def __str__(self) -> str:
        dist = f" (from {self.distribution})" if self.distribution else ""
        return f"domain pack entry point '{self.entry_point}'{dist}: {self.reason}"


@dataclass(frozen=True)
class Discovery:
    """Every pack found, by name, and every entry point that gave none."""

    packs: dict[str, InstalledPack]
    broken: tuple[BrokenPack, ...]


def _label(ep: EntryPoint) -> str:
    return f"{ep.name} = {ep.value}"


def _dist(ep: EntryPoint) -> str | None:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return None
    name = dist.metadata["Name"] if dist.metadata is not None else None
    return f"{name} {dist.version}" if name else None


def _load(ep: EntryPoint) -> DomainPack:
    """The pack an entry point declares; any failure is one line (never a traceback)."""
    try:
        obj = ep.load()
    except CalibrantError as exc:
        raise CalibrantError(str(exc)) from None
    except Exception as exc:  # a third-party import: any error is the pack's, said in one line
        raise CalibrantError(f"cannot import it: {type(exc).__name__}: {_one_line(exc)}") from None
    if not isinstance(obj, DomainPack) and callable(obj):
        try:
            obj = obj()
        except CalibrantError as exc:
            raise CalibrantError(str(exc)) from None
        except Exception as exc:
            raise CalibrantError(
                f"calling it failed: {type(exc).__name__}: {_one_line(exc)}"
            ) from None
    if not isinstance(obj, DomainPack):
        raise CalibrantError(f"it gives a {type(obj).__name__}, not a calibrant.domains.DomainPack")
    return obj


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] + ("..." if len(text) > 300 else "")


@cache
def discover() -> Discovery:
    """Load every entry point of the group once; packs by name, and the broken ones."""
    seen: set[tuple[str, str]] = set()
    found: dict[str, list[InstalledPack]] = {}
    bad: list[BrokenPack] = []
    eps = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value))
    for ep in eps:
        if (ep.name, ep.value) in seen:  # one distribution seen twice on sys.path
            continue
        seen.add((ep.name, ep.value))
        try:
            pack = _load(ep)
        except CalibrantError as exc:
            bad.append(BrokenPack(_label(ep), _dist(ep), str(exc)))
            continue
        found.setdefault(pack.name, []).append(InstalledPack(pack, _label(ep), _dist(ep)))
    packs: dict[str, InstalledPack] = {}
    for name, same in sorted(found.items()):
        if len(same) == 1:
            packs[name] = same[0]
            continue
        labels = ", ".join(f"'{p.entry_point}'" for p in same)
        for p in same:  # neither is chosen: which one a file means would be a guess
            why = f"declares domain '{name}', as do the entry points {labels}; uninstall one"
            bad.append(BrokenPack(p.entry_point, p.distribution, why))
    return Discovery(packs, tuple(bad))


def refresh() -> None:
    """Forget the packs found: the next call looks the entry points up again."""
    discover.cache_clear()
    _RUNTIMES.clear()


def available() -> list[InstalledPack]:
    """Every usable installed pack, by name."""
    return [discover().packs[n] for n in sorted(discover().packs)]


def broken() -> tuple[BrokenPack, ...]:
    """Every entry point that gave no usable pack."""
    return discover().broken


def get(name: str) -> InstalledPack:
    """The installed pack of domain `name`; an unknown (or broken) one is one line saying which
    packs are installed."""
    found = discover()
    if name in found.packs:
        return found.packs[name]
    for b in found.broken:
        if b.entry_point.split(" = ", 1)[0] == name or f"domain '{name}'" in b.reason:
            raise UnknownDomain(f"domain '{name}': {b}")
    installed = ", ".join(sorted(found.packs)) or "none"
    raise UnknownDomain(
        f"no domain pack named '{name}' is installed (installed: {installed}); "
        f"a pack is a distribution with a '{ENTRY_POINT_GROUP}' entry point"
    )


_RUNTIMES: dict[str, PackRuntime] = {}


def runtime(name: str) -> PackRuntime:
    """The runtime of domain `name`'s pack (built once per process): what runs its trials,
    serves its tools and checks its own invariants. One line when the pack is not installed,
    declares no runtime, or fails to build it."""
    if name in _RUNTIMES:
        return _RUNTIMES[name]
    installed = get(name)
    build = installed.pack.runtime
    if build is None:
        raise UnknownDomain(
            f"domain pack '{name}' ({installed.entry_point}) declares no runtime: calibrant can "
            "check, judge and calibrate its transcripts but cannot run its trials"
        )
    try:
        made = build()
    except CalibrantError:
        raise
    except Exception as exc:  # the pack's code: one line, never a traceback
        raise UnknownDomain(
            f"domain pack '{name}': building its runtime failed: {type(exc).__name__}: "
            f"{_one_line(exc)}"
        ) from None
    _RUNTIMES[name] = made
    return made
