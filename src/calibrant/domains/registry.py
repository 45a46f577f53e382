"""Finding the installed domain packs: entry points of the group `calibrant.domains`.

Each entry point's object is a `DomainPack`, or a callable taking no argument that returns one
(`shop = "calibrant_shop:pack"` under a distribution's
`[project.entry-points."calibrant.domains"]`); the entry point is named after the domain its
pack gives. The core never imports a pack by name, and imports a pack only when a command needs
its domain (`get`): a command on a domain's files never runs another pack's code. A pack that
cannot be loaded (its import or its function raises anything, even SystemExit or
KeyboardInterrupt; its object is not a pack; its declaration is wrong; its entry point is named
otherwise than its domain, or shares its name with another) is not loaded: it is reported in one
line naming the entry point, and the other packs stay usable. `discover` (`calibrant domains
list`) loads them all.

Packs are looked up once per process; `refresh()` forgets what was found (a test that installs
a pack, a long-lived process after `pip install`)."""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from ..contracts import forms
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
    "declared",
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
    """The pack an entry point declares; any failure is one line (never a traceback). The
    pack's code may raise anything, SystemExit and KeyboardInterrupt included: a pack never
    ends the command that loads it, nor decides its exit status."""
    try:
        obj = ep.load()
    except CalibrantError as exc:
        raise CalibrantError(str(exc)) from None
    except BaseException as exc:  # a third-party import: anything it raises is the pack's
        raise CalibrantError(f"cannot import it: {type(exc).__name__}: {_one_line(exc)}") from None
    if not isinstance(obj, DomainPack) and callable(obj):
        try:
            obj = obj()
        except CalibrantError as exc:
            raise CalibrantError(str(exc)) from None
        except BaseException as exc:
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
def _entry_points() -> dict[str, tuple[EntryPoint, ...]]:
    """The group's entry points by name, read from the installed metadata (nothing imported);
    one distribution seen twice on sys.path counts once."""
    out: dict[str, list[EntryPoint]] = {}
    seen: set[tuple[str, str]] = set()
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        if (ep.name, ep.value) not in seen:
            seen.add((ep.name, ep.value))
            out.setdefault(ep.name, []).append(ep)
    return {name: tuple(eps) for name, eps in out.items()}


_LOADED: dict[str, InstalledPack | tuple[BrokenPack, ...]] = {}
_lock = threading.RLock()


def _named(name: str) -> InstalledPack | tuple[BrokenPack, ...]:
    """The pack of the entry point named `name` (loaded once per process), or why there is
    none: two entry points of that name (neither loaded: which one a file means would be a
    guess), or the one failing to load."""
    with _lock:
        if name in _LOADED:
            return _LOADED[name]
        eps = _entry_points().get(name, ())
        found: InstalledPack | tuple[BrokenPack, ...]
        if len(eps) > 1:
            labels = ", ".join(f"'{_label(ep)}'" for ep in eps)
            why = f"the entry points {labels} all declare domain '{name}'; uninstall one"
            found = tuple(BrokenPack(_label(ep), _dist(ep), why) for ep in eps)
        else:
            (ep,) = eps
            try:
                pack = _load(ep)
            except CalibrantError as exc:
                found = (BrokenPack(_label(ep), _dist(ep), str(exc)),)
            else:
                if pack.name == name:
                    found = InstalledPack(pack, _label(ep), _dist(ep))
                    if pack.form is not None:
                        forms.register(pack.form)
                else:
                    why = (
                        f"it gives domain '{pack.name}': name the entry point after its "
                        f"domain ({pack.name} = {ep.value})"
                    )
                    found = (BrokenPack(_label(ep), _dist(ep), why),)
        _LOADED[name] = found
        return found


def discover() -> Discovery:
    """Load every entry point of the group (once per process); packs by name, and the broken
    ones."""
    packs: dict[str, InstalledPack] = {}
    bad: list[BrokenPack] = []
    for name in sorted(_entry_points()):
        found = _named(name)
        if isinstance(found, InstalledPack):
            packs[name] = found
        else:
            bad.extend(found)
    return Discovery(packs, tuple(bad))


def refresh() -> None:
    """Forget the packs found: the next call looks the entry points up again."""
    with _lock:
        _entry_points.cache_clear()
        _LOADED.clear()
        _RUNTIMES.clear()
        forms.forget()


def available() -> list[InstalledPack]:
    """Every usable installed pack, by name (every pack is loaded)."""
    found = discover().packs
    return [found[n] for n in sorted(found)]


def broken() -> tuple[BrokenPack, ...]:
    """Every entry point that gave no usable pack (every pack is loaded)."""
    return discover().broken


def get(name: str) -> InstalledPack:
    """The installed pack of domain `name`, loading no other pack; an unknown (or broken) one
    is one line saying which packs are installed (or why it cannot be loaded)."""
    if name in _entry_points():
        found = _named(name)
        if isinstance(found, InstalledPack):
            return found
        raise UnknownDomain(f"domain '{name}': {found[0]}")
    installed = ", ".join(sorted(_entry_points())) or "none"
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
    except BaseException as exc:  # the pack's code: one line, never a traceback or an exit
        raise UnknownDomain(
            f"domain pack '{name}': building its runtime failed: {type(exc).__name__}: "
            f"{_one_line(exc)}"
        ) from None
    _RUNTIMES[name] = made
    return made


@contextmanager
def declared(
    packs: Mapping[str, str],
    *,
    distribution: str = "calibrant-pack-declared",
    version: str = "0",
) -> Iterator[Path]:
    """Packs declared as `pip install` would declare them, without installing anything: a
    distribution's metadata (`<distribution>-<version>.dist-info`, its `entry_points.txt`
    naming each domain's `module:object` in the group `calibrant.domains`) in a folder put on
    `sys.path` while the block runs; the packs' code is imported from wherever `sys.path` finds
    it (a pack's own `src` folder). The packs found are forgotten on entry and on exit, so what
    runs after the block sees only the packs installed for real. Yields the temporary folder."""
    site = Path(tempfile.mkdtemp(prefix="calibrant-declared-"))
    dist = re.sub(r"[^A-Za-z0-9.]+", "_", distribution)
    info = site / f"{dist}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = "".join(f"{name} = {target}\n" for name, target in packs.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}", encoding="utf-8")
    sys.path.append(str(site))
    refresh()
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        refresh()
        shutil.rmtree(site, ignore_errors=True)
