"""Where a command's default rubric, gold set and cases come from: the installed pack of its
domain (the pack that reads files naming no domain, unless the command names another), found
from the pack's own files,
never from the working directory. Every face asks here: the command line, the service's job
parameters and the worker, so `calibrant calibrate` run from /tmp reads the same gold set as
from the repository.

A path the user gives is not resolved here: it stays relative to the user's working directory.
A pack installed without its data (a declared folder that does not exist) is one line naming
the pack, the missing folder and the option to pass instead."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from ..contracts.forms import NoForm, unnamed_domain
from ..errors import ConfigError
from .registry import get

__all__ = ["default_domain", "PackData", "pack_data", "default_rubric", "default_gold"]


def default_domain() -> str:
    """The domain of a command that names none: the installed pack's that reads files naming
    none, as before domains existed (one line, exit 2, when no installed pack does)."""
    try:
        return unnamed_domain("command")
    except NoForm as exc:
        raise ConfigError(f"{exc}; or pass --domain") from None


PackData = Literal["rubrics", "cases", "gold"]
"""What a pack ships: its rubrics folder, its cases folder, its gold set folder."""

_OPTION: dict[PackData, str] = {"rubrics": "--rubric", "cases": "--cases", "gold": "--gold"}


def pack_data(what: PackData, domain: str | None = None, *, option: str | None = None) -> Path:
    """The folder of `what` the installed pack of `domain` (default: `default_domain()`) declares,
    found from the pack's own files. One line (exit 2) when the pack is not installed, declares
    no such folder, or the folder is not there; `option` names what the user passes instead
    (default --rubric, --cases or --gold)."""
    name = domain or default_domain()
    installed = get(name)  # UnknownDomain, one line, when no such pack is installed
    folder: Path | None = getattr(installed.pack, what)
    instead = option or _OPTION[what]
    who = f"domain pack '{name}' ({installed.entry_point})"
    if folder is None:
        raise ConfigError(f"{who} ships no {_noun(what)}: pass {instead} PATH")
    if not folder.is_dir():
        raise ConfigError(
            f"{who} is installed without its {_noun(what)}: {folder} does not exist; "
            f"pass {instead} PATH (or install the pack with its data)"
        )
    return folder


def default_gold(domain: str | None = None, *, option: str | None = None) -> Path:
    """The gold set folder of the installed pack of `domain` (default: `default_domain()`)."""
    return pack_data("gold", domain, option=option)


def default_rubric(domain: str | None = None, *, option: str | None = None) -> Path:
    """The rubric of the installed pack of `domain` (default: `default_domain()`): the one rubric
    file (YAML) of its rubrics folder. A pack shipping several has no default: one line listing
    them, pass --rubric."""
    folder = pack_data("rubrics", domain, option=option)
    found = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    instead = option or _OPTION["rubrics"]
    who = f"domain pack '{domain or default_domain()}'"
    if not found:
        raise ConfigError(f"{who}: its rubrics folder {folder} holds no rubric; pass {instead}")
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise ConfigError(
            f"{who} ships {len(found)} rubrics in {folder} ({names}): none is the default; "
            f"pass {instead}"
        )
    return found[0]


def _noun(what: PackData) -> str:
    return {"rubrics": "rubrics folder", "cases": "cases folder", "gold": "gold set"}[what]
