"""A judge that runs elsewhere: `calibrant verdicts import` turns an Inspect eval log or a
promptfoo result file into recorded verdict rows; `calibrate --verdicts` and `compare FILE`
read such rows (or the foreign file itself) with `calibration.load_recorded`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import ConfigError
from .app import GoldOpt, app

verdicts_app = typer.Typer(
    help="Recorded verdicts of a judge that runs elsewhere (Inspect, promptfoo, your pipeline).",
    no_args_is_help=True,
)
app.add_typer(verdicts_app, name="verdicts")


def parse_label_map(text: str | None) -> dict[str, str | int]:
    """`--label-map C=pass,I=fail,P=insufficient_evidence`."""
    out: dict[str, str | int] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        src, eq, dst = part.partition("=")
        if not eq or not src.strip() or not dst.strip():
            raise ConfigError(f"--label-map: '{part}' is not FROM=TO (e.g. C=pass,I=fail)")
        value = dst.strip()
        out[src.strip()] = int(value) if value.lstrip("-").isdigit() else value
    return out


@verdicts_app.command("import")
def import_verdicts(
    source: Annotated[
        Path, typer.Argument(metavar="FILE", help="The Inspect log or promptfoo file.")
    ],
    fmt: Annotated[
        str, typer.Option("--from", help="inspect (an .eval or .json log) or promptfoo.")
    ],
    out: Annotated[Path, typer.Option("--out", help="The verdicts file to write: .jsonl or .csv.")],
    item_from: Annotated[
        str | None,
        typer.Option(
            "--item-from",
            help="Where the gold item id is: inspect: id (default) or metadata.KEY; promptfoo: "
            "vars.KEY (default vars.item) or description.",
        ),
    ] = None,
    criterion_from: Annotated[
        str | None,
        typer.Option(
            "--criterion-from",
            help="Where the criterion is: inspect: the scorer name, or each key of a score "
            "whose value is an object (default), or metadata.KEY of the score; promptfoo: "
            "metric (default) or type of the assertion.",
        ),
    ] = None,
    label_from: Annotated[
        str | None,
        typer.Option(
            "--label-from", help="promptfoo: pass (default: true/false -> pass/fail) or score."
        ),
    ] = None,
    label_map: Annotated[
        str | None,
        typer.Option(
            "--label-map",
            help="FROM=TO,... for values that are not the rubric's labels (inspect already "
            "reads C=pass, I=fail, true=pass, false=fail).",
        ),
    ] = None,
    judge_version: Annotated[
        str | None,
        typer.Option(
            "--judge-version",
            help="The judge's version in the rows (default inspect/TASK@VERSION, "
            "promptfoo/EVAL_ID).",
        ),
    ] = None,
    epoch: Annotated[int, typer.Option("--epoch", min=1, help="inspect: the epoch read.")] = 1,
    rubric: Annotated[
        Path | None,
        typer.Option(
            "--rubric", help="Check the rows against this rubric and --gold before writing."
        ),
    ] = None,
    gold: GoldOpt = None,
) -> None:
    """Turn an Inspect eval log or a promptfoo result file into recorded verdict rows (item,
    criterion, label, judge_version, rationale, and judged_at from the file's own timestamps)
    for `calibrate --verdicts`, `compare` and `monitor --verdicts`."""
    from ..calibration.recorded import (
        ImportMapping,
        check_verdicts,
        read_verdicts,
        verdicts_csv,
        verdicts_jsonl,
    )
    from ..gold import read_manifest
    from ..paths import check_output_path, write_atomic

    if fmt not in ("inspect", "promptfoo"):
        raise ConfigError(f"--from {fmt}: unknown; the formats are inspect, promptfoo")
    if out.suffix.lower() not in (".jsonl", ".csv"):
        raise ConfigError(f"--out {out}: give a .jsonl or .csv file name")
    check_output_path(out, option="--out")
    mapping = ImportMapping(
        item_from=item_from,
        criterion_from=criterion_from,
        label_from=label_from,
        judge_version=judge_version,
        labels=parse_label_map(label_map),
        epoch=epoch,
    )
    if label_from not in (None, "pass", "score"):
        raise ConfigError(f"--label-from {label_from}: pass or score")
    _, rows = read_verdicts(source, fmt, mapping)
    if rubric is not None:
        from ..domains import default_gold
        from ..files import load_rubric

        manifest = (gold or default_gold()) / "manifest.yaml"
        known = read_manifest(manifest)
        check_verdicts(rows, rubric=load_rubric(rubric), items=known, gold_name=str(manifest))
    write_atomic(out, verdicts_csv(rows) if out.suffix.lower() == ".csv" else verdicts_jsonl(rows))
    items = len({r.item for r in rows})
    timed = sum(r.judged_at is not None for r in rows)
    typer.echo(
        f"wrote {out}: {len(rows)} verdicts on {items} items, judge version "
        f"'{rows[0].judge_version}'" + ("" if rubric else " (not checked: give --rubric)")
    )
    if timed < len(rows):
        typer.echo(
            f"note: {len(rows) - timed} of {len(rows)} verdicts have no judged_at ({source.name} "
            "holds no time for them): left empty; `monitor --verdicts` needs one on every row"
        )
