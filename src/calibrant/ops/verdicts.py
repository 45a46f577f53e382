"""What every operation that reads a judge's recorded verdicts checks first: the format asked
for, and the rubric the rows are checked on (`calibrate --verdicts`, `compare FILE`,
`propose`, `audit`); and `verdicts import`, a foreign file (an Inspect log, promptfoo results)
turned into recorded verdict rows."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..calibration.recorded import ImportMapping, RecordedVerdict
    from ..contracts import Rubric

__all__ = ["check_format", "import_verdicts", "load_rubric_for_verdicts"]


def check_format(fmt: str) -> None:
    from ..calibration.recorded import FORMATS

    if fmt not in FORMATS:
        raise ConfigError(f"--verdicts-format {fmt}: unknown; the formats are {', '.join(FORMATS)}")


def load_rubric_for_verdicts(rubric: Path | None, domain: str | None = None) -> Rubric:
    """The rubric recorded verdicts are checked on: `rubric` (the user's path), else the
    installed pack's of `domain` (default: `default_domain()`'s)."""
    from ..domains import default_rubric
    from ..files import load_rubric

    return load_rubric(rubric or default_rubric(domain))


def import_verdicts(
    source: Path,
    fmt: str,
    out: Path,
    mapping: ImportMapping,
    *,
    rubric: Path | None = None,
    gold: Path | None = None,
) -> list[RecordedVerdict]:
    """The rows of `source` (`fmt`: inspect or promptfoo) read with `mapping`, checked against
    `rubric` and the gold set at `gold` (default: the installed pack's) when a rubric is given,
    and written to `out` (.jsonl or .csv, whole or not at all)."""
    from ..calibration.recorded import check_verdicts, read_verdicts, verdicts_csv, verdicts_jsonl
    from ..gold import read_manifest
    from ..paths import check_output_path, write_atomic

    if fmt not in ("inspect", "promptfoo"):
        raise ConfigError(f"--from {fmt}: unknown; the formats are inspect, promptfoo")
    if out.suffix.lower() not in (".jsonl", ".csv"):
        raise ConfigError(f"--out {out}: give a .jsonl or .csv file name")
    check_output_path(out, option="--out")
    _, rows = read_verdicts(source, fmt, mapping)
    if rubric is not None:
        from ..domains import default_gold
        from ..files import load_rubric

        manifest = (gold or default_gold()) / "manifest.yaml"
        known = read_manifest(manifest)
        check_verdicts(rows, rubric=load_rubric(rubric), items=known, gold_name=str(manifest))
    write_atomic(out, verdicts_csv(rows) if out.suffix.lower() == ".csv" else verdicts_jsonl(rows))
    return rows
