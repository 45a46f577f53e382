"""`judge`, written once: the judge's communication judgments of transcripts, shown beside
(never merged with) the safety verdicts. Answers are cached in the store: a second identical
run makes no model call. The command line and the service's judge job call `judge`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CalibrantError
from .common import Hooks, OpResult, ResolvedJudge

if TYPE_CHECKING:
    from ..contracts import Judgment, Rubric
    from ..judge.batch import Source
    from ..paths import FileList
    from ..store import Store

__all__ = [
    "JudgeHooks",
    "JudgeOpOptions",
    "JudgeResult",
    "in_rubric_domain",
    "judge",
    "transcript_files",
]


@dataclass(frozen=True)
class JudgeOpOptions:
    """Transcripts (files or folders at `paths`) judged `samples` times each by the judge
    `judge` resolves to; `record`: the run and its report are stored as a run of kind "judge"
    (the command line's `judge` records none)."""

    paths: tuple[str, ...]
    judge: ResolvedJudge
    samples: int = 1
    record: bool = True


@dataclass(frozen=True)
class JudgeHooks(Hooks):
    """`on_inputs(files)`: the transcript files found (before any is read)."""

    on_inputs: Callable[[FileList], None] | None = None


@dataclass(frozen=True)
class JudgeResult(OpResult):
    """The run ("" when not recorded), its report, and every judgment it holds."""

    KIND = "judge"

    judgments: tuple[Judgment, ...] = field(default_factory=tuple)


def transcript_files(paths: tuple[str, ...] | list[Path]) -> FileList:
    """The transcript files (*.json) at `paths`; an error when there is none."""
    from ..files import expand_paths

    files = expand_paths([Path(p) for p in paths], suffixes=(".json",))
    if not files:
        raise CalibrantError("no transcript (*.json) found in the given paths")
    return files


def in_rubric_domain(sources: Sequence[Source], rubric: Rubric) -> None:
    """Refuse the first transcript whose domain is not the rubric's (one domain per run)."""
    from ..domains import same_domain

    for s in sources:
        same_domain(
            s.path, s.domain, expected=rubric.domain, expected_from=f"rubric '{rubric.rubric_id}'"
        )


def judge(store: Store, options: JudgeOpOptions, hooks: Hooks | None = None) -> JudgeResult:
    """Judge the transcripts: every file read and checked before the first model call."""
    from ..judge.batch import judge_files, read_sources
    from ..reports.judgments import judge_report

    hooks = hooks or Hooks()
    files = transcript_files(options.paths)
    if isinstance(hooks, JudgeHooks) and hooks.on_inputs is not None:
        hooks.on_inputs(files)
    config, rubric, policy, conc = options.judge
    sources = read_sources(list(files), store)  # every file checked before a call
    in_rubric_domain(sources, rubric)
    judgments: list[Judgment] = []

    def work() -> dict[str, Any]:
        with hooks.progress(f"judgments by {config.model}", len(sources) * options.samples) as bar:
            run = judge_files(
                sources,
                rubric=rubric,
                config=config,
                store=store,
                concurrency=conc,
                samples=options.samples,
                policy=policy,
                on_done=hooks.answered(bar),
            )
        judgments.extend(j for _, _, js in run.rows for j in js)
        return judge_report(
            run.rows, rubric=rubric, from_cache=run.from_cache, model_calls=run.model_calls
        )

    if not options.record:
        return JudgeResult(run_id="", report=work(), judgments=tuple(judgments))
    from ..store.runs import Runs

    runs = Runs(store.engine)
    arguments = {
        "paths": list(options.paths),
        "transcripts": len(sources),
        "samples": options.samples,
    }
    run_id = runs.start("judge", judge=config, arguments=arguments, samples=options.samples)
    try:
        hooks.run(run_id)
        report = work()
    except BaseException:
        runs.finish(run_id, None, status="failed")
        raise
    report["run_id"] = run_id
    runs.finish(run_id, report)
    return JudgeResult(run_id=run_id, report=report, judgments=tuple(judgments))
