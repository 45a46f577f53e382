"""The judge: trusted evidence, a fenced prompt, litellm calls under one retry owner, outcomes,
caching, and the embedded offline model. Importing this package loads neither litellm nor
llama.cpp, nor any of its modules: exports load on first use (see calibrant.lazy), so a command
that resolves a judge (`judge.config`) does not import the embedded model's code or the
runner's store beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from calibrant.lazy import lazy_exports

if TYPE_CHECKING:
    from .config import JudgeOptions, SavedJudge, resolve_judge
    from .embedded import register_embedded_provider
    from .embedded_request import EMBEDDED_MODEL, EMBEDDED_PROVIDER, gguf_path
    from .llm_setup import endpoint_kwargs, get_litellm
    from .prompt import PROMPT_TEMPLATE_VERSION, JudgePrompt, build_prompt
    from .runner import JudgeRun, judge_transcripts

_HOME = {
    "JudgeOptions": "config",
    "SavedJudge": "config",
    "resolve_judge": "config",
    "register_embedded_provider": "embedded",
    "EMBEDDED_MODEL": "embedded_request",
    "EMBEDDED_PROVIDER": "embedded_request",
    "gguf_path": "embedded_request",
    "endpoint_kwargs": "llm_setup",
    "get_litellm": "llm_setup",
    "PROMPT_TEMPLATE_VERSION": "prompt",
    "JudgePrompt": "prompt",
    "build_prompt": "prompt",
    "JudgeRun": "runner",
    "judge_transcripts": "runner",
}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOME)

__all__ = [
    "EMBEDDED_MODEL",
    "EMBEDDED_PROVIDER",
    "PROMPT_TEMPLATE_VERSION",
    "JudgeOptions",
    "JudgePrompt",
    "JudgeRun",
    "SavedJudge",
    "build_prompt",
    "endpoint_kwargs",
    "get_litellm",
    "gguf_path",
    "judge_transcripts",
    "register_embedded_provider",
    "resolve_judge",
]
