"""The fence's rewriting of untrusted text: what an agent's message, a customer note or a
notification body may not carry into the judge's prompt once neutralized, for every judge model.

fold() makes look-alikes plain (NFKC, one kind of line break, no invisible characters); then
neutralize() rewrites chat-template control tokens, the fence words, fence brackets, square
brackets and dash runs, and removes the nonce, and says what it rewrote (see rewrite()).

The same rewriting keeps the trusted evidence's grammar: a value inside an evidence line that
came from outside calibrant (a tool's name or error, an authorization reason, an event's
detail, a record's value) is written by code_or_quoted() as a code when it is one, else by
quoted() as one line of quoted text between marks no value can write."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

__all__ = [
    "fold",
    "neutralize",
    "rewrite",
    "quoted",
    "code_or_quoted",
    "quoted_spans",
    "NEUTRALIZED_MARK",
    "QUOTE_OPEN",
    "QUOTE_CLOSE",
    "QUOTED_MAX_CHARS",
]

# What untrusted text may not contain once neutralized (see neutralize()).
_LINE_BREAKS = re.compile(r"\r\n|[\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_ASCII_HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # the ASCII that _visible() drops
_INVISIBLE_EXTRA = frozenset("\u034f\u115f\u1160\u3164\uffa0\u2800")  # CGJ, fillers, blank
_DASHES = "\\-\u2010-\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d\u2500\u2501\u23af"
# one angle bracket and its look-alikes (what NFKC leaves apart: fullwidth and small forms fold
# to < and >): single and double guillemets, angle brackets of every block, arrowheads,
# triangles, Canadian syllabics, the rune kaun
_OPENERS = (
    "<\u2039\u00ab\u2329\u3008\u300a\u27e8\u27ea\u276e\u276c\u29fc\u02c2\u02f1\u1438"
    "\u2770\u22b2\u25c1\u25c0\u25c3\u16b2\u2a79\u2aa6\u2abb"
)
_CLOSERS = (
    ">\u203a\u00bb\u232a\u3009\u300b\u27e9\u27eb\u276f\u276d\u29fd\u02c3\u02f2\u1433"
    "\u2771\u22b3\u25b7\u25b6\u25b9\u16b3\u2a7a\u2aa7\u2abc"
)
# one character that draws two or three angle brackets by itself: much less-than and co.
_DOUBLE_OPENERS = "\u226a\u22d8\u2aa1\u2af7\u2a7b"
_DOUBLE_CLOSERS = "\u226b\u22d9\u2aa2\u2af8\u2a7c"
_SQUARE_OPEN = "\\[\u3010\u3014\u3016\u3018\u301a\u27e6\u2045\u298b\u298d\u298f"
_SQUARE_CLOSE = "\\]\u3011\u3015\u3017\u3019\u301b\u27e7\u2046\u298c\u298e\u2990"

# Chat-template control tokens. A server that renders a chat template to text and tokenizes it
# with special tokens on (vLLM, llama.cpp server, TGI, Ollama) reads `<|im_start|>system` inside
# a message as a real turn. Every family has one of two shapes, and no vocabulary holds a
# special token that differs from them by a character, so both shapes are rewritten whatever the
# name: `<|name|>` (ChatML, Llama 3/4, Phi-3/4, Qwen, GPT-2 `<|endoftext|>`, Command-R, Granite,
# gpt-oss; DeepSeek's fullwidth bars fold to |) and a tag `<name>` / `</name>` (`<s>`, `</s>`,
# Gemma's `<start_of_turn>`, `<bos>`, `<eos>`, `<unk>`, Qwen's `<tool_call>`, `<think>`...).
# Llama 2 / Mistral `[INST]`, `[/INST]`, `[TOOL_CALLS]` become `(INST)`..., as every square
# bracket does (and are noted as tokens), and `<<SYS>>` loses its bracket runs.
_CONTROL_TOKEN = re.compile(
    r"<[|\uff5c\u00a6\u2223\u01c0][^<>|\uff5c\u00a6\u2223\u01c0\n]{0,64}[|\uff5c\u00a6\u2223\u01c0]>"
    r"|</?[\w\u2581][\w.:\u2581-]{0,47}>"
)
_SQUARE_TOKEN = re.compile(  # [INST], [/INST], [SYSTEM_PROMPT], [TOOL_CALLS], GLM's [gMASK]
    r"\[/?(?:INST|SYS|IMG|MASK|[gs]MASK|CLS|SEP|PAD|UNK|BOS|EOS|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\]"
)

# Letters of the fence words and the characters that pass for each once NFKC has folded fullwidth,
# mathematical and circled forms: Cyrillic, Greek, Armenian, Cherokee and small-capital
# look-alikes, and the digits of leetspeak.
_LOOKS_LIKE = {
    "u": "u\u03c5\u057d\u054d\u222a\u22c3\u1d1c\u1450\u144c\u0446",
    "n": "n\u039d\u043f\u0578\u0274\u03b7",
    "t": "t7\u0422\u0442\u03a4\u03c4\u1d1b\u13a2\u01ab",
    "r": "r\u0433\u0280\u13a1\u1d26\u0491",
    "s": "s5$\u0405\u0455\u13da\ua731\u01bd",
    "e": "e3\u0415\u0435\u0395\u13ac\u1d07\u212e\u0454\u03b5",
    "d": "d\u13a0\u0501\u1d05\u217e",
    "v": "v\u0474\u0475\u03bd\u1d20\u13d9\u2174",
    "i": "i1!|\u0406\u0456\u0399\u03b9\u04c0\u2170\u13a5\u0131",
    "c": "c\u0421\u0441\u03f2\u1d04\u216d\u217d\u13df",
}


def _accented(table: dict[str, str]) -> dict[str, str]:
    """`table` with every precomposed Latin letter added to its base letter's look-alikes
    (Ú, ü, é...: what NFKC makes of a letter and a combining accent, read as the plain letter)."""
    extra: dict[str, list[str]] = {k: [] for k in table}
    for cp in [*range(0xC0, 0x250), *range(0x1E00, 0x1F00)]:
        ch = chr(cp)
        base = unicodedata.normalize("NFD", ch)[0].lower()
        if base != ch.lower() and base in extra:
            extra[base].append(ch)
    return {k: v + "".join(extra[k]) for k, v in table.items()}


_LOOKS_LIKE = _accented(_LOOKS_LIKE)


def _word(word: str, *, spaced: bool) -> str:
    """A pattern for `word` written with look-alike letters; `spaced`: with any run of
    up to 16 non-letters between its letters (`U N T R U S T E D`, `UN-TRUSTED`,
    `U.N.T.R.U.S.T.E.D`), then not glued to a letter on either side, so that `run trusted`
    stays as it is."""
    letters = [f"[{re.escape(_LOOKS_LIKE.get(ch, ch))}]" for ch in word if ch != " "]
    if not spaced:
        return "".join(letters)
    return r"(?<![^\W\d_])" + r"[\W_]{0,16}".join(letters) + r"(?![^\W\d_])"


_FENCE_WORDS = re.compile(
    "(?i)" + "|".join(_word(w, spaced=sp) for w in ("untrusted",) for sp in (False, True))
)
_EVIDENCE_WORDS = re.compile(
    "(?i)" + "|".join(_word("trusted evidence", spaced=sp) for sp in (False, True))
)


def _run(single: str, double: str) -> re.Pattern[str]:
    """Two or more angle brackets (whitespace between them allowed), or one that draws two."""
    more = f"(?:\\s*[{single}{double}])"
    return re.compile(f"[{double}]{more}*|[{single}]{more}+")


_ANGLE_RUN = _run(_OPENERS, _DOUBLE_OPENERS), _run(_CLOSERS, _DOUBLE_CLOSERS)
_LOOKALIKES = [
    # evidence lines are "[id] t=..": no square bracket (or lookalike) survives in untrusted text
    (re.compile(f"[{_SQUARE_OPEN}]"), "("),
    (re.compile(f"[{_SQUARE_CLOSE}]"), ")"),
    # message headers are "--- id · t=.. ---": no run of dashes survives, on any line
    (re.compile(f"[{_DASHES}](?:[ \\t]*[{_DASHES}])+"), "\u2014"),
]


def _token_mark(m: re.Match[str]) -> str:
    """‹|im_start|›, ‹start_of_turn›: readable, and no tokenizer's special token."""
    return f"\u2039{m.group(0)[1:-1]}\u203a"


