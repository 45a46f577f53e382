"""The `calibrant` command line. Thin: parse options, call one core function, render."""

from __future__ import annotations

import sys

import typer

from ..errors import CalibrantError, Terminated
from ..settings import get_settings

# `calibrant --help` lists the commands in the order they register, which is the order of these
# imports: a new module's name places its commands.
from . import (  # noqa: F401  (they register the commands)
    audit_commands,
    batch_commands,
    case_commands,
    compare_commands,
    compare_judges_commands,
    domain_commands,
    gold_commands,
    import_commands,
    judge_commands,
    labels_commands,
    probe_commands,
    propose_commands,
    queue_commands,
    safety_commands,
    sandbox_commands,
    score_commands,
    service_commands,
    store_commands,
    verdicts_commands,
)
from .app import app
from .malloc import limit_malloc_arenas

__all__ = ["app", "main"]


def _click_exceptions() -> tuple[type[BaseException], type[BaseException]]:
    """(ClickException, NoArgsIsHelpError) of the click that typer actually uses.

    typer >= 0.29 bundles its own copy of click (``typer._click``); older releases use the
    ``click`` package. Both are found from typer's own exception class, so neither version's
    usage errors slip through as "internal errors"."""
    base = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
    module = sys.modules[base.__module__]
    no_args = getattr(module, "NoArgsIsHelpError", None)
    return base, no_args if isinstance(no_args, type) else type("_Never", (Exception,), {})


def _usage_line(exc: BaseException) -> str:
    """One line for a usage error: where, what, and how to get help."""
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else "calibrant"
    message = " ".join(exc.format_message().split())  # type: ignore[attr-defined]
    hint = f"; try '{where} --help'" if ctx is not None else ""
    return f"{where}: error: {message}{hint}"


def main() -> None:
    """Console entry point: user and usage errors in one line on stderr, exit 2; bugs shown as
    bugs (traceback, exit 70)."""
    limit_malloc_arenas()  # before any worker thread: memory flat over long runs
    click_exception, no_args_is_help = _click_exceptions()
    try:
        get_settings()  # a bad CALIBRANT_* value stops here, in one line naming it
        code = app(standalone_mode=False, prog_name="calibrant")
        sys.exit(code if isinstance(code, int) else 0)
    except CalibrantError as exc:
        print(f"calibrant: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except Terminated:  # SIGTERM, drained like Ctrl-C: answers already received are kept
        print("calibrant: terminated", file=sys.stderr)
        sys.exit(143)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        print("calibrant: aborted", file=sys.stderr)
        sys.exit(130)
    except SystemExit:
        raise
    except no_args_is_help as exc:  # `calibrant` or `calibrant rubric` alone: the help
        ctx = getattr(exc, "ctx", None)
        typer.echo(ctx.get_help() if ctx is not None else "")
        sys.exit(0)
    except click_exception as exc:
        print(_usage_line(exc), file=sys.stderr)
        sys.exit(2)
    except Exception as exc:  # a bug: say so, with the traceback
        import traceback

        traceback.print_exc()
        print(
            f"calibrant: internal error (a bug, please report it): {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        sys.exit(70)
