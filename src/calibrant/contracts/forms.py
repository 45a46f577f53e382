"""A pack's file form: how its users' files spell the one shape calibrant holds in memory.

In memory, a transcript of every domain holds its evaluator snapshots as `snapshot_before` and
`snapshot_after` (records by kind, `DomainSnapshot`) and names the record a write was applied
over in `target_id`, `version_before` and `version_after`. A pack whose files were written in
another spelling (fields of its own names, its own snapshot model) publishes a `FileForm`: the
functions that read its spelling into the generic shape and write it back, so its files load,
dump and hash byte for byte as they always did. A pack without a form has files in the generic
spelling.

A form also says whether files that name no domain are its own (they were written before
calibrant had domains), and the closed sets its files' record kinds, fault points and message
kinds are checked against by the contracts themselves (None: open, checked against the pack
when the file is loaded).

The contracts sit below the domain packs and never import one: a form is found through the
installed packs' entry points (group `calibrant.domains`, the pack's `form` attribute), loaded
the first time a file of its domain is read, and kept; `forget()` drops what was found (the
domain registry calls it on `refresh()`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import InitErrorDetails

from ..errors import CalibrantError

__all__ = [
    "FileForm",
    "NoForm",
    "ENTRY_POINT_GROUP",
    "form_of",
    "unnamed_form",
    "known_forms",
    "register",
    "forget",
    "moved",
    "unknown_field",
]

ENTRY_POINT_GROUP = "calibrant.domains"
"""The entry point group of the installed domain packs (`calibrant.domains.registry`)."""

Data = dict[str, Any]


class NoForm(CalibrantError):
    """A file names no domain and no installed pack reads such files."""


@dataclass(frozen=True)
class FileForm:
    """How one pack's files spell the generic shape.

    - `domain`: the pack's domain name;
    - `unnamed`: files that name no domain are this pack's (at most one installed pack says so:
      the one whose files were written before calibrant had domains); they are also written
      without the field, so their bytes and hashes do not change;
    - `record_kinds`, `fault_points`, `message_kinds`: the closed sets a transcript's reads and
      writes, its fault schedule and its messages are checked against by the contract itself,
      with the error a `Literal` field gives (None: open; the pack checks them on load);
    - `transcript_in(data)`: a transcript's data as the file spells it (a dict parsed from the
      file, or the keyword arguments a caller built it with) -> the generic spelling; raises a
      pydantic ValidationError located where the file holds the bad value;
    - `transcript_out(data, mode)`: a transcript's generic dump ("python" or "json" mode) -> the
      file's spelling;
    - `spellings`: the pack's own field names -> the generic fields they spell (named in the
      error a file of another domain gets when it uses one);
    - `setting_spellings`: the pack's own names for a case's `invariants:` settings -> the
      generic settings they spell (its files were written with them: a case and a transcript's
      copy of it read them, and write a setting the file did not spell by the pack's name);
    - `views`: attributes a transcript of this domain still answers by the pack's names, for
      code written against them (name -> function of the transcript); on a transcript of
      another domain they read None. A view is a copy: changing it changes nothing (change the
      generic field);
    - `exports`: names `calibrant.contracts` still gives for code that imported them from there
      before they moved to the pack;
    - `case_fixture`, `case_outcome`: the models a case's `fixture` and each of its `expected`
      outcomes are read with and held as (None: the generic `DomainFixture`, `DomainOutcome`);
    - `outcome_mismatches(outcome, end)`: how an outcome in the `case_outcome` model is checked:
      what keeps a trial's end (a `calibrant.domains.TrialEnd`: the records the trial
      committed and the work item, by the pack's roles) from that outcome, one line each
      (empty: it matches); the end state invariant asks it (a generic outcome is checked by
      the core, record by record);
    - `snapshot_noun`: what the pack's users call the evaluator's snapshot, in messages;
    - `snapshot_file`: the model of the snapshot files its users write, as `calibrant schema
      snapshot` prints it (None: the one built from the pack's `SnapshotSpec`)."""

    domain: str
    unnamed: bool = False
    record_kinds: tuple[str, ...] | None = None
    fault_points: tuple[str, ...] | None = None
    message_kinds: tuple[str, ...] | None = None
    transcript_in: Callable[[Data], Data] | None = None
    transcript_out: Callable[[Data, str], Data] | None = None
    spellings: Mapping[str, str] = field(default_factory=dict)
    setting_spellings: Mapping[str, str] = field(default_factory=dict)
    views: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    exports: Mapping[str, object] = field(default_factory=dict)
    case_fixture: type[BaseModel] | None = None
    case_outcome: type[BaseModel] | None = None
    outcome_mismatches: Callable[[Any, Any], list[str]] | None = None
    snapshot_noun: str = "evaluator snapshot"
    snapshot_file: type[BaseModel] | None = None


_FORMS: dict[str, FileForm | None] = {}
_UNNAMED: list[FileForm | None] = []
_lock = threading.RLock()


def register(form: FileForm) -> None:
    """Make `form` known (the domain registry does it for every pack it loads)."""
    with _lock:
        _FORMS[form.domain] = form
        if form.unnamed and not (_UNNAMED and _UNNAMED[0] is not None):
            _UNNAMED[:] = [form]


def forget() -> None:
    """Forget every form found: the next file looks the installed packs up again."""
    with _lock:
        _FORMS.clear()
        _UNNAMED.clear()


def _load(ep: Any) -> FileForm | None:
    """The form of the pack an entry point gives, or None (no form, or the pack cannot be
    loaded: the domain registry reports a broken pack in its own words)."""
    try:
        obj = ep.load()
        if callable(obj) and not hasattr(obj, "form"):
            obj = obj()
    except BaseException:  # a third-party import: reported by the registry, never here
        return None
    form = getattr(obj, "form", None)
    return form if isinstance(form, FileForm) else None


def form_of(domain: str) -> FileForm | None:
    """The form of domain `domain`'s installed pack, or None (generic spelling)."""
    with _lock:
        if domain in _FORMS:
            return _FORMS[domain]
        found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == domain]
        form = _load(found[0]) if len(found) == 1 else None
        if form is not None and form.domain != domain:
            form = None
        _FORMS[domain] = form
        if form is not None and form.unnamed and not _UNNAMED:
            _UNNAMED.append(form)
        return form


def unnamed_form() -> FileForm | None:
    """The form of the pack that reads files naming no domain, or None when no installed pack
    does. The packs are tried in name order until one claims them."""
    with _lock:
        if _UNNAMED:
            return _UNNAMED[0]
        for known in _FORMS.values():
            if known is not None and known.unnamed:
                _UNNAMED.append(known)
                return known
        names = sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})
        for name in names:
            if name in _FORMS:
                continue
            form = form_of(name)
            if form is not None and form.unnamed:
                _UNNAMED[:] = [form]
                return form
        _UNNAMED.append(None)
        return None


