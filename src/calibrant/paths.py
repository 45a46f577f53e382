"""Finding input files and writing outputs safely.

Inputs: folders are walked recursively, following linked folders once (a link loop is reported,
not followed forever); dangling links, loops and a file reached twice are *skipped and reported*,
never dropped silently. Outputs: every output path is checked before any work starts, and a
command's reports are written all or none (temporary files first, then renames)."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, overload

from .errors import ConfigError, InputError

__all__ = [
    "Skipped",
    "FileList",
    "expand_paths",
    "check_output_path",
    "write_atomic",
    "write_all_atomic",
    "StreamedOutputs",
    "component_problem",
    "portable_problem",
    "case_clash",
    "inside",
]


@dataclass(frozen=True)
class Skipped:
    """A path found under a named folder but not read, and why."""

    path: Path
    reason: str  # a short kind: dangling link, link loop, duplicate, unreadable folder
    detail: str = ""

    def as_json(self) -> dict[str, str]:
        return {"path": str(self.path), "reason": self.reason, "detail": self.detail}

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}" + (f" ({self.detail})" if self.detail else "")


class FileList(Sequence[Path]):
    """The files to read, in a stable order, plus what was found but skipped. Held as plain
    strings (a `Path` costs several times more): 100,000 files stay a few megabytes."""

    def __init__(self, files: Iterable[str | Path] = (), skipped: Iterable[Skipped] = ()) -> None:
        self._files = [str(f) for f in files]
        self.skipped: list[Skipped] = list(skipped)

    def __len__(self) -> int:
        return len(self._files)

    @overload
    def __getitem__(self, i: int) -> Path: ...
    @overload
    def __getitem__(self, i: slice) -> list[Path]: ...
    def __getitem__(self, i: int | slice) -> Path | list[Path]:
        if isinstance(i, slice):
            return [Path(f) for f in self._files[i]]
        return Path(self._files[i])

    def __iter__(self) -> Iterator[Path]:
        return (Path(f) for f in self._files)

    def summary(self, what: str = "file") -> str:
        """One line: how many were read and, if any, how many were skipped and why."""
        text = f"read {len(self)} {what}{'s' if len(self) != 1 else ''}"
        if self.skipped:
            reasons: dict[str, int] = {}
            for s in self.skipped:
                reasons[s.reason] = reasons.get(s.reason, 0) + 1
            why = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items()))
            text += f"; skipped {len(self.skipped)} ({why})"
        return text


def _link_target(p: Path) -> str:
    try:
        return os.readlink(p)
    except OSError:
        return "?"


def expand_paths(paths: Sequence[str | Path], *, suffixes: Iterable[str]) -> FileList:
    """Files named directly, plus files ending in one of `suffixes` under named folders.

    A named path that does not exist (or is a dangling link) is an InputError. Under folders,
    linked folders are followed; a link loop, a dangling link and a second path to a file
    already found are skipped and listed in ``FileList.skipped``."""
    wanted = tuple(suffixes)
    out: list[str] = []
    skipped: list[Skipped] = []
    seen_files: dict[tuple[int, int], int] = {}  # (device, inode) -> index in out

    def add(p: Path) -> None:
        st = p.stat()
        key = (st.st_dev, st.st_ino)
        at = seen_files.get(key)
        if at is None:
            seen_files[key] = len(out)
            out.append(str(p))
            return
        first = Path(out[at])
        if first.is_symlink() and not p.is_symlink():  # keep the file's own path
            out[at], p, first = str(p), first, p
        skipped.append(Skipped(p, "duplicate", f"same file as {first}"))

    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            _walk(p, wanted, add, skipped)
        elif p.is_file():
            add(p)
        elif p.is_symlink():
            raise InputError(p, f"dangling link (points to missing {_link_target(p)})")
        else:
            raise InputError(p, "no such file or folder")
    return FileList(out, skipped)


def _walk(
    root: Path,
    wanted: tuple[str, ...],
    add: Callable[[Path], None],
    skipped: list[Skipped],
) -> None:
    """Depth-first, sorted, following linked folders but never one already on the path."""

    def visit(folder: Path, ancestors: frozenset[tuple[int, int]]) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            skipped.append(Skipped(folder, "unreadable folder", str(exc.strerror)))
            return
        for entry in entries:
            p = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
                is_file = not is_dir and entry.is_file(follow_symlinks=True)
            except OSError:
                is_dir = is_file = False
            if entry.is_symlink() and not (is_dir or is_file):
                if p.name.endswith(wanted) or not p.suffix:
                    reason = "link loop" if _loops(p) else "dangling link"
                    skipped.append(Skipped(p, reason, f"points to {_link_target(p)}"))
                continue
            if is_dir:
                st = p.stat()
                key = (st.st_dev, st.st_ino)
                if key in ancestors:
                    skipped.append(Skipped(p, "link loop", f"points to {_link_target(p)}"))
                    continue
                visit(p, ancestors | {key})
            elif is_file and p.name.endswith(wanted):
                add(p)

    st = root.stat()
    visit(root, frozenset({(st.st_dev, st.st_ino)}))


def _loops(p: Path) -> bool:
    try:
        p.resolve(strict=True)
    except RuntimeError:
        return True
    except OSError as exc:
        return exc.errno == 40  # ELOOP
    return False


def check_output_path(path: Path, *, option: str) -> None:
    """Fail now, before any work, if `path` cannot be written as a file."""
    if path.is_dir():
        raise ConfigError(f"{option} {path}: is a folder; give a file name")
    if str(path).endswith(os.sep):
        raise ConfigError(f"{option} {path}: give a file name, not a folder")
    parent = path.parent
    while not parent.exists():
        if parent.is_symlink():
            raise ConfigError(f"{option} {path}: {parent} is a dangling link")
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigError(f"{option} {path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{option} {path}: cannot write in {parent}")


def write_atomic(path: str | Path, text: str) -> None:
    """Write `text` to `path` through a temporary file and a rename: never half-written."""
    write_all_atomic({Path(path): text})


def write_all_atomic(outputs: Mapping[Path, str]) -> None:
    """Write several files all or none: every temporary file is written first; only when all
    are complete are they renamed into place. Check the paths first (`check_output_path`)."""
    temps: list[tuple[Path, Path]] = []
    try:
        for path, text in outputs.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            temps.append((tmp, path))
            tmp.write_text(text, encoding="utf-8")  # a rename survives kill -9 without fsync
    except OSError as exc:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)
        raise ConfigError(f"cannot write {exc.filename}: {exc.strerror}") from None
    for tmp, path in temps:
        tmp.replace(path)


class StreamedOutputs:
    """Output files written as work goes (rows of a long batch), put in place all at once at
    the end: until `commit()`, each lives in a temporary file beside its target, so a run that
    dies leaves the previous outputs untouched and no half-written file under the real name.
    Check the paths first (`check_output_path`)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self._temps: dict[Path, Path] = {}
        self._handles: dict[Path, TextIO] = {}
        try:
            for path in paths:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                self._handles[path] = tmp.open("w", encoding="utf-8", newline="")
                self._temps[path] = tmp
        except OSError as exc:
            self.discard()
            raise ConfigError(f"cannot write {exc.filename}: {exc.strerror}") from None

    def handle(self, path: Path) -> TextIO:
        """The open text file standing in for `path`."""
        return self._handles[path]

    def commit(self) -> None:
        for fh in self._handles.values():
            fh.close()
        for path, tmp in self._temps.items():
            tmp.replace(path)
        self._temps.clear()

    def discard(self) -> None:
        for fh in self._handles.values():
            fh.close()
        for tmp in self._temps.values():
            tmp.unlink(missing_ok=True)
        self._temps.clear()


