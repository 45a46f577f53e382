"""`judges fit-prior`: fit the embedded judge's label prior on reference transcripts (a gold
split's by default; nobody's labels are read) and save a judge that picks each label
rebalanced by it (`label_scoring: fitted`) as judges/NAME.yaml."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CalibrantError
from .common import Hooks

if TYPE_CHECKING:
    from ..judge.config import FittedLabelPrior, JudgeOptions

__all__ = ["FitPriorRequest", "FittedJudge", "fit_prior"]


@dataclass(frozen=True)
class FitPriorRequest:
    """The saved judge `out` (judges/OUT.yaml; `force`: replace it) made from the judge of
    `judge` (its model, or the saved judge it names, and its rubric), its prior fitted on the
    transcripts at `paths` (none: split `split` of the gold set `gold`, default the pack's)."""

    out: str
    judge: JudgeOptions
    paths: tuple[Path, ...] = ()
    gold: Path | None = None
    split: str | None = "calibration"
    force: bool = False


@dataclass(frozen=True)
class FittedJudge:
    """The saved judge written, its prior, and how long the fit took (seconds)."""

    target: Path
    prior: FittedLabelPrior
    seconds: float


def fit_prior(request: FitPriorRequest, hooks: Hooks | None = None) -> FittedJudge:
    """Fit, write and read back the saved judge of `request`; `hooks.progress` follows the
    items."""
    import yaml

    from ..domains import default_gold
    from ..files import load_yaml_mapping
    from ..judge.config import JudgeOptions, judges_dir, resolve_judge
    from ..judge.fit_prior import fit_label_prior, reference_set
    from ..paths import write_atomic

    hooks, out, judge = hooks or Hooks(), request.out, request.judge
    if not out.replace("-", "").replace("_", "").isalnum():
        raise CalibrantError(f"--out {out!r}: a judge name is letters, digits, - and _")
    target = judges_dir() / f"{out}.yaml"
    if target.exists() and not request.force:
        raise CalibrantError(f"--out {out}: {target} exists; give --force to replace it")
    config, rub, _, _ = resolve_judge(judge)
    base: dict[str, Any] = {"model": config.model}
    if judge.judge:
        base = load_yaml_mapping(judges_dir() / f"{judge.judge}.yaml", "saved judge")[0]
    if judge.rubric is not None:
        base["rubric"] = str(judge.rubric)
    # the gold split is read only when no transcript is given: only then is a gold set needed
    gold = request.gold or (Path() if request.paths else default_gold(judge.domain))
    items, fitted_on = reference_set(list(request.paths), gold, request.split)
    started = time.monotonic()
    with hooks.progress("items", len(items)) as tracker:
        prior = fit_label_prior(
            items,
            rub,
            config.model_copy(update={"label_scoring": None, "label_prior": None}),
            fitted_on=fitted_on,
            on_item=tracker.advance,
        )
    saved = {k: v for k, v in base.items() if k not in ("label_scoring", "label_prior")}
    saved["label_scoring"] = "fitted"
    saved["label_prior"] = prior.model_dump(mode="json")
    header = (
        f"# Written by `calibrant judges fit-prior --out {out}`: the label prior is the embedded\n"
        "# model's own mean label probabilities on the reference transcripts (no expert label\n"
        "# read); the judge picks each label rebalanced by it. Calibrate it before trusting it.\n"
    )
    write_atomic(target, header + yaml.safe_dump(saved, sort_keys=False, allow_unicode=True))
    resolve_judge(JudgeOptions(judge=out))  # the file written reads back as a judge
    return FittedJudge(target, prior, time.monotonic() - started)
