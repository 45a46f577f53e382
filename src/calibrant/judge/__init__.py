"""The judge: trusted evidence, a fenced prompt, litellm calls under one retry owner, outcomes,
caching, and the embedded offline model. Importing this package loads neither litellm nor
llama.cpp."""

from .config import JudgeOptions, SavedJudge, resolve_judge
from .embedded import EMBEDDED_MODEL, EMBEDDED_PROVIDER, gguf_path, register_embedded_provider
from .llm_setup import endpoint_kwargs, get_litellm
from .prompt import PROMPT_TEMPLATE_VERSION, JudgePrompt, build_prompt
from .runner import JudgeRun, judge_transcripts

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
