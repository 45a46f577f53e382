"""The Typer application and the options shared by the commands that call a judge."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "app",
    "rubric_app",
    "batch_app",
    "judges_app",
    "runs_app",
    "ModelOpt",
    "ApiBaseOpt",
    "RubricOpt",
    "JudgeOpt",
    "ConcurrencyOpt",
    "TimeoutOpt",
    "AttemptsOpt",
]

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
    typer.Option("--rubric", help="Rubric YAML (default rubrics/refund_communication.yaml)."),
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
