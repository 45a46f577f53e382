"""`agree`: the experts' agreement among themselves, no judge: Cohen's and weighted kappa per
pair of raters with intervals, Fleiss' kappa and Krippendorff's alpha per criterion
(`agreement.raters.rater_agreement`), on label files checked first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CalibrantError

if TYPE_CHECKING:
    from ..contracts.reports.agreement_parts import AgreeReport

__all__ = ["AgreeRequest", "agree"]


@dataclass(frozen=True)
class AgreeRequest:
    """The label files `labels` (any raters); `level`: nominal or ordinal for every criterion
    (None: from `rubric`, else nominal); `order`: the labels from lowest to highest,
    comma-separated (every criterion ordinal on that scale); `manifest`: the gold manifest, the
    bootstrap clustered by its cases; `seed`, `resamples`: the bootstrap."""

    labels: Sequence[Path]
    level: str | None = None
    rubric: Path | None = None
    manifest: Path | None = None
    order: str | None = None
    seed: int = 0
    resamples: int = 2000


def agree(request: AgreeRequest, warn: Callable[[str], None] | None = None) -> AgreeReport:
    """The raters' agreement report; `warn` hears each warning about the labels."""
    from ..agreement.raters import rater_agreement
    from ..files import load_rubric, read_labels
    from ..gold import read_manifest
    from ..labels import check_agree_labels, parse_order, unique_labels

    level, order, manifest = request.level, request.order, request.manifest
    if level not in (None, "nominal", "ordinal"):
        raise CalibrantError(f"--level must be nominal or ordinal, not '{level}'")
    if order is not None and level == "nominal":
        raise CalibrantError("--order gives an ordinal scale; it cannot go with --level nominal")
    located = [x for f in request.labels for x in read_labels(f)]
    unique_labels(located)  # a label given twice would silently change the figures
    scale = parse_order(order) if order is not None else None
    rub = load_rubric(request.rubric) if request.rubric else None
    for warning in check_agree_labels(located, rubric=rub, order=scale, level=level):
        if warn is not None:
            warn(warning)
    clusters = None
    if manifest is not None:
        clusters = {k: v.case for k, v in read_manifest(manifest).items()}
        for x in located:
            if x.label.item not in clusters:
                raise x.error(f"item '{x.label.item}' is not in {manifest}", field="item")
    try:
        return rater_agreement(
            [x.label for x in located],
            level="ordinal" if level == "ordinal" else "nominal" if level else None,
            rubric=rub,
            seed=request.seed,
            n_resamples=request.resamples,
            clusters=clusters,
            order=scale,
        )
    except ValueError as exc:
        raise CalibrantError(str(exc)) from None
