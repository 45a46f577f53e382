"""Fitting the embedded judge's label prior on a reference set of transcripts ("batch
calibration", Zhou et al. 2023): `calibrant judges fit-prior`.

A small model prefers some labels whatever it reads. Contextual calibration estimates that
preference on content-free inputs; measured, it moved which label won, not whether the judge
tracked the experts (benchmarks/results/embedded_calibration.md). Here the preference is
estimated on real items instead: for every transcript of a reference set, each label's
probability right after the prompt (every branch of the labels' tokens evaluated), averaged
first within a case and then over cases (items of one case are not independent, so a case with
many items does not pull the prior its way). The judge then picks, per criterion, the label with
the largest log-probability minus the prior's.

No expert label is read: the prior is the model's own average answer, so fitting it on the gold
set's calibration split leaves the held-out split untouched, and a team can fit it on
production transcripts nobody labeled. The abstention (`insufficient_evidence`) is left out of
the rebalancing: a label the model almost never gives would otherwise win wherever its
probability is merely above its own tiny average.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..contracts import INSUFFICIENT_EVIDENCE, JudgeConfig, Rubric, Transcript
from ..errors import ConfigError, JudgeError
from .answer import answer_schema
from .client import judge_prompt
from .config import FittedLabelPrior
from .embedded import EMBEDDED_MODEL

__all__ = ["fit_label_prior", "item_label_probabilities", "reference_set"]

Reference = list[tuple[str, str, Transcript]]  # (item id, case, transcript)


def reference_set(
    paths: Sequence[Path], gold_dir: Path, split: str | None
) -> tuple[Reference, str]:
    """The transcripts a prior is fitted on, with their cases, and a line saying what they
    are: transcript files or folders when `paths` are given (nobody need have labeled them),
    else the gold set's split (its labels are not read, nor needed)."""
    from ..files import load_transcript
    from ..gold import read_manifest
    from ..paths import expand_paths

    if paths:
        files = expand_paths(paths, suffixes=(".json",))
        if not files:
            raise ConfigError(f"no transcript file in {', '.join(map(str, paths))}")
        items = [(str(f), t.case_id, t) for f in files for t in [load_transcript(f)]]
        what = f"{len(items)} transcript files"
    else:
        manifest = read_manifest(gold_dir / "manifest.yaml")
        chosen = sorted(i for i, m in manifest.items() if split in (None, m.split))
        if not chosen:
            raise ConfigError(f"{gold_dir / 'manifest.yaml'}: no item in split '{split}'")
        items = [
            (i, manifest[i].case, load_transcript(gold_dir / "transcripts" / f"{i}.json"))
            for i in chosen
        ]
        what = f"{gold_dir} split {split or 'all'}"
    cases = len({case for _, case, _ in items})
    return items, f"{what}: {len(items)} items, {cases} cases; labels not read"


def item_label_probabilities(
    transcript: Transcript, rubric: Rubric, config: JudgeConfig
) -> dict[str, dict[str, float]]:
    """Each criterion's label probabilities for one transcript, on the very prompt the judge
    sends (the same builder and options), each label right after the prompt."""
    from .embedded import label_probabilities
    from .embedded_request import Failure, Request

    if config.model != EMBEDDED_MODEL or config.answer_format != "labels":
        raise ConfigError(
            f"a label prior is fitted for the embedded model's labels answer ({EMBEDDED_MODEL}, "
            f"answer_format labels), not {config.model} {config.answer_format}"
        )
    prompt = judge_prompt(transcript, rubric, config)
    schema = answer_schema(rubric, prompt.evidence_ids, labels_only=True)
    request = Request(
        messages=prompt.messages(),
        temperature=0.0,
        top_p=None,
        max_tokens=None,
        seed=None,
        stop=[],
        schema_json=json.dumps(schema, sort_keys=True),
        deadline=None,
    )
    try:
        return label_probabilities(request)
    except Failure as exc:
        raise JudgeError(f"{transcript.transcript_id}: {exc}") from exc


def fit_label_prior(
    items: Reference,
    rubric: Rubric,
    config: JudgeConfig,
    *,
    fitted_on: str = "",
    on_item: Callable[[], None] | None = None,
) -> FittedLabelPrior:
    """The prior over `items` (item id, case, transcript): each label's probability averaged
    within each case, then over cases, as a log; the abstention left out."""
    if not items:
        raise ConfigError("no transcript to fit a label prior on")
    by_case: dict[str, list[dict[str, dict[str, float]]]] = {}
    for _item, case, transcript in items:
        by_case.setdefault(case, []).append(item_label_probabilities(transcript, rubric, config))
        if on_item is not None:
            on_item()
    labels: dict[str, dict[str, float]] = {}
    for criterion in rubric.criteria:
        means = [_mean(runs, criterion.id) for runs in by_case.values()]
        kept = [str(x) for x in criterion.allowed_labels()]
        shares = {label: sum(m[label] for m in means) / len(means) for label in kept}
        labels[criterion.id] = {
            label: round(math.log(p), 4) if p > 0 else -50.0 for label, p in shares.items()
        }
    return FittedLabelPrior(
        rubric_hash=rubric.content_hash,
        fitted_on=fitted_on,
        items=len(items),
        cases=len(by_case),
        labels=labels,
    )


def _mean(runs: Sequence[Mapping[str, Mapping[str, float]]], criterion: str) -> dict[str, float]:
    """One case's mean label probabilities for a criterion, the abstention's share removed and
    the rest renormalized (the judge compares the other labels among themselves)."""
    out: dict[str, float] = {}
    for run in runs:
        probs = run[criterion]
        rest = sum(p for label, p in probs.items() if label != INSUFFICIENT_EVIDENCE)
        for label, p in probs.items():
            if label != INSUFFICIENT_EVIDENCE:
                out[label] = out.get(label, 0.0) + (p / rest if rest > 0 else 0.0) / len(runs)
    return out
