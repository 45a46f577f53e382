"""A score run as the library takes it: its options (`ScoreOptions`, queued: `QueueOptions`,
one queued job: `ChunkOptions`), what it tells its caller (`ScoreHooks`) and returns
(`ScoreResult`), and the two things every path through `score` does first: choose the
calibration that corrects, and check every transcript before the first model call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import CalibrantError
from .batch import BatchHooks
from .common import Hooks, OpResult, ResolvedJudge

if TYPE_CHECKING:
    from ..contracts.reports import ScoreReport  # noqa: F401 (the result's model)
    from ..contracts.reports.score_parts import ScoredTranscript
    from ..paths import FileList
    from ..scoring.calibration_choice import ChosenCalibration
    from ..store import Store
    from ..store.runs import Runs

__all__ = ["ChunkOptions", "QueueOptions", "ScoreHooks", "ScoreOptions", "ScoreResult"]


@dataclass(frozen=True)
class ScoreOptions:
    """A batch to score. `judge`: the judge, resolved; `calibration`: None (no correction),
    `latest`, a calibrate run id, or (with `calibration_files`) a calibration report file;
    `submit`: judge through the provider's batch API first (no live model call)."""

    paths: tuple[str, ...]
    judge: ResolvedJudge
    calibration: str | None = None
    calibration_files: bool = True
    submit: bool = False
    poll_s: float = 30.0


@dataclass(frozen=True)
class QueueOptions:
    """A batch to queue for `calibrant worker` processes: `judge_options` is how the workers
    resolve the judge again (the options given, as JSON), `chunk` transcripts per job."""

    score: ScoreOptions
    judge_options: dict[str, Any] = field(default_factory=dict)
    chunk: int = 50


@dataclass(frozen=True)
class ChunkOptions:
    """One queued job of run `run_id`: its transcripts (refs, see `chunk_refs`) from `start`."""

    run_id: str
    start: int
    refs: tuple[tuple[str, str, int | None], ...]


@dataclass(frozen=True)
class ScoreHooks(Hooks):
    """`on_inputs(files, total)`: the batch is valid (before the first model call);
    `on_row(row)`: each transcript's score row, in order; `after_round()`: a round is written;
    `batch`: how the provider batches are followed (`ScoreOptions.submit`)."""

    on_inputs: Callable[[FileList, int], None] | None = None
    on_row: Callable[[ScoredTranscript], None] | None = None
    after_round: Callable[[], None] | None = None
    batch: BatchHooks = field(default_factory=BatchHooks)


@dataclass(frozen=True)
class ScoreResult(OpResult["ScoreReport"]):
    """The run, its report, and how many transcripts it scored (queued: no report yet, the
    transcripts and the jobs they were queued as)."""

    KIND = "score"

    transcripts: int = 0
    jobs: int | None = None


def _calibration(options: ScoreOptions, runs: Runs) -> tuple[ChosenCalibration | None, str | None]:
    """The calibration that corrects, and (without one) the latest one there is, to name it."""
    from ..scoring.calibration_choice import choose_calibration, latest_hint

    config = options.judge[0]
    chosen = choose_calibration(
        options.calibration, runs=runs, config=config, files=options.calibration_files
    )
    return chosen, None if chosen is not None else latest_hint(runs, config)


def _inputs(store: Store, options: ScoreOptions, hooks: ScoreHooks) -> tuple[FileList, int]:
    """Every transcript valid before the first model call, a chunk at a time. A unit (file, or
    JSON Lines line) whose bytes the store has read before is known valid: no parse."""
    from ..domains import same_domain
    from ..scoring.inputs import find_inputs
    from ..scoring.units import Known, Unit, validate_units

    files = find_inputs(list(options.paths))
    rubric = options.judge[1]

    def in_rubric_domain(u: Unit, k: Known) -> None:  # one domain per run: the rubric's
        same_domain(
            u.path,
            k.domain,
            expected=rubric.domain,
            expected_from=f"rubric '{rubric.rubric_id}'",
            line=u.line,
        )

    total = validate_units(files, store, check=in_rubric_domain)
    if total == 0:
        raise CalibrantError("no transcript found in the given paths")
    if hooks.on_inputs is not None:
        hooks.on_inputs(files, total)
    return files, total
