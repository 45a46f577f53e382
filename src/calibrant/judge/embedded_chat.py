"""Chat prompts as tokens for the embedded model, with the trust boundary kept at token level.

The chat template's own text (``<|im_start|>system``, ``<|im_end|>``...) becomes special tokens;
message contents never do. Rendering the whole prompt and tokenizing it with special tokens on
would let a message that contains ``<|im_start|>system`` open a real system turn: here each
content is tokenized as plain text, so such a string is only characters the model reads."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["chat_tokens"]

_PLACEHOLDER = "\ue000{}\ue001"  # private-use characters: never part of a chat template
_SPLIT = re.compile("\ue000(\\d+)\ue001")


def chat_tokens(
    llama: Any, formatter: Any, messages: Sequence[dict[str, str]]
) -> tuple[list[int], Any]:
    """(prompt tokens, the formatter's response for stop strings and criteria).

    The template is rendered with a placeholder for each content; the template's text around
    the placeholders is tokenized with special tokens, each content without them.
    """
    placeholders = [{**m, "content": _PLACEHOLDER.format(i)} for i, m in enumerate(messages)]
    chat = formatter(messages=placeholders)
    tokens: list[int] = []
    if not chat.added_special:
        tokens += llama.tokenize(b"", add_bos=True, special=True)  # BOS, if the model wants one
    for k, piece in enumerate(_SPLIT.split(chat.prompt)):
        if k % 2 == 0:  # the template's own text
            if piece:
                tokens += llama.tokenize(piece.encode("utf-8"), add_bos=False, special=True)
        else:  # a message's content: untrusted, never special tokens
            content = messages[int(piece)]["content"]
            if content:
                tokens += llama.tokenize(content.encode("utf-8"), add_bos=False, special=False)
    return tokens, chat
