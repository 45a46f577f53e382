"""Resolving a judge from command-line options and saved judge configurations (judges/*.yaml)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

from pydantic import Field

from ..contracts import JudgeConfig, Rubric
from ..contracts.common import Contract
from ..domains import UnknownDomain, default_rubric
from ..domains import get as get_pack
from ..errors import ConfigError
from ..files import load_rubric, load_yaml_model
from ..settings import get_settings
from .embedded_request import EMBEDDED_MODEL
from .llm_setup import set_price, split_endpoint
from .prompt import PROMPT_TEMPLATE_VERSION
from .reliability import RetryPolicy

__all__ = [
    "SavedJudge",
    "FittedLabelPrior",
    "JudgePrice",
    "JudgeOptions",
    "resolve_judge",
    "build_judge",
    "judges_dir",
    "default_judge",
    "shipped_prior",
]


class JudgePrice(Contract):
    """What the judge's model costs, in USD per million tokens (the unit providers publish)."""

    input_usd_per_mtok: float = Field(ge=0, description="USD per million input tokens.")
    output_usd_per_mtok: float = Field(ge=0, description="USD per million output tokens.")


class FittedLabelPrior(Contract):
    """A label prior fitted on a reference set of transcripts (`calibrant judges fit-prior`):
    per criterion, the log of each label's probability averaged over the set's items, as the
    embedded model gives it right after the prompt ("batch calibration"). No expert label is
    read. A label left out is not rebalanced (the abstention, by default)."""

    rubric_hash: str = Field(description="Content hash of the rubric the prior was fitted on.")
    fitted_on: str = Field(default="", description="What the reference set was (for people).")
    items: int = Field(ge=1, description="Reference transcripts averaged.")
    cases: int = Field(ge=1, description="Cases those transcripts came from.")
    labels: dict[str, dict[str, float]] = Field(
        description="criterion -> label -> log of its mean probability (<= 0)."
    )


class SavedJudge(Contract):
    """A saved judge configuration (`--judge NAME` reads judges/NAME.yaml)."""

    schema_version: int = Field(default=1, description="Saved judge schema version.")
    model: str = Field(min_length=1, description="litellm model string.")
    api_base: str | None = Field(default=None, description="OpenAI-compatible endpoint.")
    rubric: str | None = Field(default=None, description="Rubric file, relative to the cwd.")
    temperature: float = Field(default=0.0, ge=0, description="Sampling temperature.")
    max_tokens: int = Field(default=600, ge=16, description="Max output tokens.")
    top_p: float | None = Field(default=None, gt=0, le=1, description="Nucleus sampling p.")
    seed: int | None = Field(default=None, description="Sampling seed.")
    datamark: bool = Field(default=False, description="Datamark untrusted text.")
    rationale_max_chars: int | None = Field(
        default=None,
        ge=16,
        le=2000,
        description="Longest rationale allowed (default 160; 48 for the embedded model).",
    )
    untrusted_max_chars: int = Field(
        default=2000,
        ge=100,
        le=100_000,
        description="Longest untrusted text shown to the judge; longer ones are cut, with a mark.",
    )
    answer_format: Literal["full", "labels"] | None = Field(
        default=None,
        description="full (rationale, evidence ids, label) or labels (label only); default "
        "labels for the embedded model, full otherwise.",
    )
    label_scoring: Literal["joint", "independent", "calibrated", "fitted"] | None = Field(
        default=None,
        description="How the embedded model's labels are picked by log-probability: joint "
        "(each after the ones before it, in one answer), independent (each on its own after the "
        "prompt), calibrated (independent, rebalanced by the labels' prior on content-free "
        "inputs) or fitted (independent, rebalanced by `label_prior`). Default joint. Only for "
        "the embedded model's labels answer.",
    )
    label_prior: FittedLabelPrior | None = Field(
        default=None,
        description="The prior `label_scoring: fitted` rebalances by (`calibrant judges "
        "fit-prior` writes it).",
    )
    concurrency: int = Field(default=4, ge=1, description="Parallel calls.")
    timeout_s: float = Field(default=60.0, gt=0, description="Per-call timeout, seconds.")
    max_attempts: int = Field(default=4, ge=1, description="Calls per item, retries included.")
    price: JudgePrice | None = Field(
        default=None,
        description="The model's price (USD per million input and output tokens), for a model "
        "litellm has no price for; without one, such a model's cost is recorded as unknown.",
    )


