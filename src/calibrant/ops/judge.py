"""`judge`, written once: the judge's communication judgments of transcripts, shown beside
(never merged with) the safety verdicts. Answers are cached in the store: a second identical
run makes no model call. The command line and the service's judge job call `judge`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CalibrantError
from .common import Hooks, OpResult, ResolvedJudge

if TYPE_CHECKING:
    from ..contracts import Judgment, Rubric
    from ..contracts.reports import JudgeReport, RubricRef
    from ..contracts.reports.base import CalibratedJudge
    from ..contracts.reports.check import JudgedTranscript
    from ..contracts.reports.score_parts import JudgeStreamSummary
    from ..judge.batch import Source
    from ..paths import FileList
    from ..store import Store

__all__ = [
    "JudgeHooks",
    "JudgeOpOptions",
    "JudgeResult",
    "in_rubric_domain",
    "judge",
    "judge_stream",
    "JudgeStreamHooks",
    "JudgeStreamResult",
    "STREAM_CHUNK",
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
class JudgeResult(OpResult["JudgeReport"]):
    """The run ("" when not recorded), its report, and every judgment it holds."""

    KIND = "judge"

    judgments: tuple[Judgment, ...] = field(default_factory=tuple)


STREAM_CHUNK = 256
"""Files judged per round by `judge_stream`: its memory is bounded by this, not by the input."""


@dataclass(frozen=True)
class JudgeStreamHooks(JudgeHooks):
    """`on_transcript(entry)`: one transcript's entry (its safety verdict and judgments, the
    shape of a judge report's transcript entry), as soon as its round ends."""

    on_transcript: Callable[[JudgedTranscript], None] | None = None


@dataclass(frozen=True)
class JudgeStreamResult:
    """What a streamed judging run did: counts, and the judgments kept to explain a run with no
    verdict (at most 100, none once a verdict came). `summary()` is the stream's last line."""

    judge: CalibratedJudge
    rubric: RubricRef
    transcripts: int
    judgments: int
    from_cache: int
    model_calls: int
    outcomes: dict[str, int]
    failures: tuple[Judgment, ...]

    def summary(self) -> JudgeStreamSummary:
        from ..contracts.reports.score_parts import JudgeStreamSummary

        return JudgeStreamSummary(
            schema_version=1,
            judge=self.judge,
            rubric=self.rubric,
            transcripts=self.transcripts,
            judgments=self.judgments,
            from_cache=self.from_cache,
            model_calls=self.model_calls,
            outcomes=dict(sorted(self.outcomes.items())),
        )


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

    def work() -> JudgeReport:
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
    report.run_id = run_id
    runs.finish(run_id, report.json_data())
    return JudgeResult(run_id=run_id, report=report, judgments=tuple(judgments))


def judge_stream(
    store: Store, options: JudgeOpOptions, hooks: JudgeStreamHooks | None = None
) -> JudgeStreamResult:
    """Judge the transcripts a round of STREAM_CHUNK files at a time, memory bounded by the
    round: every file read and checked first, a round at a time (bad input stops the run before
    any model call, and each file's keys are remembered in the store), then judged a round at a
    time, each transcript handed to `hooks.on_transcript` when its round ends. Records no run."""
    from ..judge.batch import judge_files, read_sources
    from ..reports.judgments import transcript_entry

    hooks = hooks or JudgeStreamHooks()
    files = transcript_files(options.paths)
    if hooks.on_inputs is not None:
        hooks.on_inputs(files)
    config, rubric, policy, conc = options.judge
    paths = [Path(f) for f in files]
    chunks = [paths[i : i + STREAM_CHUNK] for i in range(0, len(paths), STREAM_CHUNK)]
    for chunk in chunks:
        in_rubric_domain(read_sources(chunk, store), rubric)
    outcomes: dict[str, int] = {}
    failures: list[Judgment] = []  # kept only while no verdict has come
    from_cache = model_calls = judgments = 0
    with hooks.progress(f"judgments by {config.model}", len(paths) * options.samples) as bar:
        for chunk in chunks:
            run = judge_files(
                read_sources(chunk, store),
                rubric=rubric,
                config=config,
                store=store,
                concurrency=conc,
                samples=options.samples,
                policy=policy,
                on_done=hooks.answered(bar),
            )
            from_cache += run.from_cache
            model_calls += run.model_calls
            for src, v, js in run.rows:
                for j in js:
                    outcomes[j.outcome] = outcomes.get(j.outcome, 0) + 1
                    judgments += 1
                    if not outcomes.get("verdict") and len(failures) < 100:
                        failures.append(j)
                if hooks.on_transcript is not None:
                    hooks.on_transcript(transcript_entry(src, v, js))
    from ..contracts.reports import RubricRef
    from ..contracts.reports.base import CalibratedJudge

    return JudgeStreamResult(
        judge=CalibratedJudge.model_validate(
            {"hash": config.hash, **config.model_dump(mode="json")}
        ),
        rubric=RubricRef(id=rubric.rubric_id, version=rubric.version, hash=rubric.content_hash),
        transcripts=len(paths),
        judgments=judgments,
        from_cache=from_cache,
        model_calls=model_calls,
        outcomes=outcomes,
        failures=tuple(failures) if not outcomes.get("verdict") else (),
    )