_NOTED: tuple[tuple[str, re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    ("chat control token", _CONTROL_TOKEN, _token_mark),
    ("chat control token", _SQUARE_TOKEN, lambda m: f"({m.group(0)[1:-1]})"),
    ("fence word", _FENCE_WORDS, "quoted"),
    ("fence word", _EVIDENCE_WORDS, "quoted evidence"),
    ("fence bracket", _ANGLE_RUN[0], "\u2039"),
    ("fence bracket", _ANGLE_RUN[1], "\u203a"),
)
NEUTRALIZED_MARK = "[calibrant rewrote: {what}]"
"""Appended to an untrusted text (at the end of its last line) in which calibrant rewrote chat
control tokens, fence words, fence brackets or the nonce, so the judge knows the text was
altered and how. Square brackets never come from untrusted text: the mark cannot be forged."""


def _visible(ch: str) -> bool:
    if ch in "\n\t":
        return True
    if ch in _INVISIBLE_EXTRA or "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef":
        return False
    return unicodedata.category(ch) not in ("Cf", "Cc", "Cs", "Co", "Cn")


def fold(text: str) -> str:
    """NFKC-fold `text`, make every line break a plain newline and drop invisible characters
    (zero-width, bidi controls, other format and control characters, variation selectors)."""
    text = _LINE_BREAKS.sub("\n", text)
    if text.isascii():  # the usual case, the same result faster: NFKC keeps ASCII as it is
        return _ASCII_HIDDEN.sub("", text)
    text = unicodedata.normalize("NFKC", "".join(ch for ch in text if _visible(ch)))
    return "".join(ch for ch in _LINE_BREAKS.sub("\n", text) if _visible(ch))


def neutralize(text: str, *, nonce: str) -> str:
    """Make untrusted text unable to close or forge the fence, an evidence line, a message
    header or a chat turn: fold it (see fold()), remove the nonce, then rewrite every chat
    control token, fence word and lookalike."""
    return rewrite(text, nonce)[0]


def rewrite(text: str, nonce: str) -> tuple[str, str | None]:
    """neutralize(), and what it rewrote that the judge should be told about (None: nothing but
    square brackets or dash runs, which are typography)."""
    folded = re.sub(re.escape(nonce), "\x00", fold(text), flags=re.IGNORECASE)  # fold drops \x00
    out, counts = _neutral(folded)
    if n := out.count("\x00"):
        counts["nonce"] = n
        out = out.replace("\x00", "[nonce removed]")
    return out, _mark(counts)


def _neutral(folded: str) -> tuple[str, dict[str, int]]:
    """Folded text with its chat control tokens, fence words, fence brackets, square brackets
    and dash runs rewritten; how many of each noted kind were."""
    out, counts = folded, dict[str, int]()
    for what, pattern, repl in _NOTED:
        out, n = pattern.subn(repl, out)
        if n:
            counts[what] = counts.get(what, 0) + n
    for pattern, plain in _LOOKALIKES:
        out = pattern.sub(plain, out)
    return out, counts


def _mark(counts: dict[str, int]) -> str | None:
    if not counts:
        return None
    what = ", ".join(f"{n} {w}{'s' if n > 1 else ''}" for w, n in counts.items())
    return NEUTRALIZED_MARK.format(what=what)


# ---- values inside the trusted evidence -------------------------------------------------------

QUOTE_OPEN = "\u27e6untrusted text: "  # ⟦ : a square bracket's look-alike, so no value writes it
QUOTE_CLOSE = "\u27e7"  # ⟧
QUOTED_MAX_CHARS = 300
"""Longest quoted value inside an evidence line, after rewriting; a longer one is cut and says
how much was cut."""
_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@+/-]{0,99}")
"""What a code may be (a tool name, an error or reason code, a status, an id): ASCII letters and
digits, then up to 99 more of them or `_ . : @ + / -`. No space, bracket, `<`, `|`, `#` or
`=`: a code can neither break a line nor write an evidence line's `[id] t=N:`, a chat marker or
a fence marker."""
_LINE_BREAK = re.compile(r"[ \t]*\n\s*")  # after fold(): every line break is a plain \n
_HEADING = re.compile(r"#{2,}")  # `### Instruction:` (Alpaca, Vicuna templates) and Markdown


