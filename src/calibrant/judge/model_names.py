"""A judge's model string that no call can succeed with, said in one line before a second call.

Two slips no retry can fix: a model string litellm cannot route (`gpt4o`: no provider, the
commonest one), found before the first call (`check_route`); and a provider or server that has
no such model (404: `openai/gpt4o`, a wrong `--api-base` path), found at the first answer
(`not_found_message`). Each line names the model given and, for a hosted provider, the nearest
model strings litellm knows (`nearest_models`: its price map's chat models, by similarity of
the name), e.g. `openai/gpt-4o`."""

from __future__ import annotations

import difflib
from typing import Any

from ..contracts.judgment import mask_url
from ..errors import JudgeError

__all__ = [
    "NO_PROVIDER",
    "check_route",
    "nearest_models",
    "no_provider_message",
    "not_found_message",
]

NO_PROVIDER = "LLM Provider NOT provided"
"""What litellm's error says when it cannot tell a model string's provider."""


def nearest_models(litellm: Any, model: str, n: int = 3) -> list[str]:
    """Up to `n` model strings litellm can route (`provider/name`, a chat model of its price
    map) whose name is nearest to `model`'s (its part after the last `/`), nearest first."""
    given = model.rsplit("/", 1)[-1].lower()
    by_name: dict[str, list[tuple[int, str]]] = {}
    for key, info in getattr(litellm, "model_cost", {}).items():
        if not isinstance(info, dict) or info.get("mode") != "chat":
            continue
        provider = info.get("litellm_provider")
        if not isinstance(provider, str) or not provider:
            continue
        full = key if key.startswith(f"{provider}/") else f"{provider}/{key}"
        # the provider litellm gives the bare name first (gpt-4o: openai), then the others
        rank = 0 if "/" not in key else full.count("/")
        by_name.setdefault(full.rsplit("/", 1)[-1].lower(), []).append((rank, full))
    close = difflib.get_close_matches(given, list(by_name), n=n, cutoff=0.6)
    return [min(by_name[name])[1] for name in close]


def _suggest(litellm: Any, model: str) -> str:
    near = nearest_models(litellm, model)
    if not near:
        return "a hosted model as provider/name (e.g. openai/gpt-4o-mini)"
    return f"the nearest known: {', '.join(near)}"


def no_provider_message(litellm: Any, model: str) -> str:
    """One line for a model string litellm cannot route."""
    return (
        f"the judge's model '{model}' names no provider: write it as provider/name "
        f"({_suggest(litellm, model)}; a local OpenAI-compatible server's: openai/NAME with "
        "--api-base)"
    )


def not_found_message(litellm: Any, model: str, api_base: str | None, detail: str) -> str:
    """One line for a 404 at the first call: no such model at the provider, or at the server
    (or no chat completions at that address)."""
    said = " ".join(detail.split())[:200]
    if api_base:
        return (
            f"the server at {mask_url(api_base)} has no model '{model.split('/', 1)[-1]}' or no "
            f"chat completions there (404): check the name it serves (GET .../models) and "
            f"--api-base ({said})"
        )
    return f"the judge's provider has no model '{model}' (404): {_suggest(litellm, model)} ({said})"


def check_route(litellm: Any, model: str, api_base: str | None) -> None:
    """Raise JudgeError (one line, the nearest model strings) when litellm cannot route
    `model` (to `api_base`, if given): every call would fail the same way."""
    try:
        litellm.get_llm_provider(model=model, api_base=api_base)
    except Exception as exc:
        if NO_PROVIDER not in str(exc):
            return  # another complaint: the first call says it, as it always has
        raise JudgeError(no_provider_message(litellm, model)) from None
