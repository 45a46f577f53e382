"""What every operation shares: the resolved judge, the result, and the progress hook."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast

if TYPE_CHECKING:
    from ..contracts import JudgeConfig, Judgment, Rubric
    from ..contracts.reports import Report
    from ..judge.reliability import RetryPolicy

__all__ = ["Advance", "Hooks", "OpResult", "ReportT", "ResolvedJudge", "record_finished"]

ReportT = TypeVar("ReportT", bound="Report")
"""The report model an operation's result holds (calibrant.contracts.reports)."""

ResolvedJudge = tuple["JudgeConfig", "Rubric", "RetryPolicy", int]
"""A judge ready to ask: its configuration, rubric, retry policy and concurrency."""


class Advance(Protocol):
    """A progress display: one call per item done (`cached`: answered from the store)."""

    def advance(self, *, cached: bool = False) -> None: ...

    def set_total(self, total: int) -> None: ...


class _Quiet:
    def advance(self, *, cached: bool = False) -> None:
        return None

    def set_total(self, total: int) -> None:
        return None


def quiet(what: str, total: int | None) -> AbstractContextManager[Advance]:
    return nullcontext(_Quiet())


@dataclass(frozen=True)
class Hooks:
    """How a caller follows an operation. `progress(what, total)` opens a display for `total`
    items (None: told later); `on_run` hears the run id once the run is recorded; `on_done`
    hears every answer of the judge (a job checks there whether it was cancelled)."""

    progress: Callable[[str, int | None], AbstractContextManager[Advance]] = quiet
    on_run: Callable[[str], None] | None = None
    on_done: Callable[[Judgment, bool], None] | None = None

    def run(self, run_id: str) -> None:
        if self.on_run is not None:
            self.on_run(run_id)

    def answered(self, progress: Advance) -> Callable[[Judgment, bool], None]:
        """The judge's `on_done`: the display advances, then the caller hears it."""

        def done(j: Judgment, cached: bool) -> None:
            progress.advance(cached=cached)
            if self.on_done is not None:
                self.on_done(j, cached)

        return done


@dataclass(frozen=True)
class OpResult(Generic[ReportT]):
    """What an operation gives back: its run and its report (the stored one), of the report
    model `ReportT` (a result class names it: `OpResult[CalibrationReport]`, and its KIND)."""

    run_id: str
    report: dict[str, Any] = field(default_factory=dict)
    KIND: ClassVar[str | None] = None  # the report's kind (calibrant.contracts.reports)

    def typed(self) -> ReportT:
        """The report as its model, `ReportT` (the JSON data, as stored, stays in `report`
        for the renderers that still read it)."""
        from ..contracts.reports import load_report

        if self.KIND is None or "schema_version" not in self.report:
            raise ValueError(f"{type(self).__name__} of run {self.run_id} holds no report")
        return cast("ReportT", load_report(self.KIND, self.report))


def record_finished(
    store: Any,
    kind: str,
    report: dict[str, Any],
    *,
    judge: Any = None,
    arguments: dict[str, Any],
    seed: int | None = None,
    samples: int | None = None,
) -> str:
    """Store a report computed without a model call in hand (a comparison of stored runs, a
    stability measure) as a finished run of `kind`; returns the run id."""
    from ..store.runs import Runs

    runs = Runs(store.engine)
    run_id = runs.start(kind, judge=judge, seed=seed, samples=samples, arguments=arguments)
    runs.finish(run_id, report)
    return run_id
