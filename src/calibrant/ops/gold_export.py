"""A labeled workbench queue as a complete gold folder: the one operation behind `calibrant gold
export`, `calibrant calibrate --from-store` and the workbench's download (GET /api/export/gold).

The folder is what `calibrate --gold` reads: `manifest.yaml` (per item its case, agent, split,
tags and provenance), `transcripts/<item>.json`, `labels/<rater>.jsonl` per expert,
`labels/consensus.jsonl` (adjudicated decisions where the experts disagreed, the agreed label
where they agreed), `rubric.yaml` (the rubric the items were labeled on) and
`labeling/new_items.txt` (the items without a consensus yet, which `calibrate` leaves aside).
The split is by whole case with the shipped gold set's near-duplicate rule
(`calibrant.gold.drawn_case_split`)."""

from __future__ import annotations

import errno
import io
import json
import os
import re
import secrets
import shutil
import tempfile
import zipfile
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import yaml
from sqlalchemy import Engine
from sqlmodel import Session

from ..contracts import Label, Transcript
from ..errors import ConfigError
from ..gold import CONSENSUS, HELDOUT_SHARE, GoldItem, drawn_case_split
from ..judge.sheet import labeling_sheet
from ..paths import case_clash, portable_problem
from ..store import adjudication as adj
from ..store import labeling as lab
from ..store.db import redact_url
from ..store.service_tables import RubricRow

__all__ = [
    "GoldExport",
    "QueueGold",
    "gold_export",
    "check_out",
    "queue_gold",
    "write_folder",
    "safe_name",
    "RUBRIC_FILE",
]

RUBRIC_FILE = "rubric.yaml"
_SAFE = re.compile(r"[^A-Za-z0-9_.@+-]")


