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
    """What an operation gives back: its run and its report, as the report model `ReportT` (a
    result class names it: `OpResult[CalibrationReport]`, and its KIND). `data` is the report as
    JSON data (`json_data()`: what is written and served).

    A producer that still builds the report's JSON data may pass that dict: the result validates
    it into the model of its KIND at once, so both give the same result (the type checker asks
    for the model). A result made without a report (a score run only queued) holds None."""

    run_id: str
    report: ReportT = field(default=cast("ReportT", None))
    KIND: ClassVar[str | None] = None  # the report's kind (calibrant.contracts.reports)

    def __post_init__(self) -> None:
        given: object = self.report
        if isinstance(given, dict):
            object.__setattr__(self, "report", self.model_of(given))

    @classmethod
    def model_of(cls, data: dict[str, Any]) -> ReportT:
        """The report of this result's KIND from its JSON data (as stored or as made)."""
        from ..contracts.reports import load_report

        if cls.KIND is None:
            raise ValueError(f"{cls.__name__} names no report kind to read its report as")
        return cast("ReportT", load_report(cls.KIND, data))

    @property
    def data(self) -> dict[str, Any]:
        """The report as JSON data (the file's, the store's and the API's)."""
        return self.typed().json_data()

    def typed(self) -> ReportT:
        """The report's model (`report`; raises for a result that holds none)."""
        if self.report is None:
            raise ValueError(f"{type(self).__name__} of run {self.run_id} holds no report")
        return self.report


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
