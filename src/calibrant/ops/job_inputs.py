"""What a job reads besides stored judges: recorded verdicts of a judge that runs elsewhere
(uploaded with the request, or a file on the server), a labeled workbench queue as the gold set,
and files and folders on the server. Each is read by the operations the CLI uses
(`calibration.load_recorded`, `gold_export.queue_gold`): checked when the job is asked for (a bad
row is a 422 naming the file, the line and the field, and nothing is queued), and again by the
worker that runs it.

A path on the server is taken relative to the data root (CALIBRANT_DATA_ROOT, default the
working directory) and, links resolved, must stay inside it (`server_path`, `server_files`). An
error about a file on the server names the file, the line and the field, never what the file
holds (`without_content`): the answer goes to a client, not to the machine's owner."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, Field
from sqlalchemy import Engine

from ..contracts.common import Contract
from ..contracts.reports.base import JsonTree
from ..errors import CalibrantError, InputError
from ..paths import expand_paths, inside
from ..settings import get_settings
from .server_paths import server_path

if TYPE_CHECKING:
    from ..calibration.recorded import RecordedJudge
    from ..contracts import Rubric
    from .common import ResolvedJudge

__all__ = [
    "MAX_UPLOAD",
    "Name",
    "Text",
    "Verdicts",
    "calibrate_judge",
    "compare_sides",
    "gold_of",
    "recorded",
    "server_files",
    "server_gold",
    "server_path",
    "shown",
    "stored_rubric_of",
    "verdicts_name",
    "without_content",
]

MAX_UPLOAD = 20_000_000
"""Longest uploaded verdicts file, in characters (the service's body limit applies first)."""


def _no_nul(value: str) -> str:
    """PostgreSQL text cannot hold a NUL, nor can a file name: refused as bad input (422)."""
    if "\x00" in value:
        raise ValueError("holds a NUL character")
    return value


Text = Annotated[str, AfterValidator(_no_nul)]
Name = Annotated[Text, Field(min_length=1, max_length=200)]


class Verdicts(Contract):
    """Recorded verdicts of a judge that runs elsewhere (`calibrate --verdicts`): a file on the
    server (`file`), or one uploaded in the request (`name` and `content`), with rows item,
    criterion, label, judge_version [, rationale]."""

    file: Text | None = Field(
        default=None,
        min_length=1,
        description="A verdicts file on the server: CSV, JSONL, an Inspect log (.eval/.json) "
        "or promptfoo results (.json).",
    )
    name: Name | None = Field(
        default=None,
        description="The uploaded file's name (errors and the report name it; a .csv or .jsonl "
        "suffix tells its format).",
    )
    content: Text | None = Field(
        default=None,
        max_length=MAX_UPLOAD,
        description="The uploaded file's text: CSV (header item,criterion,label,judge_version"
        "[,rationale]) or JSON Lines with the same keys.",
    )
    format: Literal["auto", "csv", "jsonl", "inspect", "promptfoo"] = Field(
        default="auto", description="auto (by suffix and content), csv, jsonl, inspect, promptfoo."
    )


TRANSCRIPT_SUFFIXES = (".json", ".jsonl")


def server_files(values: Sequence[str], field: str) -> tuple[str, ...]:
    """The files and folders a judge or score job names (`server_path` each), checked: each
    exists, and no file under a folder is reached through a link leading out of the data
    root."""
    root = get_settings().data_root
    paths = [server_path(v, field) for v in values]
    for value, path in zip(values, paths, strict=True):
        if not path.exists():
            raise InputError(
                "params", f"{value}: no such file or folder on the server", field=field
            )
    for found in expand_paths(paths, suffixes=TRANSCRIPT_SUFFIXES):
        if not inside(root, found):
            raise InputError(
                "params",
                f"{found}: reached through a link that leads out of the service's data root "
                "(CALIBRANT_DATA_ROOT)",
                field=field,
            )
    return tuple(str(p) for p in paths)


_SCHEMA_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*")


def without_content(exc: InputError, how: str, fields: Collection[str] | None = None) -> InputError:
    """`exc`, about a file on the server, told without what the file holds: its file and line,
    and its field when it is one of `fields` (a format's own names: its column or key names),
    or, without `fields`, a path of identifiers (a contract's field); never a value read from
    the file. `how`: the command that says the whole error where the file is."""
    field = exc.field
    if field is not None:
        named = field in fields if fields is not None else _SCHEMA_PATH.fullmatch(field)
        field = field if named else None
    return InputError(
        exc.path,
        f"cannot be read (an answer never quotes a file on the server: {how} there says why)",
        line=exc.line,
        field=field,
    )


def verdicts_name(v: dict[str, Any]) -> str:
    """How a job's verdicts are named in errors and reports: the upload's or the file's name."""
    return str(v["name"] if v.get("content") is not None else v["file"])


def _check_source(v: dict[str, Any], field: str) -> None:
    upload = v.get("content") is not None or v.get("name") is not None
    if upload == (v.get("file") is not None):
        raise InputError(
            "params",
            "give the verdicts as a file on the server (file) or uploaded (name and content), "
            "one of the two",
            field=field,
        )
    if upload and (v.get("content") is None or v.get("name") is None):
        raise InputError("params", "an upload has a name and a content", field=field)
    if not upload and not server_path(v["file"], f"{field}.file").is_file():
        raise InputError("params", f"{v['file']}: no such file on the server", field=field)


def recorded(
    v: dict[str, Any], *, rubric: Rubric, gold: Path, field: str = "verdicts"
) -> RecordedJudge:
    """The recorded judge of a job's verdicts (`v`: a `Verdicts`, as JSON), read and checked
    against `rubric` and the gold set at `gold` by the CLI's loader. A file on the server is
    inside the data root, and an error about it does not quote it."""
    from ..calibration.recorded import COLUMNS, OPTIONAL, load_recorded

    _check_source(v, field)
    upload = v.get("content") is not None
    path = Path(v["name"]) if upload else server_path(v["file"], f"{field}.file")
    try:
        return load_recorded(path, rubric=rubric, gold=gold, fmt=v["format"], text=v.get("content"))
    except InputError as exc:
        if upload and exc.path == str(path):
            raise  # the client's own upload: said in full
        how = "`calibrant calibrate --verdicts FILE --gold GOLD`"
        raise without_content(exc, how, (*COLUMNS, *OPTIONAL)) from None


def stored_rubric_of(engine: Engine, ref: str) -> Rubric:
    """A rubric kept in the store (POST /api/rubrics), by its hash."""
    from ..store.labeling import stored_rubric
    from .catalog import NotFound, get_rubric

    try:
        return stored_rubric(engine, get_rubric(engine, ref).content_hash)[1]
    except NotFound as exc:
        raise InputError("params", str(exc), field="rubric") from None


def server_gold(p: dict[str, Any]) -> Path:
    """A job's gold folder: `gold` on the server (inside the data root), or, when the job
    names none, the installed default pack's gold set (the pack's own data, trusted: not
    confined to the data root), as the command line resolves it."""
    from ..domains import default_gold

    if p.get("gold") is None:
        try:
            return default_gold(option="gold")
        except CalibrantError as exc:  # the pack is installed without its gold set
            raise InputError("params", str(exc), field="gold") from None
    return server_path(p["gold"], "gold")


def gold_of(engine: Engine, p: dict[str, Any], stack: ExitStack) -> tuple[Path, str | None]:
    """A calibrate job's gold folder and where it came from: the workbench queue `queue`,
    exported for this run (removed with `stack`), or the folder `gold` on the server."""
    from .gold_export import queue_gold

    if p.get("queue") is None:
        return server_gold(p), None
    try:
        exported = queue_gold(engine, p["queue"], stack, option="queue")
    except CalibrantError as exc:  # unknown, unlabeled, no consensus yet
        raise InputError("params", str(exc), field="queue") from None
    return exported.folder, exported.source


def shown(params: dict[str, Any]) -> dict[str, JsonTree]:
    """A job's parameters as the API shows them: an uploaded file by its name, size and
    SHA-256 (the report's), not its whole text."""
    out: dict[str, JsonTree] = dict(params)
    for key in ("verdicts", "verdicts_a", "verdicts_b"):
        v = out.get(key)
        if isinstance(v, dict) and v.get("content") is not None:
            data = str(v["content"]).encode()  # the file's text, as the request gave it
            out[key] = {
                **{k: x for k, x in v.items() if k != "content"},
                "bytes": len(data),
                "sha256": f"sha256:{hashlib.sha256(data).hexdigest()}",
            }
    return out


def calibrate_judge(
    engine: Engine, p: dict[str, Any], gold: Path
) -> tuple[ResolvedJudge | None, RecordedJudge | None]:
    """A calibrate job's judge: a stored judge version (resolved), or recorded verdicts read
    and checked on the stored rubric `rubric` against the gold set at `gold`."""
    if (p.get("judge") is None) == (p.get("verdicts") is None):
        raise InputError(
            "params",
            "name the judge: a stored judge (judge) or its recorded verdicts (verdicts), one "
            "of the two",
            field="judge",
        )
    if p.get("verdicts") is None:
        if p.get("rubric") is not None:
            raise InputError(
                "params",
                "rubric is for recorded verdicts; a stored judge brings its own",
                field="rubric",
            )
        return _resolved(engine, p["judge"], "judge"), None
    if p.get("queue") is not None:
        raise InputError(
            "params",
            "recorded verdicts name the items of a gold folder: export the queue (GET "
            "/api/export/gold) and give its folder as gold",
            field="queue",
        )
    if p.get("rubric") is None:
        raise InputError(
            "params",
            "recorded verdicts are checked on a rubric: name a stored one (its hash)",
            field="rubric",
        )
    rubric = stored_rubric_of(engine, p["rubric"])
    return None, recorded(p["verdicts"], rubric=rubric, gold=gold)


def compare_sides(engine: Engine, p: dict[str, Any]) -> tuple[Any, Any, str, str]:
    """A compare job's judges A and B, each a stored judge version or recorded verdicts (on the
    rubric of the stored judge beside them, else the stored rubric `rubric`), and their names."""
    from .compare import side_name, verdicts_rubric

    live: dict[str, ResolvedJudge] = {}
    for s in ("a", "b"):
        ref, v = p.get(s), p.get(f"verdicts_{s}")
        if (ref is None) == (v is None):
            raise InputError(
                "params",
                f"name judge {s.upper()}: a stored judge ({s}) or its recorded verdicts "
                f"(verdicts_{s}), one of the two",
                field=s,
            )
        if ref is not None:
            live[s] = _resolved(engine, ref, s)
    ref = p.get("rubric")
    given = None if ref is None else (lambda: stored_rubric_of(engine, ref))
    try:
        rubric = verdicts_rubric(list(live.values()), given, option="rubric")
    except InputError:
        raise  # a rubric not in the store: said already
    except CalibrantError as exc:
        raise InputError("params", str(exc), field="rubric") from None
    if rubric is None:  # two files, and no rubric named
        raise InputError(
            "params",
            "two verdicts files are checked on a rubric: name a stored one (its hash)",
            field="rubric",
        )
    sides: list[Any] = []
    for s in ("a", "b"):
        if s in live:
            sides.append(live[s])
        else:
            v, field = p[f"verdicts_{s}"], f"verdicts_{s}"
            gold = server_gold(p)
            sides.append(recorded(v, rubric=rubric, gold=gold, field=field))
    names = [side_name(p[s] or "", j) for s, j in zip(("a", "b"), sides, strict=True)]
    return sides[0], sides[1], names[0], names[1]


def _resolved(engine: Engine, ref: str, field: str) -> ResolvedJudge:
    from .catalog import NotFound, resolve_stored_judge

    try:
        return resolve_stored_judge(engine, ref)
    except NotFound as exc:
        raise InputError("params", str(exc), field=field) from None
