"""`calibrant batch submit`, and `calibrant score --submit`: the pending judge requests go to the
provider's batch API (through litellm), are followed until the batch ends, and its results are
stored; a rerun after a crash resumes the same provider batch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..errors import CalibrantError
from .app import batch_app
from .batch_submit import PollOpt, batch_hooks
from .judge_group import JUDGE_GROUP, judge_group

if TYPE_CHECKING:
    from ..judge.config import JudgeOptions


@batch_app.command("submit")
@judge_group("model", "api_base", "rubric", "judge_name")
def batch_submit(
    paths: Annotated[list[Path], typer.Argument(help="Transcripts, as for `calibrant score`.")],
    judge: JudgeOptions = JUDGE_GROUP,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Judgments per transcript.")] = 1,
    poll_s: PollOpt = 30.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the batches as JSON.")] = False,
) -> None:
    """Send the judge requests the store has no answer for to the provider's batch API
    (OpenAI-compatible: openai/, azure/, hosted_vllm/ models), follow the batch until it ends
    and store its results. Resumable: killed, then run again, it follows the same provider batch
    and submits nothing twice. `calibrant score --submit` does this, then scores from the store."""
    from ..judge.batch_submit import provider_of
    from ..ops.batch import BatchOptions, submit_batches
    from ..store import Store, make_engine

    config, rub = _batch_judge(judge)
    provider_of(config)  # refused before reading anything
    files, total = _validated(paths, rub)
    engine = make_engine()
    err = Console(stderr=True)
    err.print(f"{total} transcript(s) x {samples} sample(s)", highlight=False)
    options = BatchOptions(
        paths=tuple(str(p) for p in paths),
        config=config,
        rubric=rub,
        samples=samples,
        poll_s=poll_s,
    )
    results = submit_batches(Store(engine), options, files, batch_hooks(err))
    if as_json:
        typer.echo(json.dumps({"batches": [r.summary().json_data() for r in results]}, indent=2))


def _batch_judge(judge: JudgeOptions) -> tuple[Any, Any]:
    from ..judge.config import resolve_judge

    config, rub, _, _ = resolve_judge(judge)
    return config, rub


def _validated(paths: list[Path], rubric: Any) -> tuple[Any, int]:
    """The inputs, every transcript valid and of the rubric's domain before anything is written."""
    from ..domains import same_domain
    from ..scoring.inputs import find_inputs, iter_transcripts

    files = find_inputs([str(p) for p in paths])
    total = 0
    of = f"rubric '{rubric.rubric_id}'"
    for source, t in iter_transcripts(files):
        same_domain(source, t.domain, expected=rubric.domain, expected_from=of)
        total += 1
    if total == 0:
        raise CalibrantError("no transcript found in the given paths")
    return files, total


@batch_app.command("export")
@judge_group("model", "api_base", "rubric", "judge_name")
def batch_export(
    paths: Annotated[list[Path], typer.Argument(help="Transcripts, as for `calibrant score`.")],
    out: Annotated[Path, typer.Option("--out", help="Write the batch requests (JSONL) here.")],
    judge: JudgeOptions = JUDGE_GROUP,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Judgments per transcript.")] = 1,
) -> None:
    """Write the judge requests the store has no answer for as OpenAI batch JSON Lines (for a
    provider's batch API or `vllm run-batch`); ingest the results with `batch ingest`."""
    from ..judge.openai_batch import export_requests
    from ..paths import StreamedOutputs, check_output_path
    from ..scoring.inputs import iter_transcripts
    from ..store import Store, make_engine

    check_output_path(out, option="--out")
    config, rub = _batch_judge(judge)
    files, total = _validated(paths, rub)
    outputs = StreamedOutputs([out])
    n = 0
    try:
        fh = outputs.handle(out)
        for line in export_requests(
            iter_transcripts(files),
            rubric=rub,
            config=config,
            store=Store(make_engine()),
            samples=samples,
        ):
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
            n += 1
    except BaseException:
        outputs.discard()
        raise
    outputs.commit()
    Console(stderr=True).print(
        f"wrote {out}: {n} request(s) for {total} transcript(s) x {samples} sample(s); "
        f"{total * samples - n} already answered in the store",
        highlight=False,
    )


@batch_app.command("ingest")
@judge_group("model", "api_base", "rubric", "judge_name")
def batch_ingest(
    results: Annotated[Path, typer.Argument(help="The batch output file (JSONL).")],
    paths: Annotated[list[Path], typer.Argument(help="The transcripts the batch was made from.")],
    judge: JudgeOptions = JUDGE_GROUP,
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Store the answers of a batch output file (idempotent: answers already stored are left
    alone). Every line is checked before anything is stored."""
    from ..errors import InputError
    from ..judge.openai_batch import ingest_results
    from ..scoring.inputs import iter_transcripts
    from ..store import Store, make_engine

    config, rub = _batch_judge(judge)
    files, _ = _validated(paths, rub)
    parsed: list[tuple[int, dict[str, Any]]] = []
    try:
        with results.open("rb") as fh:
            for n, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    raise InputError(results, f"not JSON: {exc}", line=n) from None
                if not isinstance(row, dict):
                    raise InputError(results, "each line is one JSON object", line=n)
                parsed.append((n, row))
    except FileNotFoundError:
        raise InputError(results, "no such file") from None
    counts = ingest_results(
        parsed,
        lambda: iter_transcripts(files),
        rubric=rub,
        config=config,
        store=Store(make_engine()),
        source=str(results),
    )
    if as_json:
        typer.echo(json.dumps(counts.json_data(), sort_keys=True))
    else:
        Console().print(
            f"stored {counts.stored} answer(s); {counts.already_stored} already stored; "
            f"{counts.failed} error result(s) kept as provider_error (a later run retries them)",
            highlight=False,
        )