# -- names that become paths ---------------------------------------------------------------------

_RESERVED = re.compile(r"CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9]", re.IGNORECASE)
_NOT_ON_WINDOWS = set('<>:"|?*')


def component_problem(name: str) -> str | None:
    """Why `name` (an id read from input) cannot be one path component inside a folder: empty,
    '.' or '..', holding a slash, a backslash or a NUL; None when it can."""
    if name in ("", ".", ".."):
        return f"is {name!r}" if name else "is empty"
    if "/" in name or "\\" in name:
        return "holds a slash"
    if "\x00" in name:
        return "holds a NUL character"
    return None


def portable_problem(name: str, *, characters: bool = True) -> str | None:
    """Why `name` cannot be one file name on every file system a zip is unpacked on (Linux,
    macOS, Windows): `component_problem`, a '..' anywhere, a trailing dot or space, a control
    character or one of <>:"|?* (unless `characters` is False), or a name Windows reserves for
    a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with any extension); None when it can."""
    problem = component_problem(name)
    if problem is not None:
        return problem
    if ".." in name:
        return "holds '..'"
    if name[-1] in ". ":
        return "ends in a dot or a space"
    if characters and any(ord(c) < 32 or c in _NOT_ON_WINDOWS for c in name):
        return 'holds a control character or one of <>:"|?*'
    if _RESERVED.fullmatch(name.split(".")[0].rstrip(" ")):
        return "is a name Windows reserves for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9)"
    return None


def case_clash(names: Iterable[str]) -> tuple[str, str] | None:
    """Two of `names` that are one file where case (or Unicode normalization) is not told apart
    (Windows, macOS), the earlier first; None when there are none."""
    seen: dict[str, str] = {}
    for name in names:
        key = unicodedata.normalize("NFC", name).casefold()
        if key in seen:
            return seen[key], name
        seen[key] = name
    return None


def inside(folder: Path, path: Path) -> bool:
    """True when `path`, links and '..' resolved, is `folder` or under it (links and '..'
    resolved in `folder` too)."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # a link loop
        return False
