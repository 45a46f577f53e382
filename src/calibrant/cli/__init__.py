"""The `calibrant` command line. Thin: parse options, call one core function, render."""

from __future__ import annotations

import sys

import typer

from ..errors import CalibrantError
from . import judge_commands, safety_commands  # noqa: F401  (they register the commands)
from .app import app

__all__ = ["app", "main"]


def main() -> None:
    """Console entry point: user errors in one line on stderr, exit 2; bugs shown as bugs."""
    try:
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except CalibrantError as exc:
        print(f"calibrant: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        print("calibrant: aborted", file=sys.stderr)
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # a bug: say so, with the traceback
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(2)
        import traceback

        traceback.print_exc()
        print(
            f"calibrant: internal error (a bug, please report it): {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        sys.exit(70)
