"""Judging past one machine's event loop: export the pending judge requests of a batch as OpenAI
batch JSON Lines (runnable by a provider's batch API or `vllm run-batch`), and ingest the results
back into the store.

Each request line carries a `custom_id` naming the transcript hash, the judge configuration hash
and the sample index, so ingesting is idempotent (an answer already stored is left alone) and a
result from another judge version is refused. Only what the store lacks is exported: a second
export after a partial ingest asks only for the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from ..contracts import FINAL_OUTCOMES, JudgeConfig, Judgment, Rubric, Transcript, content_hash
from ..contracts.reports.score_parts import IngestCounts
from ..errors import InputError
from ..store import Store
from .answer import Unparseable, answer_schema, parse_answer
from .client import redact_secrets
from .prompt import JudgePrompt, build_prompt, prompt_variant

__all__ = ["custom_id", "export_requests", "ingest_results", "IngestCounts", "unanswered"]


def custom_id(transcript_hash: str, judge_hash: str, sample: int) -> str:
    return f"{transcript_hash}|{judge_hash}|{sample}"


def _served_model(model: str) -> str:
    """The model name the endpoint knows: litellm's provider prefix removed."""
    return model.split("/", 1)[1] if "/" in model else model


def _prompt(transcript: Transcript, rubric: Rubric, config: JudgeConfig) -> JudgePrompt:
    """The prompt exactly as the judge client builds it for this configuration."""
    return build_prompt(
        transcript,
        rubric,
        datamark=config.datamark,
        labels_only=config.answer_format == "labels",
        untrusted_max_chars=config.untrusted_max_chars,
        variant=prompt_variant(config.prompt_template_version),
    )


def request_body(transcript: Transcript, rubric: Rubric, config: JudgeConfig) -> dict[str, Any]:
    """The chat-completions body the judge would send for this transcript."""
    prompt = _prompt(transcript, rubric, config)
    schema = answer_schema(
        rubric,
        prompt.evidence_ids,
        rationale_max=config.rationale_max_chars,
        labels_only=config.answer_format == "labels",
    )
    body: dict[str, Any] = {
        "model": _served_model(config.model),
        "messages": prompt.messages(),
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "judgment", "schema": schema, "strict": False},
        },
    }
    if config.top_p is not None:
        body["top_p"] = config.top_p
    if config.seed is not None:
        body["seed"] = config.seed
    return body


def export_requests(
    transcripts: Iterable[tuple[str, Transcript]],
    *,
    rubric: Rubric,
    config: JudgeConfig,
    store: Store,
    samples: int = 1,
) -> Iterator[dict[str, Any]]:
    """One batch request line per (transcript, sample) the store has no answer for."""
    for _, t in transcripts:
        th = content_hash(t)
        for s in range(samples):
            if store.get_final(th, config.hash, s) is not None:
                continue
            yield {
                "custom_id": custom_id(th, config.hash, s),
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": request_body(t, rubric, config),
            }


def _error_kind(status: Any, detail: Any) -> str:
    """The failure kind of an error result: rate_limited (429), timeout (408, 504, an expired
    batch), else provider_error."""
    text = json.dumps(detail, default=str).lower() if detail else ""
    code = int(status) if isinstance(status, int | str) and str(status).isdigit() else None
    if code == 429 or "rate_limit" in text:
        return "rate_limited"
    if code in (408, 504) or "timeout" in text or "timed out" in text or "expired" in text:
        return "timeout"
    return "provider_error"


