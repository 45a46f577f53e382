"""The Typer application, the options shared by the commands that call a judge, and the judge
options those commands build from them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import CalibrantError

if TYPE_CHECKING:
    from ..judge.config import JudgeOptions

__all__ = [
    "app",
    "rubric_app",
    "batch_app",
    "judges_app",
    "runs_app",
    "db_app",
    "domains_app",
    "ModelOpt",
    "ApiBaseOpt",
    "RubricOpt",
    "JudgeOpt",
    "ConcurrencyOpt",
    "TimeoutOpt",
    "AttemptsOpt",
    "GoldOpt",
    "SplitOpt",
    "DomainOpt",
    "judge_options",
    "gold_split",
    "loading_note",
]


def _flags_shown_as_flags() -> None:
    """typer 0.29 shows every flag with a value type in --help (`--json <bool>`, even
    `--help <bool>`), as if it took a value: show a flag as a flag. Older typer releases, which
    have no such hook, already do."""
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "flags_as_flags", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag and self.metavar is None else shown(self, ctx)

    display_type_rich.flags_as_flags = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_shown_as_flags()

app = typer.Typer(
    name="calibrant",
    help="Calibrate an LLM judge of agent communication against expert labels, with "
    "deterministic safety verdicts kept apart.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)

rubric_app = typer.Typer(help="Rubric tools.", no_args_is_help=True)
app.add_typer(rubric_app, name="rubric")
batch_app = typer.Typer(
    help="Judge requests as OpenAI batch files: export what is pending, ingest results, or "
    "submit them to a provider's batch API and follow the batch.",
    no_args_is_help=True,
)
app.add_typer(batch_app, name="batch")
judges_app = typer.Typer(help="Saved judge versions (judges/*.yaml).", no_args_is_help=True)
app.add_typer(judges_app, name="judges")
runs_app = typer.Typer(help="Runs recorded in the store, with their reports.", no_args_is_help=True)
app.add_typer(runs_app, name="runs")
db_app = typer.Typer(help="The store's schema (CALIBRANT_DATABASE_URL).", no_args_is_help=True)
app.add_typer(db_app, name="db")
domains_app = typer.Typer(
    help="Domain packs installed (entry points 'calibrant.domains').", no_args_is_help=True
)
app.add_typer(domains_app, name="domains")


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"calibrant {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Options of `calibrant` itself, before any command."""


ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="litellm model string (default: the embedded offline judge, "
        "calibrant-local/smollm2-135m).",
    ),
]
ApiBaseOpt = Annotated[
    str | None,
    typer.Option("--api-base", help="OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama...)."),
]
RubricOpt = Annotated[
    Path | None,
    typer.Option(
        "--rubric",
        help="Rubric YAML (default: the rubric of the installed pack that reads files naming "
        "no domain, wherever the command runs; `calibrant domains show NAME` says where it is).",
    ),
]
JudgeOpt = Annotated[
    str | None, typer.Option("--judge", help="Saved judge configuration: judges/NAME.yaml.")
]
ConcurrencyOpt = Annotated[
    int | None, typer.Option("--concurrency", min=1, help="Parallel model calls (default 4).")
]
TimeoutOpt = Annotated[float | None, typer.Option("--timeout", help="Per-call timeout in seconds.")]
AttemptsOpt = Annotated[
    int | None,
    typer.Option("--max-attempts", min=1, help="Calls per item, retries included (default 4)."),
]

GoldOpt = Annotated[
    Path | None,
    typer.Option(
        "--gold",
        help="Gold set folder (default: the gold set of the installed pack that reads files "
        "naming no domain, wherever the command runs; `calibrant domains show NAME` says "
        "where it is).",
    ),
]
SplitOpt = Annotated[str, typer.Option("--split", help="calibration, heldout or all.")]


def _installed_domain(name: str | None) -> str | None:
    """The --domain value, once an installed pack provides it (one line, exit 2, otherwise)."""
    if name is None:
        return None
    from ..domains import UnknownDomain, get

    try:
        get(name)
    except UnknownDomain as exc:
        raise CalibrantError(f"--domain {name}: {exc}") from None
    return name


DomainOpt = Annotated[
    str | None,
    typer.Option(
        "--domain",
        callback=_installed_domain,
        help="The installed domain pack whose rubric and gold set are the defaults when "
        "--rubric or --gold is not given (default: the default domain; `calibrant domains list`).",
    ),
]


def judge_options(
    model: str | None = None,
    api_base: str | None = None,
    rubric: Path | None = None,
    judge_name: str | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    max_attempts: int | None = None,
    *,
    temperature: float | None = None,
    datamark: bool | None = None,
    domain: str | None = None,
) -> JudgeOptions:
    """The judge options of a command, from the values of its shared options (ModelOpt,
    ApiBaseOpt, RubricOpt, JudgeOpt, ConcurrencyOpt, TimeoutOpt, AttemptsOpt, in the order the
    commands declare them) and the few only some commands have; None is "not given"."""
    from ..judge.config import JudgeOptions

    return JudgeOptions(
        model=model,
        api_base=api_base,
        rubric=rubric,
        judge=judge_name,
        concurrency=concurrency,
        timeout_s=timeout,
        max_attempts=max_attempts,
        temperature=temperature,
        datamark=datamark,
        domain=domain,
    )


def gold_split(split: str) -> str | None:
    """The gold split a --split value names (None: all of it); any other value is refused."""
    if split not in ("calibration", "heldout", "all"):
        raise CalibrantError(f"--split must be calibration, heldout or all, not '{split}'")
    return None if split == "all" else split


def loading_note(options: JudgeOptions) -> str | None:
    """What the first slow step is, when it is loading the embedded model."""
    from ..judge.config import resolve_judge
    from ..judge.embedded_request import EMBEDDED_MODEL

    config = resolve_judge(options)[0]
    return "loading the embedded model, then judging" if config.model == EMBEDDED_MODEL else None
