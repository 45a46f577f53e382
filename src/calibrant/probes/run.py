"""Running the probes against one judge: build every variant the chosen probes need (shared
ones once), ask the judge (or a planted one), measure, and store the report with the judge
version as a run of kind "probe"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..contracts import JudgeConfig, Rubric
from ..contracts.reports import PROBE_SCHEMA_VERSION, ProbeReport, RubricRef
from ..contracts.reports.probe import ProbedJudge, ProbeGold, ProbeResults, ProbeSettingsOut
from ..errors import ConfigError
from ..gold import GoldSet, load_gold
from ..judge.config import JudgeOptions, resolve_judge
from ..store import Store
from ..store.runs import Runs
from . import bias, injection  # noqa: F401  (they register the probes)
from .base import Answer, ProbeContext, ProbeSettings, Request
from .judging import count_calls, judge_asker
from .planted import planted_asker, planted_config
from .registry import ATTACKS, PROBES

__all__ = [
    "Asker",
    "check_settings",
    "collect_requests",
    "default_probes",
    "probe_report",
    "run_probes",
]

Asker = Callable[
    [Sequence[Request], Callable[[bool], None] | None], tuple[dict[str, Answer], dict[str, int]]
]


_FIRST = ("injection", "verbosity", "order", "stability", "central")


def default_probes() -> tuple[str, ...]:
    """Every registered probe, the battery first."""
    return tuple(sorted(PROBES, key=lambda p: (_FIRST.index(p) if p in _FIRST else 99, p)))


def check_settings(settings: ProbeSettings) -> None:
    """Refuse unknown probes, families and channels before anything runs."""
    for what, given, known in (
        ("probe", settings.probes, sorted(PROBES)),
        ("attack family", settings.families, sorted(ATTACKS)),
        ("channel", settings.channels, ["agent", "note"]),
    ):
        if not given:
            raise ConfigError(f"no {what} chosen; known: {', '.join(known)}")
        for name in given:
            if name not in known:
                raise ConfigError(f"unknown {what} '{name}'; known: {', '.join(known)}")
    if not 0 <= settings.margin <= 1:
        raise ConfigError(f"--margin must be between 0 and 1, not {settings.margin}")


def collect_requests(ctx: ProbeContext) -> list[Request]:
    """Every variant the chosen probes need, each once (by key)."""
    out: dict[str, Request] = {}
    for name in ctx.settings.probes:
        for r in PROBES[name].requests(ctx):
            out.setdefault(r.key, r)
    return list(out.values())


_QUIET = ("no effect shown", "undefined", "stable")


def _flags(probes: ProbeResults) -> list[str]:
    """Every raised flag, in one line each."""
    out = []
    if probes.injection:
        for family, status in probes.injection.gate.families.items():
            if status == "FAIL":
                out.append(f"injection: {family} moves failed items toward pass")
    for name, shown in (
        ("verbosity", probes.verbosity),
        ("order", probes.order),
        ("stability", probes.stability),
    ):
        flag = shown.flag if shown else None
        if flag and flag not in _QUIET:
            out.append(f"{name}: {flag}")
    for crit, row in (probes.central.criteria if probes.central else {}).items():
        if row.flag not in _QUIET:
            out.append(f"central tendency: {crit} {row.flag}")
    return out


def probe_report(
    ctx: ProbeContext,
    answers: dict[str, Answer],
    outcomes: dict[str, int],
    *,
    judge: JudgeConfig,
    split: str | None,
) -> ProbeReport:
    """The probe report: each probe's figures, the flags raised."""
    s = ctx.settings
    probes = ProbeResults.model_validate(
        {name: PROBES[name].measure(ctx, answers) for name in s.probes}
    )
    settings = probe_report_settings(s)
    settings.seed = s.seed
    return ProbeReport(
        schema_version=PROBE_SCHEMA_VERSION,
        judge=ProbedJudge(
            model=judge.model,
            hash=judge.hash,
            prompt_template_version=judge.prompt_template_version,
            temperature=judge.temperature,
        ),
        rubric=RubricRef(
            id=ctx.rubric.rubric_id, version=ctx.rubric.version, hash=ctx.rubric.content_hash
        ),
        gold=ProbeGold(root=str(ctx.gold.root), split=split or "all", items=len(ctx.items)),
        settings=settings,
        judge_outcomes=outcomes,
        judgments=sum(outcomes.values()),
        probes=probes,
        flags=_flags(probes),
    )


def run_probes(
    gold_dir: Path,
    *,
    split: str | None,
    options: JudgeOptions,
    settings: ProbeSettings,
    store: Store,
    planted: str | None = None,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[bool], None] | None = None,
    check: Callable[[GoldSet, Rubric], None] | None = None,
) -> ProbeReport:
    """Run the chosen probes against the judge the options name (or a planted judge) on the
    gold split, store the report as a run of kind "probe" in `store` and return it.
    `check(gold, rubric)` may refuse the pair first (a gold set of another domain)."""
    check_settings(settings)
    gold = load_gold(gold_dir, split=split)
    config, rubric, policy, concurrency = resolve_judge(options)
    gold.validate(rubric)
    if check is not None:
        check(gold, rubric)
    ctx = ProbeContext(gold=gold, rubric=rubric, settings=settings)
    ask: Asker
    if planted is not None:
        try:
            config = planted_config(planted, rubric, seed=settings.seed)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        ask = planted_asker(planted, ctx, seed=settings.seed)
    else:
        ask = judge_asker(
            rubric=rubric,
            config=config,
            store=store,
            concurrency=concurrency,
            policy=policy,
            seed=settings.seed,
        )
    requests = collect_requests(ctx)
    runs = Runs(store.engine)
    run_id = runs.start(
        "probe",
        judge=config,
        seed=settings.seed,
        samples=settings.k if "stability" in settings.probes else 1,
        arguments={"gold": str(gold_dir), "split": split or "all", "planted": planted}
        | {"settings": probe_report_settings(settings).json_data()},
    )
    try:
        if on_start:
            on_start(len(requests) if planted else count_calls(requests))
        cached = [0]

        def done(from_cache: bool) -> None:
            cached[0] += from_cache
            if on_done:
                on_done(from_cache)

        answers, outcomes = ask(requests, done)
        report = probe_report(ctx, answers, outcomes, judge=config, split=split)
        report.from_cache = cached[0]
    except BaseException:
        runs.finish(run_id, None, status="failed")
        raise
    report.run_id = run_id
    status = "finished" if outcomes.get("verdict") else "no_verdict"
    runs.finish(run_id, report.json_data(), status=status)
    return report


def probe_report_settings(s: ProbeSettings) -> ProbeSettingsOut:
    """The settings as the report and the run's arguments record them (the seed apart)."""
    return ProbeSettingsOut(
        probes=list(s.probes),
        families=list(s.families),
        channels=list(s.channels),
        defenses=s.defenses,
        k=s.k,
        margin=s.margin,
        min_items=s.min_items,
        min_cases=s.min_cases,
        max_items=s.max_items,
    )
