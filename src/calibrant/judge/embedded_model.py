"""The embedded judge's model: SmolLM2 in llama.cpp, loaded once per process on first use, one
generation at a time; it evaluates a request's prompt (reusing whole leading messages from the
KV cache), generates under a grammar, or reads each label's probability off the logits
(embedded.py serves it through litellm and says what a request does)."""

from __future__ import annotations

import atexit
import json
import threading
import time
from functools import lru_cache
from typing import Any

from .embedded_chat import chat_tokens
from .embedded_check import ensure_build_runs
from .embedded_choice import choice_plan, choose, criterion_plans, read_logits
from .embedded_plans import Parts, _fitted_priors, _label_key, _options
from .embedded_prior import (
    LabelPrior,
    PriorFiles,
    average_priors,
    enumerate_prior,
    option_probabilities,
)
from .embedded_request import (
    CHATML,
    CONTEXT_TOKENS,
    BadRequest,
    ContextOverflow,
    DeadlineExceeded,
    Generation,
    Request,
    embedded_threads,
    gguf_path,
    import_llama_cpp,
)
from .embedded_state import MIN_TOKENS, PromptStates

# --- the model -----------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _grammar(schema_json: str) -> Any:
    llama_cpp = import_llama_cpp()
    try:
        return llama_cpp.LlamaGrammar.from_json_schema(schema_json, verbose=False)
    except Exception as exc:  # the converter asserts on schema features it lacks
        raise BadRequest(f"response_format schema cannot be enforced: {exc}") from exc


def _reusable_prefix(cached: Any, prompt: list[int], message_starts: list[int]) -> int:
    """How many leading prompt tokens to keep from the KV cache: whole messages only.

    llama.cpp's numbers depend slightly on how tokens are batched, so reusing an arbitrary
    token prefix can change a temperature-0 answer (a near-tie flips). Evaluating and reusing
    whole messages makes every prompt's batches the same whatever was cached before.
    """
    shared = 0
    for old, new in zip(cached, prompt, strict=False):
        if old != new:
            break
        shared += 1
    return max(start for start in message_starts if start <= shared)


