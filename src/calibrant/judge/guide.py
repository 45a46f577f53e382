"""The labeling guide for human experts, generated from the same rubric file the judge reads."""

from __future__ import annotations

from ..contracts import CANT_TELL, NOT_APPLICABLE, Rubric
from .evidence import phrasing

__all__ = ["labeling_guide"]


def labeling_guide(rubric: Rubric) -> str:
    """Markdown: how to label, then every criterion with its scale and examples."""
    out = [
        f"# Labeling guide — {rubric.title}",
        "",
        f"Rubric `{rubric.rubric_id}` version {rubric.version}, content hash "
        f"`{rubric.content_hash}`. The judge model reads the same definitions.",
        "",
        "## How to label",
        "",
        rubric.instructions.strip(),
        "",
        f"- Read the **records** first: they are the truth ({phrasing(rubric.domain).facts}, "
        "denied or failed tool calls, accepted messages). Then read the conversation "
        "and the messages the agent sent, as the customer saw them.",
        "- Give every criterion one label per transcript, independently of the others and of "
        "whether the agent's *actions* were right (safety is checked elsewhere).",
        f"- Use `{NOT_APPLICABLE}` only where a criterion says when it does not apply.",
        f"- Use `{CANT_TELL}` when the records and conversation do not let you decide. It is "
        "counted as an abstention, not as a disagreement.",
        "- Write one JSON object per line: "
        '`{"item": "<transcript id>", "rater": "<your id>", "criterion": "<criterion id>", '
        '"label": <label>, "note": "<optional, one sentence>"}` (or a CSV with the same '
        "columns).",
        "",
        "## Criteria",
        "",
    ]
    for c in rubric.criteria:
        labels = ", ".join(f"`{v}`" for v in c.allowed_labels()) + f", `{CANT_TELL}`"
        out += [
            f"### `{c.id}` — {c.title}",
            "",
            f"**Question.** {c.question}",
            "",
            c.definition.strip(),
            "",
            f"**Scale ({c.scale.kind}).** Labels: {labels}.",
            "",
        ]
        out += [f"- `{lv.value}` — **{lv.name}**: {lv.description}" for lv in c.scale.levels]
        if c.not_applicable_when:
            out += [f"- `{NOT_APPLICABLE}` — when: {c.not_applicable_when}"]
        out.append("")
        for kind, examples in (
            ("Earns a good label", c.positive_examples),
            ("Earns a bad label", c.negative_examples),
        ):
            for ex in examples:
                out += [
                    f"*{kind}* (`{ex.label}`): “{ex.text}”  ",
                    f"Records: {ex.context or '—'}. Why: {ex.why}",
                    "",
                ]
    return "\n".join(out).rstrip() + "\n"