class JudgeOptions(Contract):
    """Options a judging command received (None: not given on the command line)."""

    model: str | None = None
    api_base: str | None = None
    rubric: Path | None = None
    judge: str | None = None
    concurrency: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    timeout_s: float | None = None
    max_attempts: int | None = None
    datamark: bool | None = None
    domain: str | None = None
    """The domain whose installed pack's rubric is the default (None: the default domain's)."""


def judges_dir() -> Path:
    """Where saved judges live: $CALIBRANT_JUDGES_DIR or ./judges."""
    return get_settings().judges_dir


def resolve_judge(opts: JudgeOptions) -> tuple[JudgeConfig, Rubric, RetryPolicy, int]:
    """The judge configuration, its rubric, the retry policy and the concurrency. Explicit
    options override a saved judge; the default is the embedded offline model."""
    saved = SavedJudge(model=EMBEDDED_MODEL)
    if opts.judge:
        path = judges_dir() / f"{opts.judge}.yaml"
        if not path.exists():
            known = sorted(p.stem for p in judges_dir().glob("*.yaml"))
            raise ConfigError(
                f"no saved judge '{opts.judge}' in {judges_dir()}/ "
                f"(known: {', '.join(known) or 'none'})"
            )
        saved = load_yaml_model(SavedJudge, path, "saved judge")
    if opts.rubric is not None:
        rubric_path = opts.rubric  # the user's path, relative to their working directory
    elif saved.rubric:
        rubric_path = Path(saved.rubric)
    else:
        rubric_path = default_rubric(opts.domain)  # the domain pack's rubric
    rubric = load_rubric(rubric_path)
    if not opts.judge and (opts.model or EMBEDDED_MODEL) == EMBEDDED_MODEL:
        saved = default_judge(rubric)
    source = f"{judges_dir() / opts.judge}.yaml" if opts.judge else "the default judge"
    return build_judge(saved, opts, rubric, source)


def shipped_prior(rubric: Rubric) -> Path | None:
    """The label prior shipped for this rubric, if its domain's pack ships one: the file named
    by the rubric's content hash in the pack's `label_priors` folder (the embedded model's mean
    label probabilities on the pack's gold calibration split). None: no such file, or no
    installed pack of the rubric's domain."""
    try:
        folder = get_pack(rubric.domain).pack.label_priors
    except UnknownDomain:
        return None
    if folder is None:
        return None
    path = folder / f"{rubric.content_hash.removeprefix('sha256:')}.json"
    return path if path.is_file() else None


def default_judge(rubric: Rubric) -> SavedJudge:
    """The judge when none is named: the embedded model, its labels rebalanced by the prior
    shipped for this rubric when there is one (`label_scoring: fitted`), else picked jointly.
    A rubric of your own gets a prior with `calibrant judges fit-prior`."""
    path = shipped_prior(rubric)
    if path is None:
        return SavedJudge(model=EMBEDDED_MODEL)
    prior = FittedLabelPrior.model_validate_json(path.read_text())
    return SavedJudge(model=EMBEDDED_MODEL, label_scoring="fitted", label_prior=prior)