def _judgment(
    t: Transcript, th: str, sample: int, config: JudgeConfig, rubric: Rubric, result: dict[str, Any]
) -> Judgment:
    base: dict[str, Any] = {
        "transcript_id": t.transcript_id,
        "transcript_hash": th,
        "judge_hash": config.hash,
        "judge": config,
        "sample_index": sample,
        "created_at": datetime.now(UTC),
        "attempts": 1,
        "latency_ms": 0.0,
    }
    response = result.get("response") or {}
    body = response.get("body") if isinstance(response, dict) else None
    status = response.get("status_code") if isinstance(response, dict) else None
    if result.get("error") or not isinstance(body, dict) or (status and int(status) >= 400):
        detail = result.get("error") or (body or {}).get("error") or f"status {status}"
        kind = _error_kind(status, detail)
        return Judgment(**base, outcome=kind, error=redact_secrets(str(detail))[:500])
    usage = body.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    base.update(
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
        cached_tokens=int(details.get("cached_tokens") or 0),
        cost_usd=None,  # batch prices differ from the price map: unknown, never guessed
    )
    choice = (body.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    if message.get("refusal") or choice.get("finish_reason") == "content_filter":
        return Judgment(**base, outcome="refusal", error=str(message.get("refusal") or "filtered"))
    text = message.get("content") or ""
    evidence_ids = _prompt(t, rubric, config).evidence_ids
    try:
        criteria = parse_answer(
            text, rubric, evidence_ids, labels_only=config.answer_format == "labels"
        )
    except Unparseable as exc:
        return Judgment(**base, outcome="unparseable", error=str(exc), raw=text[:2000])
    return Judgment(**base, outcome="verdict", criteria=criteria)


def unanswered(transcript_id: str, transcript_hash: str, config: JudgeConfig) -> Judgment:
    """The failure shown for a request no batch answered (never stored: a rerun asks again)."""
    return Judgment(
        transcript_id=transcript_id,
        transcript_hash=transcript_hash,
        judge_hash=config.hash,
        judge=config,
        sample_index=0,
        created_at=datetime.now(UTC),
        attempts=0,
        latency_ms=0.0,
        outcome="provider_error",
        error="no result from the provider batch",
    )


def _parse_id(cid: Any, source: str, line: int) -> tuple[str, str, int]:
    parts = str(cid).split("|") if cid else []
    if len(parts) != 3 or not parts[2].isdigit():
        raise InputError(
            source, f"custom_id {cid!r} was not made by calibrant", line=line, field="custom_id"
        )
    return parts[0], parts[1], int(parts[2])


def check_results(
    results: Iterable[tuple[int, dict[str, Any]]],
    transcripts: Iterable[tuple[str, Transcript]],
    *,
    config: JudgeConfig,
    source: str,
) -> None:
    """Refuse the file before storing anything: a line of another judge version, an unknown
    transcript or a custom_id calibrant did not write is an InputError with its line."""
    known = {content_hash(t) for _, t in transcripts}
    for line, result in results:
        th, jh, _ = _parse_id(result.get("custom_id"), source, line)
        if jh != config.hash:
            raise InputError(
                source,
                f"result of judge {jh[:19]}, not of the judge given ({config.hash[:19]})",
                line=line,
                field="custom_id",
            )
        if th not in known:
            raise InputError(
                source, "no given transcript has this hash", line=line, field="custom_id"
            )


def ingest_results(
    results: Iterable[tuple[int, dict[str, Any]]],
    transcripts: Callable[[], Iterable[tuple[str, Transcript]]],
    *,
    rubric: Rubric,
    config: JudgeConfig,
    store: Store,
    source: str,
) -> IngestCounts:
    """Store the answers of a batch results file (line number, parsed line); `transcripts`
    gives the batch's transcripts afresh on each call (they are read twice, one at a time).
    Every line is checked first: a line for another judge version or an unknown transcript is
    an InputError naming the file and the line, and nothing is stored."""
    results = list(results)
    check_results(results, transcripts(), config=config, source=source)
    wanted = {_parse_id(r.get("custom_id"), source, n)[0] for n, r in results}
    by_hash: dict[str, Transcript] = {}
    for _, t in transcripts():
        th = content_hash(t)
        if th in wanted:
            by_hash[th] = t
    stored = already_stored = failed = 0
    outcomes: dict[str, int] = {}
    for line, result in results:
        th, jh, sample = _parse_id(result.get("custom_id"), source, line)
        t = by_hash[th]
        if store.get_final(th, jh, sample) is not None:
            already_stored += 1
            continue
        j = _judgment(t, th, sample, config, rubric, result)
        if j.outcome in FINAL_OUTCOMES:
            stored += 1
        else:
            failed += 1
        outcomes[j.outcome] = outcomes.get(j.outcome, 0) + 1
        store.put(j)
    return IngestCounts(
        stored=stored,
        already_stored=already_stored,
        failed=failed,
        outcomes=dict(sorted(outcomes.items())),
    )
