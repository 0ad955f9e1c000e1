"""Which pretokens may join a superword, the runs they stand in, and the pre-tokenizer that keeps runs whole.

BoundlessBPE merges two adjacent *complete* pretokens, but not any two: the authors' code lets a
pretoken take part only when its text holds a letter and otherwise only letters (with their
combining marks), spaces, underscores and apostrophes (``'`` or ``’``): `` of``, `` the``, ``'s``,
``don't`` may join; ``,``, `` 2024``, ``\\n`` or a run of spaces never do. (Their lookahead
``(?=.+\\p{L})`` also shuts out a pretoken of one letter, such as ``I``; their own comment says the
rule is "at least one letter", which is what :func:`joinable` checks: see the manual.)

A *run* is a maximal stretch of joinable pretokens side by side. Superwords never cross a pretoken
that may not join, so a run is all a superword merge can see, and the tokenizer's pre-tokenizer
(:class:`BoundlessRuns`) hands the model whole runs: `` of the cat`` in ``"Out of the cat, a"``. The
model and the trainer split a run back into its pretokens with :func:`split_run`, which runs the
same regex again over the run's text; with GPT-2's and cl100k's patterns that gives the same
pretokens (a run starts where a match started, and no alternative reaches past a letter run's end).

>>> BoundlessRuns().words("Out of the cat, 20 dogs' tails\\n")
['OutĠofĠtheĠcat', ',', 'Ġ20', 'Ġdogs', "'", 'Ġtails', 'Ċ']
>>> split_run("OutĠofĠtheĠcat"), joinable(" don"), joinable("'s"), joinable(" 20")
(['Out', 'Ġof', 'Ġthe', 'Ġcat'], True, True, False)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import regex

from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import register
from tokenizer_core.text.byte_level import CL100K_PATTERN, GPT2_PATTERN, ByteLevel, unicode_to_bytes
from tokenizer_core.text.pre_tokenizer_base import Piece, PreTokenizer
from tokenizer_core.text.surrogates import utf8_of

#: The authors' rule for a pretoken that may join a superword (``IMPROVED_MERGE_PATTERN`` in their
#: code), with the lookahead they describe ("at least one letter") in place of ``.+``.
JOINABLE = regex.compile(r"(?=.*\p{L})(?:\p{L}\p{M}*|[ _'\u2019])+")
#: The split patterns a run can be split back with exactly (see the module's docstring).
PATTERNS = {"gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN}


@lru_cache(maxsize=1 << 16)
def joinable(text: str) -> bool:
    """Whether the pretoken ``text`` (raw text, not byte symbols) may take part in a superword."""
    return JOINABLE.fullmatch(text) is not None


def joinable_symbols(piece: str) -> bool:
    """:func:`joinable` for a pretoken written in byte symbols (``"Ġof"``); False if it is not UTF-8."""
    text = _text_of(piece)
    return text is not None and joinable(text)


def checked_pattern(pattern: str) -> str:
    """``pattern`` if runs split back exactly under it (GPT-2's or cl100k's), else a TokenizerError."""
    if pattern not in PATTERNS.values():
        raise TokenizerError("BoundlessBPE splits text with GPT-2's or cl100k's pattern (pre_tokenizer "
                             "'gpt2-regex' or 'cl100k-regex'); its runs of pretokens split back exactly only with those")
    return pattern


@lru_cache(maxsize=4)
def _compiled(pattern: str) -> Any:
    return regex.compile(pattern)


# str.translate tables between byte symbols and the Latin-1 characters of the same byte values.
_TO_BYTES = {ord(c): b for c, b in unicode_to_bytes().items()}
_TO_SYMBOLS = {b: c for c, b in unicode_to_bytes().items()}


def _text_of(symbols: str) -> "str | None":
    try:
        return symbols.translate(_TO_BYTES).encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):  # a character that is no byte symbol, or not UTF-8
        return None


def _symbols(chunk: str) -> str:
    """A regex match in byte symbols, as :class:`ByteLevel` maps it (a lone surrogate reads as U+FFFD)."""
    return (chunk if chunk.isascii() else utf8_of(chunk).decode("latin-1")).translate(_TO_SYMBOLS)


def split_run(run: str, *, pattern: str = GPT2_PATTERN) -> list[str]:
    """The pretokens (byte symbols) of a run (byte symbols); a piece that is not a run of whole
    pretokens of ``pattern`` (not UTF-8, or split differently) stays one pretoken.

    >>> split_run("Ġit's"), split_run("Ġ\\u00e9")      # the second is not UTF-8: left whole
    (['Ġit', "'s"], ['Ġé'])
    """
    text = _text_of(run)
    if text is None:
        return [run]
    pieces = [_symbols(c) for c in _compiled(pattern).findall(text)]
    return pieces if len(pieces) > 1 and "".join(pieces) == run else [run]


#: How many distinct matches :meth:`BoundlessRuns.words` remembers before starting afresh.
_SEEN_LIMIT = 1 << 18


@register("pre_tokenizer", "BoundlessRuns")
class BoundlessRuns(PreTokenizer):
    """Byte-level pre-tokenization (GPT-2's or cl100k's pattern) that keeps each run of joinable
    pretokens in one piece, so the model sees every pair a superword merge may join.

    >>> BoundlessRuns().pre_tokenize_str("of the, café")
    [('ofĠthe', (0, 6)), (',', (6, 7)), ('ĠcafÃ©', (7, 12))]
    """

    type_name = "BoundlessRuns"

    def __init__(self, *, pattern: str = GPT2_PATTERN) -> None:
        self.pattern = checked_pattern(pattern)
        self._bytes = ByteLevel(add_prefix_space=False, pattern=pattern)
        self._re = _compiled(pattern)
        self._seen: dict[str, tuple[bool, str]] = {}

    def words(self, text: str) -> list[str]:
        # The hot path of counting: each distinct match is looked at once (matches repeat a lot).
        seen = self._seen
        if len(seen) > _SEEN_LIMIT:
            seen.clear()
        out: list[str] = []
        run: list[str] = []
        for chunk in self._re.findall(text):
            hit = seen.get(chunk)
            if hit is None:
                hit = seen[chunk] = (joinable(chunk), _symbols(chunk))
            if hit[0]:
                run.append(hit[1])
                continue
            if run:
                out.append("".join(run))
                run = []
            out.append(hit[1])
        if run:
            out.append("".join(run))
        return out

    def split(self, text: str) -> list[Piece]:
        out: list[Piece] = []
        run: list[Piece] = []
        for p in self._bytes.split(text):
            if joinable(text[p.start:p.end]):
                run.append(p)
                continue
            if run:
                out.append(_joined(run))
                run = []
            out.append(p)
        if run:
            out.append(_joined(run))
        return out

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type_name}
        if self.pattern != GPT2_PATTERN:
            d["pattern"] = self.pattern
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BoundlessRuns":
        return cls(pattern=data.get("pattern", GPT2_PATTERN))

    def to_hf(self) -> dict[str, Any]:
        """``tokenizers`` has no such pre-tokenizer; its plain byte-level split is the same tokenizer
        for a model without superwords (the only kind that exports: see ``BoundlessBPE.to_hf``)."""
        return self._bytes.to_hf()

    def __repr__(self) -> str:
        return "BoundlessRuns()" if self.pattern == GPT2_PATTERN else "BoundlessRuns(pattern=cl100k)"


def _joined(pieces: list[Piece]) -> Piece:
    if len(pieces) == 1:
        return pieces[0]
    text = "".join(p.text for p in pieces)
    if all(p.spans is None for p in pieces):  # pretokens side by side: the run is the input slice
        return Piece(text, pieces[0].start, pieces[-1].end)
    spans = tuple(p.char_span(k) for p in pieces for k in range(len(p.text)))
    return Piece(text, pieces[0].start, pieces[-1].end, spans)
