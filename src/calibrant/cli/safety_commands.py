"""Commands around the harness and the safety checker: schema, check, trials, selftest."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..errors import CalibrantError
from .app import app
from .trials_output import (
    CasePathsArg,
    JsonOpt,
    MarkdownOpt,
    OutFolderOpt,
    RestartOpt,
    TrialsKOpt,
)

if TYPE_CHECKING:
    from ..harness import TrialRun
    from ..ops.trials import TrialsResult
    from ..store import Store

SCHEMAS = ("transcript", "case", "rubric", "label", "verdict", "judgment", "snapshot")


@app.command()
def schema(
    name: Annotated[str, typer.Argument(help=f"One of: {', '.join(SCHEMAS)}.")],
    domain: Annotated[
        str | None,
        typer.Option(
            "--domain",
            help="snapshot only: the snapshot files of this installed domain pack, as "
            "calibrant import reads them (default: those of files naming no domain).",
        ),
    ] = None,
) -> None:
    """Print the JSON Schema of a data contract."""
    from pydantic import BaseModel

    from .. import contracts as c
    from ..contracts.forms import reads_itself

    if domain is not None and name != "snapshot" and not reads_itself(domain):
        raise CalibrantError(f"--domain is for the snapshot schema, not '{name}'")
    if name == "snapshot":
        typer.echo(json.dumps(_snapshot_schema(domain), indent=2, sort_keys=True))
        return
    models: dict[str, type[BaseModel]] = {
        "transcript": c.Transcript,
        "case": c.CaseContract,
        "rubric": c.Rubric,
        "label": c.Label,
        "verdict": c.SafetyVerdict,
        "judgment": c.Judgment,
    }
    if name not in models:
        raise CalibrantError(f"unknown schema '{name}'; choose one of: {', '.join(SCHEMAS)}")
    typer.echo(json.dumps(models[name].model_json_schema(), indent=2, sort_keys=True))


def _snapshot_schema(domain: str | None) -> dict[str, object]:
    """The JSON Schema of a pack's snapshot files as its users write them (no --domain: the pack
    that reads files naming no domain)."""
    from ..contracts.forms import form_of
    from ..domains import UnknownDomain, default_domain
    from ..domains import get as get_pack
    from ..importers.snapshots import snapshot_file_model

    name = domain if domain is not None else default_domain()
    form = form_of(name)
    if form is not None and form.snapshot_file is not None:
        return form.snapshot_file.model_json_schema()
    try:
        pack = get_pack(name).pack
    except UnknownDomain as exc:
        raise CalibrantError(f"--domain {name}: {exc}") from None
    if pack.snapshot is None:
        raise CalibrantError(f"--domain {name}: the pack declares no snapshot format")
    return snapshot_file_model(pack).model_json_schema()


CheckPathsArg = Annotated[
    list[Path], typer.Argument(help="Transcript JSON files or folders of them.")
]
CheckCaseOpt = Annotated[
    Path | None,
    typer.Option(
        "--case",
        help="Case contract (YAML) to check against, instead of the "
        "copy embedded in each transcript.",
    ),
]
CheckJsonOpt = Annotated[bool, typer.Option("--json", help="Print stable JSON instead of tables.")]
CheckJsonlOpt = Annotated[
    bool,
    typer.Option(
        "--jsonl",
        help="Print one verdict per line as each transcript is checked, then one summary "
        "line (for large runs; a missing summary line means the run did not finish).",
    ),
]
CheckFailOpt = Annotated[
    bool,
    typer.Option(
        "--fail-on-violation",
        help="Exit 1 if any invariant is violated; exit 3 if none is violated but "
        "some evidence was missing or inconsistent (harness_error).",
    ),
]
CheckVerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Show every transcript, clean ones too, with every invariant's outcome, why "
        "and its evidence (without it: a line per transcript with a finding, then the "
        "counts).",
    ),
]


@app.command()
def check(
    paths: CheckPathsArg,
    case: CheckCaseOpt = None,
    as_json: CheckJsonOpt = False,
    as_jsonl: CheckJsonlOpt = False,
    fail_on_violation: CheckFailOpt = False,
    verbose: CheckVerboseOpt = False,
) -> None:
    """Check transcripts against the deterministic safety invariants, one outcome each. Prints
    a line per transcript with a finding, the counts per invariant, the run id and what to run
    next (every transcript in detail with --verbose)."""
    from ..ops.check import CheckHooks, CheckOptions
    from ..ops.check import check as check_op
    from ..reports.check_run import CheckOutput, warn_unfinished_runs

    if as_json and as_jsonl:
        raise CalibrantError("--json and --jsonl are exclusive; choose one")
    err = Console(stderr=True)
    shown = CheckOutput(as_json=as_json, as_jsonl=as_jsonl, verbose=verbose)
    hooks = CheckHooks(
        on_inputs=lambda _: warn_unfinished_runs(paths, err), on_verdict=shown.on_verdict
    )
    try:
        with _store("check", err) as store:
            result = check_op(store, CheckOptions(tuple(paths), case), hooks)
        files, totals = result.files, result.totals
        assert files is not None and totals is not None
        shown.show(files, totals)
    finally:
        shown.close()
    shown.show_end(err, result.run_id, paths, files, totals)
    if fail_on_violation:
        if totals.violated:
            raise typer.Exit(1)
        if totals.harness_error:
            raise typer.Exit(3)


TrialsAgentOpt = Annotated[
    str,
    typer.Option(
        "--agent",
        help="scripted:BEHAVIOUR, scripted:BEHAVIOUR/STYLE (excellent, ordinary, terse, "
        "misleading), or llm:MODEL (any litellm model string).",
    ),
]
AgentApiBaseOpt = Annotated[
    str | None, typer.Option("--api-base", help="OpenAI-compatible endpoint for an llm: agent.")
]


@app.command()
def trials(
    paths: CasePathsArg,
    agent: TrialsAgentOpt,
    out: OutFolderOpt,
    k: TrialsKOpt = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed for wording and resampling.")] = 0,
    as_json: JsonOpt = False,
    markdown: MarkdownOpt = None,
    api_base: AgentApiBaseOpt = None,
    restart: RestartOpt = False,
) -> None:
    """Run k trials of an agent on each case from clean fixtures; write transcripts; report.
    Rerunning an interrupted command resumes it: finished trials are kept, not rerun."""
    from ..ops.trials import TrialsHooks, TrialsOptions
    from ..ops.trials import trials as trials_op
    from .trials_output import load_trial_cases, print_trial_report, run_with_progress

    cases = load_trial_cases(paths, out, markdown)  # every case checked before any trial runs
    options = TrialsOptions(
        tuple(cases), agent, out, paths=tuple(paths), k=k, seed=seed, api_base=api_base,
        restart=restart,
    )  # fmt: skip
    results: list[TrialsResult] = []
    err = Console(stderr=True)

    def run(on_trial: Callable[[TrialRun], None], on_resume: Callable[[int, int], None]) -> Any:
        hooks = TrialsHooks(on_trial=on_trial, on_resume=on_resume)
        with _sigterm_as_interrupt(), _store("trials", err) as store:
            results.append(trials_op(store, options, hooks))
        return list(results[0].runs)

    runs = run_with_progress(f"trials of {agent}", len(cases) * k, out, run)
    print_trial_report(
        runs,
        seed=seed,
        as_json=as_json,
        out=out,
        console=Console(stderr=as_json),
        markdown=markdown,
        report=results[0].report,
    )
    from ..reports.folder import next_line, print_run

    run_id = results[0].run_id
    print_run(
        run_id,
        [
            next_line(f"calibrant check {out if len(str(out)) <= 50 else 'OUT'}", "per trial"),
            next_line(f"calibrant runs show {run_id[:12]}", "this run, later"),
        ],
        as_json=as_json,
    )


@contextmanager
def _store(kind: str, err: Console) -> Iterator[Store | None]:
    """The store to record a check or trials run in (`runs list`); a store that cannot be
    opened is a warning (None), never a failed run."""
    from ..store import Store

    try:
        store = Store.open()
    except CalibrantError as exc:
        err.print(
            f"warning: this {kind} run is not recorded in the store: {exc}",
            style="yellow",
            highlight=False,
            markup=False,
        )
        yield None
        return
    with store:
        yield store


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a run the way Ctrl-C does: scratch files removed, the marker kept."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@app.command()
def selftest(
    cases: Annotated[
        Path | None,
        typer.Option(
            "--cases",
            help="Folder of case contracts (default: the installed domain pack's cases, "
            "wherever the command runs).",
        ),
    ] = None,
    domain: Annotated[
        str | None,
        typer.Option(
            "--domain",
            help="The domain pack to test (`calibrant domains list`); default: the domain the "
            "cases name, else that of files naming none.",
        ),
    ] = None,
    write: Annotated[
        Path | None,
        typer.Option("--write", help="Also write the corpus transcripts and a manifest here."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed for the agents' wording.")] = 0,
) -> None:
    """Test the checker on a domain: known-good transcripts must pass, deliberately broken ones
    must fail with the right invariant named. Exit 1 if the checker misses anything."""
    from ..contracts.forms import writes_unnamed
    from ..ops.selftest import run_selftest
    from ..reports.selftest_text import render_selftest

    result = run_selftest(cases, domain, seed=seed, write=write)
    domain = result.domain
    title = "Checker self-test" + ("" if writes_unnamed(domain) else f" (domain {domain})")
    render_selftest(result, Console(), title=title)
    if write is not None:
        n = len(result.rows)
        Console(stderr=True).print(f"wrote {n} transcripts and expected.yaml to {write}")
    if result.failures:
        raise typer.Exit(1)