class _LocalModel:
    """The llama.cpp model: loaded once on first use, one generation at a time."""

    def __init__(self) -> None:
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._llama: Any = None
        self._formatter: Any = None
        self._message_token: int | None = None  # the token that opens every chat message
        self._states: PromptStates | None = None
        self._priors: PriorFiles | None = None
        self._priors_now: dict[str, LabelPrior] = {}  # the current request's (under _run_lock)

    def _close(self) -> None:
        with self._run_lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

    def _load(self) -> tuple[Any, Any]:
        with self._load_lock:
            if self._llama is None:
                path = gguf_path()
                threads = embedded_threads()
                ensure_build_runs(path, threads)  # a build that crashes here: one line, no crash
                llama_cpp = import_llama_cpp()
                from llama_cpp.llama_chat_format import Jinja2ChatFormatter

                llama = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=CONTEXT_TOKENS,
                    n_threads=threads,
                    n_threads_batch=threads,
                    flash_attn=True,  # ~20% faster prompt evaluation on two CPU cores
                    verbose=False,
                )
                eos, bos = llama.token_eos(), llama.token_bos()
                self._formatter = Jinja2ChatFormatter(
                    template=llama.metadata.get("tokenizer.chat_template") or CHATML,
                    eos_token=llama.detokenize([eos], special=True).decode("utf-8", "replace"),
                    bos_token=llama.detokenize([bos], special=True).decode("utf-8", "replace"),
                    stop_token_ids=[eos],
                )
                opener = llama.tokenize(b"<|im_start|>", add_bos=False, special=True)
                self._message_token = opener[0] if len(opener) == 1 else None
                stat = path.stat()
                self._states = PromptStates(
                    f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}:{llama_cpp.__version__}:"
                    f"{CONTEXT_TOKENS}:flash:{llama.n_batch}"
                )
                self._priors = PriorFiles(self._states.folder, self._states.identity)
                self._llama = llama
                # free the model while the interpreter is intact (llama-cpp's __del__ at
                # shutdown runs after its bindings are gone and prints a traceback)
                atexit.register(self._close)
        return self._llama, self._formatter

    def prompt_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        """The tokens a request with these messages evaluates (loads the model if needed)."""
        llama, formatter = self._llama, self._formatter
        if llama is None:
            llama, formatter = self._load()
        return chat_tokens(llama, formatter, messages)[0]

    def special_token(self, text: str) -> int:
        """The id of a special token such as ``<|im_start|>``."""
        llama = self._llama if self._llama is not None else self._load()[0]
        [token] = llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        return int(token)

    def _acquire(self, request: Request) -> None:
        """Wait for the model, giving up at the deadline or when the caller went away."""
        while not self._run_lock.acquire(timeout=0.1):
            if request.cancelled.is_set():
                raise DeadlineExceeded("the call was cancelled while waiting for the model")
            if request.deadline is not None and time.monotonic() > request.deadline:
                raise DeadlineExceeded("timed out waiting for the embedded model to be free")

    def _evaluate(self, llama: Any, prompt: list[int], stopped: Any) -> int:
        """Evaluate the prompt message by message, reusing what the KV cache (or a saved
        state file) already holds; returns how many tokens were reused."""
        starts = [0] + [i for i, t in enumerate(prompt) if i and t == self._message_token]
        reused = _reusable_prefix(llama.input_ids[: llama.n_tokens], prompt, starts)
        # the first message (the static system prompt) is kept across processes when it is
        # long enough to be worth a file; later messages differ from call to call
        kept = starts[1] if len(starts) > 1 and starts[1] >= MIN_TOKENS else 0
        if kept and reused < kept and self._states and self._states.load(llama, prompt[:kept]):
            reused = kept
        llama.n_tokens = reused  # the next eval() drops the KV cache beyond this point
        for begin, end in zip(starts, [*starts[1:], len(prompt)], strict=True):
            if begin >= reused:
                if stopped():
                    return reused
                llama.eval(prompt[begin:end])
                if end == kept and self._states:
                    self._states.save(llama, prompt[:kept])
        return reused

    def _label_priors(
        self, llama: Any, formatter: Any, request: Request, parts: Parts, stopped: Any
    ) -> dict[str, LabelPrior]:
        """Each criterion's content-free label prior for this request's content-free prompts and
        schema: from memory or a file, else measured once (see embedded_prior)."""
        prompts = [chat_tokens(llama, formatter, m)[0] for m in request.content_free]
        assert self._priors is not None and request.schema_json is not None
        key = self._priors.key(prompts, request.schema_json, json.dumps(request.unbalanced))
        found = self._priors.get(key)
        if found is not None:
            return found

        def tokenize(text: str) -> list[int]:
            return list(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

        measured: list[dict[str, LabelPrior]] = []
        for prompt in prompts:
            if len(prompt) >= llama.n_ctx():
                raise ContextOverflow(f"content-free prompt of {len(prompt)} tokens is too long")
            self._evaluate(llama, prompt, stopped)
            if stopped():
                raise DeadlineExceeded("timed out while measuring the content-free prior")

            def logits_after(answer: tuple[int, ...], prompt: list[int] = prompt) -> Any:
                if stopped():
                    raise DeadlineExceeded("timed out while measuring the content-free prior")
                llama.n_tokens = len(prompt)  # each criterion's answer right after the prompt
                llama.eval(list(answer))
                return read_logits(llama)

            measured.append(
                {
                    name: enumerate_prior(
                        plan, tokenize, logits_after, unbalanced=_options(plan, request.unbalanced)
                    )
                    for name, plan in parts
                }
            )
        priors = {name: average_priors(m[name] for m in measured) for name, _ in parts}
        self._priors.put(key, priors)
        return priors

    def _labels(
        self, llama: Any, request: Request, prompt: list[int], stopped: Any
    ) -> tuple[str, list[int]] | None:
        """Each criterion's label picked on its own right after the prompt (rebalanced by its
        content-free prior when the request has content-free prompts); the answer is the same
        JSON object a joint pick writes."""
        parts = criterion_plans(request.schema_json or "")
        assert parts is not None
        priors = self._priors_now
        values: dict[str, Any] = {}
        tokens: list[int] = []
        for name, plan in parts:
            llama.n_tokens = len(prompt)
            picked = choose(
                llama,
                plan,
                temperature=request.temperature,
                seed=request.seed,
                stopped=stopped,
                prior=priors.get(name),
                logits_of=read_logits,
            )
            if picked is None:
                return None
            values[name] = json.loads(picked[0])[name]
            tokens += picked[1]
        return json.dumps(values, ensure_ascii=False), tokens

    def label_probabilities(self, request: Request) -> dict[str, dict[str, float]]:
        """Each criterion's labels with their probabilities under constrained decoding, each
        label right after the prompt (as ``independent_labels`` picks them): every branch of the
        labels' tokens is evaluated. What a fitted label prior averages (see fit_prior)."""
        schema = request.schema_json
        parts = criterion_plans(schema) if schema else None
        if parts is None or schema is None:
            raise BadRequest("label probabilities need an object schema of enum values")
        llama, _ = self._llama, self._formatter
        if llama is None:
            llama, _ = self._load()
        interrupted: list[str] = []

        def stopped() -> bool:
            if request.deadline is not None and time.monotonic() > request.deadline:
                interrupted.append("timed out while measuring label probabilities")
            return bool(interrupted)

        def tokenize(text: str) -> list[int]:
            return list(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

        self._acquire(request)
        try:
            prompt = chat_tokens(llama, self._formatter, request.messages)[0]
            if len(prompt) >= llama.n_ctx():
                raise ContextOverflow(f"prompt of {len(prompt)} tokens is too long")
            self._evaluate(llama, prompt, stopped)
            if interrupted:
                raise DeadlineExceeded(interrupted[0])

            def logits_after(answer: tuple[int, ...]) -> Any:
                if stopped():
                    raise DeadlineExceeded(interrupted[0])
                llama.n_tokens = len(prompt)
                llama.eval(list(answer))
                return read_logits(llama)

            enums = json.loads(schema)["properties"]
            out = {}
            for name, plan in parts:
                measured = enumerate_prior(plan, tokenize, logits_after)
                shares = option_probabilities(plan, tokenize, measured)
                out[name] = {
                    _label_key(v): p for v, p in zip(enums[name]["enum"], shares, strict=True)
                }
            return out
        finally:
            self._run_lock.release()

    def generate(self, request: Request) -> Generation:
        """Run one chat completion; raises the private exceptions above."""
        schema = None if request.tools else request.schema_json
        plan = None if schema is None else choice_plan(schema)  # fixed structure: no grammar
        grammar = None if request.schema_json is None or plan else _grammar(request.schema_json)
        llama, formatter = self._llama, self._formatter
        if llama is None:
            llama, formatter = self._load()
        interrupted: list[str] = []

        def interrupt(_ids: Any = None, _logits: Any = None) -> bool:
            if request.cancelled.is_set():
                interrupted.append("the call was cancelled")
            elif request.deadline is not None and time.monotonic() > request.deadline:
                interrupted.append("timed out before the answer was complete")
            return bool(interrupted)

        self._acquire(request)
        try:
            prompt, chat = chat_tokens(llama, formatter, request.messages)
            stops = request.stop + (chat.stop if isinstance(chat.stop, list) else [chat.stop or ""])
            if len(prompt) >= llama.n_ctx():
                raise ContextOverflow(
                    f"prompt of {len(prompt)} tokens exceeds the context window ({llama.n_ctx()})"
                )
            parts = criterion_plans(schema) if schema and request.independent else None
            if request.independent and parts is None:
                raise BadRequest("independent labels need an object schema of enum values")
            self._priors_now = {}
            if parts is not None and request.content_free:
                self._priors_now = self._label_priors(llama, formatter, request, parts, interrupt)
            elif parts is not None and request.label_prior is not None:
                self._priors_now = _fitted_priors(llama, request, parts)
            reused = self._evaluate(llama, prompt, interrupt)
            if interrupted:
                raise DeadlineExceeded(interrupted[0])
            if plan is not None:  # fixed structure: pick the values, generate nothing
                picked = (
                    self._labels(llama, request, prompt, interrupt)
                    if parts is not None
                    else choose(
                        llama,
                        plan,
                        temperature=request.temperature,
                        seed=request.seed,
                        stopped=interrupt,
                        logits_of=read_logits,
                    )
                )
                if picked is None:
                    raise DeadlineExceeded(interrupted[0])
                text, answer = picked
                finish = "stop"
                if request.max_tokens is not None and len(answer) > request.max_tokens:
                    answer = answer[: request.max_tokens]
                    text = llama.detokenize(answer).decode("utf-8", "replace")
                    finish = "length"
                return Generation(
                    text=text,
                    finish_reason=finish,
                    prompt_tokens=len(prompt),
                    completion_tokens=len(answer),
                    cached_tokens=reused,
                )
            # The whole prompt is now evaluated, so create_completion samples at once.
            out = llama.create_completion(
                prompt=prompt,
                temperature=request.temperature,
                top_p=1.0 if request.top_p is None else request.top_p,
                repeat_penalty=1.0,
                max_tokens=request.max_tokens,
                seed=request.seed,
                stop=[stop for stop in stops if stop],
                grammar=grammar,
                stopping_criteria=import_llama_cpp().StoppingCriteriaList(
                    [interrupt, *(chat.stopping_criteria or [])]
                ),
            )
        finally:
            self._run_lock.release()
        if interrupted:
            raise DeadlineExceeded(interrupted[0])
        choice = out["choices"][0]
        return Generation(
            text=choice["text"],
            finish_reason=choice["finish_reason"] or "stop",
            prompt_tokens=len(prompt),
            completion_tokens=int(out["usage"]["completion_tokens"]),
            cached_tokens=reused,
        )


_MODEL = _LocalModel()


def label_probabilities(request: Request) -> dict[str, dict[str, float]]:
    """Each criterion's label probabilities on this request's prompt (the embedded model)."""
    return _MODEL.label_probabilities(request)