def quoted(text: str) -> str:
    """Free text from outside calibrant (a tool's error message, an event's detail...) inside a
    trusted evidence line: rewritten as neutralize() does (no chat control token, fence word,
    fence bracket or square bracket survives, so no evidence line's `[id] t=N:` either), on one
    line (each line break becomes ` ↵ `, `##` runs one `#`), cut at QUOTED_MAX_CHARS, between
    QUOTE_OPEN and QUOTE_CLOSE, which no rewritten text can contain. A cut and what was
    rewritten are said after the closing mark, in square brackets only calibrant writes."""
    body, counts = _neutral(fold(text))
    body = _LINE_BREAK.sub(" \u21b5 ", body).replace("\t", " ")
    body, headings = _HEADING.subn("#", body)
    if headings:
        counts["chat control token"] = counts.get("chat control token", 0) + headings
    omitted = len(body) - QUOTED_MAX_CHARS
    out = QUOTE_OPEN + body[:QUOTED_MAX_CHARS] + QUOTE_CLOSE
    if omitted > 0:
        out += f" [cut: {omitted} more characters not shown]"
    mark = _mark(counts)
    return out + (f" {mark}" if mark else "")


def code_or_quoted(value: str) -> str:
    """A value that should be a code (a tool name, an error or reason code, a status, a record's
    value): itself when it reads as one (the _CODE grammar, and nothing the fence would
    rewrite, so `untrusted` or `a--b` is not a code), else quoted()."""
    if _CODE.fullmatch(value) and _neutral(value) == (value, {}):
        return value
    return quoted(value)


_QUOTED = re.compile(re.escape(QUOTE_OPEN) + "([^\u27e6\u27e7]*)" + QUOTE_CLOSE)


def quoted_spans(line: str) -> list[tuple[str, bool]]:
    """An evidence line cut into (text, quoted) pieces, so a page can show each quoted value as
    quoted text (its marks stay in the text)."""
    out: list[tuple[str, bool]] = []
    at = 0
    for m in _QUOTED.finditer(line):
        if m.start() > at:
            out.append((line[at : m.start()], False))
        out.append((m.group(0), True))
        at = m.end()
    if at < len(line):
        out.append((line[at:], False))
    return out
