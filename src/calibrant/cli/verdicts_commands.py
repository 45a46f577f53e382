"""A judge that runs elsewhere: `calibrant verdicts import` turns an Inspect eval log or a
promptfoo result file into recorded verdict rows; `calibrate --verdicts` and `compare FILE`
read such rows (or the foreign file itself) with `calibration.load_recorded`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import ConfigError
from .app import GoldOpt, app
from .option_group import GROUP, option_group

if TYPE_CHECKING:
    from ..calibration.recorded import ImportMapping

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


ItemFromOpt = Annotated[
    str | None,
    typer.Option(
        "--item-from",
        help="Where the gold item id is: inspect: id (default) or metadata.KEY; promptfoo: "
        "vars.KEY (default vars.item) or description.",
    ),
]
CriterionFromOpt = Annotated[
    str | None,
    typer.Option(
        "--criterion-from",
        help="Where the criterion is: inspect: the scorer name, or each key of a score "
        "whose value is an object (default), or metadata.KEY of the score; promptfoo: "
        "metric (default) or type of the assertion.",
    ),
]
LabelFromOpt = Annotated[
    str | None,
    typer.Option(
        "--label-from", help="promptfoo: pass (default: true/false -> pass/fail) or score."
    ),
]
LabelMapOpt = Annotated[
    str | None,
    typer.Option(
        "--label-map",
        help="FROM=TO,... for values that are not the rubric's labels (inspect already "
        "reads C=pass, I=fail, true=pass, false=fail).",
    ),
]
JudgeVersionOpt = Annotated[
    str | None,
    typer.Option(
        "--judge-version",
        help="The judge's version in the rows (default inspect/TASK@VERSION, promptfoo/EVAL_ID).",
    ),
]
EpochOpt = Annotated[int, typer.Option("--epoch", min=1, help="inspect: the epoch read.")]


def _mapping(
    *,
    item_from: str | None,
    criterion_from: str | None,
    label_from: str | None,
    label_map: str | None,
    judge_version: str | None,
    epoch: int,
) -> ImportMapping:
    from ..calibration.recorded import ImportMapping

    labels = parse_label_map(label_map)
    if label_from not in (None, "pass", "score"):
        raise ConfigError(f"--label-from {label_from}: pass or score")
    return ImportMapping(
        item_from=item_from,
        criterion_from=criterion_from,
        label_from=label_from,
        judge_version=judge_version,
        labels=labels,
        epoch=epoch,
    )


mapping_group = option_group(
    {
        "item_from": (ItemFromOpt, None),
        "criterion_from": (CriterionFromOpt, None),
        "label_from": (LabelFromOpt, None),
        "label_map": (LabelMapOpt, None),
        "judge_version": (JudgeVersionOpt, None),
        "epoch": (EpochOpt, 1),
    },
    _mapping,
    into="mapping",
)
"""How the foreign file's fields become rows, `--item-from` to `--epoch`, received as one
`ImportMapping`."""


@verdicts_app.command("import")
@mapping_group
def import_verdicts(
    source: Annotated[
        Path, typer.Argument(metavar="FILE", help="The Inspect log or promptfoo file.")
    ],
    fmt: Annotated[
        str, typer.Option("--from", help="inspect (an .eval or .json log) or promptfoo.")
    ],
    out: Annotated[Path, typer.Option("--out", help="The verdicts file to write: .jsonl or .csv.")],
    mapping: ImportMapping = GROUP,
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
    from ..ops.verdicts import import_verdicts as run
    from ..reports.verdicts import imported_lines

    rows = run(source, fmt, out, mapping, rubric=rubric, gold=gold)
    for line in imported_lines(source, out, rows, checked=rubric is not None):
        typer.echo(line)