def _checked_prior(saved: SavedJudge, rubric: Rubric, source: str) -> dict[str, dict[str, float]]:
    """The fitted prior's numbers, once it is known to fit this rubric (one line otherwise)."""
    prior = saved.label_prior
    if prior is None:
        raise ConfigError(
            f"{source}: label_scoring fitted needs a label_prior "
            "(`calibrant judges fit-prior` writes one)"
        )
    if prior.rubric_hash != rubric.content_hash:
        raise ConfigError(
            f"{source}: label_prior.rubric_hash: fitted on rubric {prior.rubric_hash[:19]}, "
            f"the judge reads {rubric.rubric_id} {rubric.content_hash[:19]}; fit it again with "
            "`calibrant judges fit-prior`"
        )
    allowed = {
        c.id: {str(x) for x in c.allowed_labels()} | {"insufficient_evidence"}
        for c in rubric.criteria
    }
    for criterion, labels in prior.labels.items():
        if criterion not in allowed:
            raise ConfigError(
                f"{source}: label_prior.labels.{criterion}: not a criterion of {rubric.rubric_id}"
            )
        for label, value in labels.items():
            if label not in allowed[criterion]:
                raise ConfigError(
                    f"{source}: label_prior.labels.{criterion}.{label}: not a label of {criterion}"
                )
            if not (math.isfinite(value) and value <= 0):
                raise ConfigError(
                    f"{source}: label_prior.labels.{criterion}.{label}: {value} is not a "
                    "log-probability (finite, <= 0)"
                )
    return {c: dict(sorted(v.items())) for c, v in sorted(prior.labels.items())}


def build_judge(
    saved: SavedJudge, opts: JudgeOptions, rubric: Rubric, source: str = "saved judge"
) -> tuple[JudgeConfig, Rubric, RetryPolicy, int]:
    """The judge of a saved configuration on `rubric` (already read), explicit options
    overriding it: what `resolve_judge` does once the files are read, and what the service does
    with a judge version kept in the store."""
    model = opts.model or saved.model
    embedded = model == EMBEDDED_MODEL
    answer_format = saved.answer_format or ("labels" if embedded else "full")
    # joint stays the default: contextual calibration did not raise the embedded judge's kappa
    # (benchmarks/results/embedded_calibration.md)
    scoring = saved.label_scoring or "joint"
    if scoring != "joint" and not (embedded and answer_format == "labels"):
        raise ConfigError(
            f"label_scoring {scoring} needs the embedded model's label log-probabilities "
            f"(model {EMBEDDED_MODEL}, answer_format labels); set label_scoring: joint"
        )
    prior = _checked_prior(saved, rubric, source) if scoring == "fitted" else None
    if scoring != "fitted" and saved.label_prior is not None:
        raise ConfigError(f"{source}: label_prior is read only with label_scoring: fitted")
    config = JudgeConfig(
        model=model,
        api_base=opts.api_base if opts.api_base is not None else saved.api_base,
        prompt_template_version=PROMPT_TEMPLATE_VERSION,
        rubric_hash=rubric.content_hash,
        temperature=opts.temperature if opts.temperature is not None else saved.temperature,
        max_tokens=opts.max_tokens or saved.max_tokens,
        top_p=saved.top_p,
        seed=saved.seed,
        datamark=opts.datamark if opts.datamark is not None else saved.datamark,
        # a 135M model generates ~30 tokens/s under a grammar: short rationales keep it usable
        rationale_max_chars=saved.rationale_max_chars or (48 if embedded else 160),
        untrusted_max_chars=saved.untrusted_max_chars,
        # the embedded model only picks labels (scored by llama.cpp, nothing generated)
        answer_format=answer_format,
        label_scoring=None if scoring == "joint" else scoring,
        label_prior=prior,
    )
    if saved.price is not None and model == saved.model:  # the price is the saved model's
        set_price(model, saved.price.input_usd_per_mtok, saved.price.output_usd_per_mtok)
    if config.endpoint:
        split_endpoint(config.endpoint)  # a URL that cannot be called is refused before any call
    policy = RetryPolicy(
        max_attempts=opts.max_attempts or saved.max_attempts,
        timeout_s=opts.timeout_s or (max(saved.timeout_s, 600.0) if embedded else saved.timeout_s),
    )
    concurrency = opts.concurrency or saved.concurrency
    return config, rubric, policy, concurrency
