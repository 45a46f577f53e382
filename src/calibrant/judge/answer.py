"""The judge's answer: a JSON schema built from the rubric (per criterion: rationale, cited
evidence ids, label), and strict parsing of what comes back."""

from __future__ import annotations

import json
from typing import Any

from ..contracts import INSUFFICIENT_EVIDENCE, CriterionJudgment, Rubric

__all__ = ["answer_schema", "parse_answer", "Unparseable", "RATIONALE_MAX"]

RATIONALE_MAX = 160
EVIDENCE_MAX = 3


class Unparseable(ValueError):
    """The model answered, but not with a valid judgment."""


def answer_schema(
    rubric: Rubric,
    evidence_ids: list[str],
    *,
    rationale_max: int = RATIONALE_MAX,
    labels_only: bool = False,
) -> dict[str, Any]:
    """JSON schema of a valid answer. String lengths and list sizes are bounded so small models
    stay short; cited ids must come from this item's evidence block. `labels_only`: the answer
    maps each criterion id to its label, nothing else (`{"c1": "pass", ...}`)."""
    if labels_only:
        return {
            "type": "object",
            "properties": {
                c.id: {"enum": [*c.allowed_labels(), INSUFFICIENT_EVIDENCE]}
                for c in rubric.criteria
            },
            "required": [c.id for c in rubric.criteria],
            "additionalProperties": False,
        }
    items: dict[str, Any] = (
        {"type": "string", "enum": evidence_ids} if evidence_ids else {"type": "string"}
    )
    props = {}
    for c in rubric.criteria:
        labels: list[str | int] = [*c.allowed_labels(), INSUFFICIENT_EVIDENCE]
        props[c.id] = {
            "type": "object",
            "properties": {
                "rationale": {"type": "string", "maxLength": rationale_max},
                "evidence": {
                    "type": "array",
                    "items": items,
                    "maxItems": EVIDENCE_MAX if evidence_ids else 0,
                },
                "label": {"enum": labels},
            },
            "required": ["rationale", "evidence", "label"],
            "additionalProperties": False,
        }
    return {
        "type": "object",
        "properties": props,
        "required": [c.id for c in rubric.criteria],
        "additionalProperties": False,
    }


def _strip_fences(text: str) -> str:
    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else ""
        t = t.rsplit("```", 1)[0]
    return t.strip()


def _coerce_label(raw: Any, allowed: list[str | int]) -> str | int:
    if raw in allowed and not isinstance(raw, bool):
        return raw  # type: ignore[no-any-return]
    if isinstance(raw, str):
        s = raw.strip()
        for a in allowed:
            if str(a).casefold() == s.casefold():
                return a
    if isinstance(raw, float) and raw.is_integer() and int(raw) in allowed:
        return int(raw)
    raise Unparseable(f"label {raw!r} is not one of {allowed}")


def parse_answer(
    text: str, rubric: Rubric, evidence_ids: list[str], *, labels_only: bool = False
) -> list[CriterionJudgment]:
    """Validate the model's text against the rubric (the schema of answer_schema() with the same
    `labels_only`); raise Unparseable with the reason."""
    try:
        data = json.loads(_strip_fences(text))
    except json.JSONDecodeError as exc:
        raise Unparseable(f"not JSON: {exc.msg} at char {exc.pos}") from None
    if not isinstance(data, dict):
        raise Unparseable("the answer is not a JSON object")
    known = set(evidence_ids)
    out = []
    for c in rubric.criteria:
        entry = data.get(c.id)
        if labels_only and c.id in data:
            entry = {"label": entry}  # a bare label: no rationale, no evidence
        if not isinstance(entry, dict):
            raise Unparseable(f"criterion {c.id} is missing")
        label = _coerce_label(entry.get("label"), [*c.allowed_labels(), INSUFFICIENT_EVIDENCE])
        cited = entry.get("evidence") or []
        if not isinstance(cited, list):
            raise Unparseable(f"criterion {c.id}: evidence is not a list")
        cited = list(dict.fromkeys(str(x) for x in cited))  # repeated citations count once
        rationale = entry.get("rationale") or ""
        if not isinstance(rationale, str):
            raise Unparseable(f"criterion {c.id}: rationale is not text")
        out.append(
            CriterionJudgment(
                criterion=c.id,
                label=label,
                rationale=rationale[: RATIONALE_MAX * 2],
                evidence=[x for x in cited if x in known],
                invalid_evidence=[x for x in cited if x not in known],
            )
        )
    extra = set(data) - {c.id for c in rubric.criteria}
    if extra:
        raise Unparseable(f"unknown criteria in the answer: {sorted(extra)}")
    return out
