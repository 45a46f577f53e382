"""A `score` run as a user asks for it, checked before anything is read or written
(`check_score_request`), and its per-transcript files, written as the rows come
(`ScoreFiles`: one JSON line and one CSV row per transcript, put in place at the end)."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CalibrantError
from .score import ScoreHooks, ScoreOptions, ScoreResult

if TYPE_CHECKING:
    from ..contracts import Rubric
    from ..contracts.reports.score_parts import ScoredTranscript
    from ..judge.config import JudgeOptions
    from ..store import Store

__all__ = ["ScoreFiles", "ScoreRequest", "check_score_request", "score_to_files"]


@dataclass(frozen=True)
class ScoreRequest:
    """The transcripts at `paths` judged by `judge`, pass rates corrected by `calibration`;
    rows written to `out` (JSON Lines) and `csv_out`; `queue`: queued for workers in jobs of
    `chunk` transcripts; `submit`: judged through the provider's batch API, looked at every
    `poll_s` seconds; `wait`: no new run, follow the queued run of this id."""

    paths: tuple[Path, ...]
    judge: JudgeOptions
    calibration: str | None = None
    out: Path | None = None
    csv_out: Path | None = None
    queue: bool = False
    chunk: int = 50
    submit: bool = False
    poll_s: float = 30.0
    wait: str | None = None


def check_score_request(request: ScoreRequest) -> ScoreOptions | None:
    """The options of the `score` operation for `request`, everything refused before a file is
    read or written (the judge resolved, the output paths, the queue's store, the provider of
    a batch). None for `wait`: it follows a run already queued."""
    from ..judge.config import resolve_judge
    from ..paths import check_output_path

    if request.submit and (request.queue or request.wait is not None):
        raise CalibrantError("--submit judges here, through the batch API: not with --queue/--wait")
    if request.wait is not None:
        if request.paths:
            raise CalibrantError("--wait RUN_ID follows a queued run: give no PATH with it")
        return None
    if not request.paths:
        raise CalibrantError("no transcripts given: `calibrant score PATH...`")
    if request.queue:
        from ..scoring.queue import conninfo
        from ..store import database_url

        conninfo(database_url())  # refused on SQLite, before anything is written
        if request.out is not None or request.csv_out is not None:
            raise CalibrantError("--queue writes score rows to the store, not --out or --csv")
    for option, path in (("--out", request.out), ("--csv", request.csv_out)):
        if path is not None:
            check_output_path(path, option=option)
    resolved = resolve_judge(request.judge)
    if request.submit:
        from ..judge.batch_submit import provider_of

        provider_of(resolved[0])  # refused before reading anything
    return ScoreOptions(
        paths=tuple(str(p) for p in request.paths),
        judge=resolved,
        calibration=request.calibration,
        submit=request.submit,
        poll_s=request.poll_s,
    )


def _csv_row(row: ScoredTranscript, criteria: list[str]) -> list[Any]:
    comm = row.communication
    return [
        row.source,
        row.transcript_id,
        row.safety.status,
        ";".join(row.safety.violated),
        comm.outcome,
        *["" if comm.criteria[c].label is None else comm.criteria[c].label for c in criteria],
    ]


class ScoreFiles:
    """A score run's rows in `out` (one JSON line per transcript) and `csv_out` (one CSV row,
    after a header naming `rubric`'s criteria), streamed into temporary files and put in place
    by `commit()` (`discard()`: the previous files stay). Give `on_run` and `on_row` to the
    operation's hooks."""

    def __init__(self, out: Path | None, csv_out: Path | None, rubric: Rubric) -> None:
        from ..paths import StreamedOutputs

        self.out, self.csv_out = out, csv_out
        self.targets = [p for p in (out, csv_out) if p is not None]
        self.criteria = [c.id for c in rubric.criteria]
        self._outputs = StreamedOutputs(self.targets)
        self._writer: Any = None

    def on_run(self, _: str) -> None:
        """The CSV header, once the batch is valid and the run recorded."""
        if self.csv_out is not None and self._writer is None:
            self._writer = csv.writer(self._outputs.handle(self.csv_out))
            self._writer.writerow(
                ["source", "transcript_id", "safety", "violated", "judge_outcome", *self.criteria]
            )

    def on_row(self, row: ScoredTranscript) -> None:
        if self.out is not None:
            line = json.dumps(row.json_data(), ensure_ascii=False)
            self._outputs.handle(self.out).write(line + "\n")
        if self._writer is not None:
            self._writer.writerow(_csv_row(row, self.criteria))

    def commit(self) -> None:
        self._outputs.commit()

    def discard(self) -> None:
        self._outputs.discard()


def score_to_files(
    store: Store,
    options: ScoreOptions,
    hooks: ScoreHooks,
    *,
    out: Path | None = None,
    csv_out: Path | None = None,
) -> tuple[ScoreResult, list[Path]]:
    """Score as `ops.score.score` does, each row also written to `out` and `csv_out` as it
    comes, the files put in place only when the run ends well. The result and the files."""
    from .score import score

    files = ScoreFiles(out, csv_out, options.judge[1])
    hooks = replace(hooks, on_run=files.on_run, on_row=files.on_row)
    try:
        result = score(store, options, hooks)
    except BaseException:
        files.discard()
        raise
    files.commit()
    return result, files.targets