@dataclass(frozen=True)
class GoldExport:
    """The gold folder of one queue, in memory (relative path -> bytes), and what it holds."""

    queue: str
    source: str  # where the gold came from, for the calibration report
    files: dict[str, bytes]
    split_items: dict[str, int]  # split -> items
    split_cases: dict[str, int]  # split -> cases
    raters: dict[str, int]  # expert -> labels exported
    consensus: int  # consensus labels
    left_aside: list[str] = field(default_factory=list)  # items without a consensus label
    pending: int = 0  # disagreements nobody has decided yet
    rubric: str = ""  # the rubric's content hash

    def lines(self) -> list[str]:
        """What the export holds, in a few lines for a terminal."""
        splits = ", ".join(
            f"{s} {self.split_items.get(s, 0)} items / {self.split_cases.get(s, 0)} cases"
            for s in ("calibration", "heldout")
        )
        raters = ", ".join(f"{r} {n}" for r, n in sorted(self.raters.items()))
        out = [
            f"{self.source}: {sum(self.split_items.values())} items ({splits})",
            f"labels: {raters}; consensus {self.consensus}",
        ]
        if self.left_aside:
            out.append(
                f"{len(self.left_aside)} item(s) without a consensus label, left aside by "
                "calibrate (listed in labeling/new_items.txt)"
            )
        if self.pending:
            out.append(f"{self.pending} disagreement(s) awaiting adjudication")
        return out

    def zip(self, folder: str) -> bytes:
        """The folder as a zip, its files under `folder/`."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in sorted(self.files.items()):
                archive.writestr(f"{folder}/{name}", data)
        return buffer.getvalue()


def safe_name(text: str) -> str:
    """`text` as one file or folder name (a rater id, a queue name)."""
    name = _SAFE.sub("_", text)
    return "_" + name if name.startswith(".") else name


def _item_path(item: str) -> str:
    """`transcripts/<item>.json`, refused when the item id would leave the folder, or name a
    file or folder some system cannot hold (a name Windows reserves, a trailing dot)."""
    parts = item.split("/")
    if item.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise lab.Conflict(
            f"item '{item}' cannot be a file name in a gold folder (the loader reads "
            "transcripts/<item>.json)"
        )
    for part in [*parts[:-1], f"{parts[-1]}.json"]:
        problem = portable_problem(part, characters=False)
        if problem is not None:
            raise lab.Conflict(
                f"item '{item}' cannot be a file name in a gold folder: '{part}' {problem}"
            )
    return f"transcripts/{item}.json"


def _distinct(paths: dict[str, str]) -> None:
    """Refuse two items whose files are one file where case is not told apart."""
    clash = case_clash(sorted(paths.values()))
    if clash is not None:
        items = {path: item for item, path in paths.items()}
        raise lab.Conflict(
            f"items '{items[clash[0]]}' and '{items[clash[1]]}' cannot both be files of a gold "
            "folder: their names differ only in case, one file on Windows and macOS"
        )


def _label_line(x: Label) -> str:
    row: dict[str, object] = {
        "item": x.item,
        "rater": x.rater,
        "criterion": x.criterion,
        "label": x.label,
    }
    if x.note:
        row["note"] = x.note
    return json.dumps(row, ensure_ascii=False) + "\n"


def _rater_files(raters: list[str]) -> dict[str, str]:
    """Rater -> file name under labels/, one per rater, a file of its own on every system: ids
    that fold to the same name, or to the same one but for case (`Consensus` beside the
    consensus file), are told apart by a number; a name Windows reserves (`CON`) or one with
    '..' or a trailing dot is changed (the file's lines name the rater)."""
    out: dict[str, str] = {}
    taken = {f"{CONSENSUS}.jsonl".casefold()}
    for rater in sorted(raters):
        base = re.sub(r"\.{2,}", ".", safe_name(rater)).rstrip(".") or "_"
        if portable_problem(f"{base}.jsonl") is not None:  # a reserved name: CON, NUL, COM1...
            base = f"_{base}"
        name, n = f"{base}.jsonl", 1
        while name.casefold() in taken:
            n += 1
            name = f"{base}-{n}.jsonl"
        taken.add(name.casefold())
        out[rater] = name
    return out


def gold_export(
    engine: Engine,
    queue: str,
    *,
    share: float = HELDOUT_SHARE,
    now: datetime | None = None,
) -> GoldExport:
    """The gold folder of `queue` (in memory). An unknown queue is NotFound; a queue without
    labels, with items of several rubrics, or with an item id no file can carry is Conflict."""
    if not 0 <= share < 0.5:
        raise ConfigError(f"the held-out share must be at least 0 and below 0.5, not {share}")
    rows = lab.list_items(engine, queue=queue)
    if not rows:
        known = sorted({r.queue for r in lab.list_items(engine)})
        raise lab.NotFound(
            f"no queue '{queue}' in the store at {redact_url(str(engine.url))} "
            f"(queues: {', '.join(known) or 'none'})"
        )
    items = {r.id: r for r in rows}
    labels = [x for x in lab.labels_of(engine) if x.item in items and x.rater != CONSENSUS]
    if not labels:
        raise lab.Conflict(f"queue '{queue}' has {len(items)} item(s) but no label yet")
    hashes = sorted({r.rubric_hash for r in rows})
    if len(hashes) > 1:
        raise lab.Conflict(
            f"queue '{queue}' holds items of {len(hashes)} rubrics ({', '.join(hashes)}); a "
            "gold folder has one"
        )
    with Session(engine) as session:
        rubric_row = session.get(RubricRow, hashes[0])
    if rubric_row is None:
        raise lab.NotFound(f"no rubric {hashes[0]} in the store")
    paths = {i: _item_path(i) for i in items}
    _distinct(paths)
    transcripts = {i: Transcript.model_validate_json(r.payload) for i, r in items.items()}

    moment = (now or datetime.now(UTC)).astimezone(UTC)
    source = f"workbench queue {queue}, exported at {moment:%Y-%m-%dT%H:%M:%SZ}"
    cases = {i: t.case_id for i, t in transcripts.items()}
    templated = {
        t.case_id for t in transcripts.values() if t.provenance.agent.startswith("scripted:")
    }
    sheets = {i: labeling_sheet(t, item="ITEM") for i, t in transcripts.items()}
    split = drawn_case_split(cases, sheets, templated, share=share)

    manifest = {}
    for i, t in sorted(transcripts.items()):
        entry = GoldItem(
            domain=t.domain,
            case=t.case_id,
            agent=t.provenance.agent,
            seed=t.provenance.seed,
            tags=list(t.tags),
            split=split[t.case_id],
            provenance=source,
        )
        manifest[i] = entry.model_dump(mode="json", exclude_none=True)
    files: dict[str, bytes] = {
        "manifest.yaml": yaml.safe_dump(manifest, sort_keys=True, allow_unicode=True).encode(),
        RUBRIC_FILE: rubric_row.body.encode(),
    }
    for i, r in items.items():
        text = json.dumps(json.loads(r.payload), indent=1, ensure_ascii=False) + "\n"
        files[paths[i]] = text.encode()

    by_rater: dict[str, list[Label]] = {}
    for x in labels:
        by_rater.setdefault(x.rater, []).append(
            Label(item=x.item, rater=x.rater, criterion=x.criterion, label=x.label, note=x.note)
        )
    names = _rater_files(list(by_rater))
    for rater, mine in by_rater.items():
        files[f"labels/{names[rater]}"] = "".join(map(_label_line, mine)).encode()
    consensus = adj.consensus(engine, queue=queue)
    if consensus:  # an empty file is not a label file: calibrate says "no consensus labels"
        files[f"labels/{CONSENSUS}.jsonl"] = "".join(map(_label_line, consensus)).encode()
    agreed = {x.item for x in consensus}
    left_aside = sorted(i for i in items if i not in agreed)
    files["labeling/new_items.txt"] = "".join(f"{i}\n" for i in left_aside).encode()
    pending = [d for d in adj.disagreements(engine) if d.item in items]

    in_split: Counter[str] = Counter(split[c] for c in cases.values())
    case_split: Counter[str] = Counter(split[c] for c in set(cases.values()))
    return GoldExport(
        queue=queue,
        source=source,
        files=files,
        split_items=dict(in_split),
        split_cases=dict(case_split),
        raters={r: len(v) for r, v in by_rater.items()},
        consensus=len(consensus),
        left_aside=left_aside,
        pending=len(pending),
        rubric=hashes[0],
    )


def check_out(out: Path) -> None:
    """Before any work: `out` must not exist, or be an empty folder."""
    if out.is_symlink() and not out.exists():
        raise ConfigError(f"--out {out}: is a dangling link")
    if out.exists():
        if not out.is_dir():
            raise ConfigError(f"--out {out}: is a file; give a new or empty folder")
        if any(out.iterdir()):
            raise ConfigError(f"--out {out}: is not empty; give a new or empty folder")
    for parent in out.parents:
        if parent.exists() and not parent.is_dir():
            raise ConfigError(f"--out {out}: {parent} is a file, not a folder")


def write_folder(export: GoldExport, out: Path) -> Path:
    """Write the folder at `out` all or nothing: into a temporary folder beside it, renamed
    into place at the end (an empty `out` is replaced; one filled meanwhile is refused)."""
    check_out(out)
    tmp = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()  # mode 0o777 less the umask, as any folder the user makes
        for name, data in export.files.items():
            path = tmp / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        try:
            os.rename(tmp, out)
        except OSError as exc:  # filled, or replaced by a file or link, meanwhile
            why = "is not empty" if exc.errno in (errno.ENOTEMPTY, errno.EEXIST) else exc.strerror
            raise ConfigError(f"--out {out}: {why}; give a new or empty folder") from None
    except OSError as exc:
        raise ConfigError(f"cannot write {exc.filename}: {exc.strerror}") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return out


@dataclass(frozen=True)
class QueueGold:
    """A queue's gold folder, exported for one calibration: where it is, where it came from
    (said in the report), and the rubric file its items were labeled on."""

    folder: Path
    source: str
    rubric: Path


def queue_gold(
    engine: Engine, queue: str, stack: ExitStack, *, option: str, need_consensus: bool = True
) -> QueueGold:
    """The gold folder of workbench queue `queue`, exported into a temporary folder that
    `stack` removes (`calibrate --from-store`, `propose --from-store`, the service's calibrate
    job with a queue); `option` names the queue in errors. `need_consensus`: refuse a queue
    without a consensus label (calibrate measures against it; propose can start from none)."""
    export = gold_export(engine, queue)
    if need_consensus and not export.consensus:
        raise ConfigError(
            f"{option} {queue}: no consensus label yet ({export.pending} disagreement(s) "
            "awaiting adjudication; a label becomes consensus when two experts agree or an "
            "adjudicator decides)"
        )
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="calibrant-gold-")))
    folder = write_folder(export, tmp / "gold")
    source = f"{export.source} from the store at {redact_url(str(engine.url))}"
    return QueueGold(folder, source, folder / RUBRIC_FILE)