def known_forms() -> list[FileForm]:
    """The forms found so far, the unnamed files' pack's first (it is looked up)."""
    first = unnamed_form()
    with _lock:
        rest = [f for f in _FORMS.values() if f is not None and f is not first]
    return ([first] if first is not None else []) + rest


def unnamed_domain(what: str) -> str:
    """The domain of a file that names none; NoForm (one line) when no installed pack reads
    such files."""
    form = unnamed_form()
    if form is None:
        raise NoForm(
            f"this {what} names no domain, and no installed domain pack reads files that name "
            "none (they were written before calibrant had domains, by its first pack): install "
            "that pack (scripts/install.py installs it with calibrant), or name the file's "
            "`domain`"
        )
    return form.domain


def exported(name: str) -> object:
    """A name `calibrant.contracts` gives for a pack that moved it out (AttributeError if no
    known form exports it)."""
    for form in known_forms():
        if name in form.exports:
            return form.exports[name]
    raise AttributeError(name)


def moved(title: str, exc: ValidationError, prefix: tuple[int | str, ...]) -> ValidationError:
    """`exc`'s errors located under `prefix` (where the validated value sits in the file)."""
    details: list[InitErrorDetails] = []
    for err in exc.errors(include_url=False):
        detail = InitErrorDetails(type=err["type"], loc=(*prefix, *err["loc"]), input=err["input"])
        if "ctx" in err:
            detail["ctx"] = err["ctx"]
        details.append(detail)
    return ValidationError.from_exception_data(title, details)


def unknown_field(title: str, loc: tuple[int | str, ...], value: object) -> ValidationError:
    """The error an unknown field gives (a file naming a field its form does not spell)."""
    return ValidationError.from_exception_data(
        title, [InitErrorDetails(type="extra_forbidden", loc=loc, input=value)]
    )


def writes_unnamed(domain: str) -> bool:
    """Whether files of `domain` are written without naming it (its form claims unnamed files)."""
    form = form_of(domain)
    return form is not None and form.unnamed


def reads_itself(domain: str) -> bool:
    """Whether `domain`'s files are read by its pack's own file form (which checks them in
    full as they validate), so the loaders need not check them against the pack again."""
    form = form_of(domain)
    return form is not None and form.transcript_in is not None


def snapshot_noun(domain: str) -> str:
    """What files of `domain` call the evaluator's snapshot (its form's noun)."""
    form = form_of(domain)
    return form.snapshot_noun if form is not None else FileForm.snapshot_noun


def spelled_by(name: str, forms: Iterable[FileForm]) -> FileForm | None:
    """The first form among `forms` that spells a generic field `name`."""
    return next((f for f in forms if name in f.spellings), None)
