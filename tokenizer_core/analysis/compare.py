"""Tokenizers side by side: the classic granularities, one row of metrics per tokenizer, and where
their token boundaries disagree.

* :func:`granularity_tokenizer` builds the word-, character- or byte-level baseline;
* :func:`compare_rows` measures each tokenizer on the same texts (a :class:`CompareRow` each);
* :func:`segments`, :func:`boundaries` and :func:`disagreements` line tokens up on the characters
  they cover, for an aligned view of one text.

>>> word = granularity_tokenizer("word", ["happy days\\n"])
>>> char = granularity_tokenizer("char", ["unhappiness\\n"])
>>> [s.token for s in segments(word, "unhappiness")], len(segments(char, "unhappiness"))
(['[UNK]'], 11)
>>> sorted(disagreements([segments(word, "unhappiness"), segments(char, "unhappiness")]))
[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
>>> row = compare_rows([("char", char)], ["unhappiness"])[0]
>>> row.tokens, row.chars_per_token, row.unk_rate, row.char_coverage
(11, 1.0, 0.0, 1.0)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Optional

from tokenizer_core.analysis.metrics import compute_metrics, ratio
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import TrainOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.training import train
from tokenizer_core.types import Encoding, ProgressCallback, no_progress

__all__ = [
    "GRANULARITIES",
    "CompareRow",
    "Segment",
    "boundaries",
    "compare_rows",
    "disagreements",
    "granularity_tokenizer",
    "robustness_examples",
    "segments",
    "unk_id",
]

Granularity = Literal["word", "char", "byte"]
GRANULARITIES: tuple[str, ...] = ("word", "char", "byte")
_BYTE_TOKEN = re.compile(r"<0x[0-9A-Fa-f]{2}>")


def granularity_tokenizer(kind: Granularity, lines: Iterable[str], *, vocab_size: Optional[int] = None,
                          progress: ProgressCallback = no_progress) -> Tokenizer:
    """The word-, character- or byte-level tokenizer of ``lines``.

    Word and char are trained on ``lines`` with the ``word``/``char`` trainers (the most frequent
    ``vocab_size`` entries, specials included; a word or character not seen is ``[UNK]``); byte
    is the fixed 256-byte model and ignores ``lines``.

    >>> granularity_tokenizer("word", ["the cat\\n"]).encode("the dog").tokens
    ['the', '[UNK]']
    >>> granularity_tokenizer("byte", []).vocab_size
    260
    """
    if kind not in GRANULARITIES:
        raise TokenizerError(f"unknown granularity {kind!r}; choose one of: {', '.join(GRANULARITIES)}")
    return train(kind, [] if kind == "byte" else lines, options=TrainOptions(vocab_size=vocab_size), progress=progress)


@dataclass(frozen=True)
class CompareRow:
    """One tokenizer measured on some texts; a ratio is ``None`` when its denominator is zero.

    ``chars_per_token``/``bytes_per_token``: characters / UTF-8 bytes of the texts per token.
    ``compression``: tokens per character, i.e. the token count *relative to the character count*
    (1.0 for a character-level tokenizer, 0.25 when a token holds four characters on average; the
    reciprocal of ``chars_per_token``, read as a share of the one-token-per-character baseline).
    ``fertility``: tokens per word. ``unk_rate``: share of tokens that are the unknown token.
    ``char_coverage``: share of the characters not inside an unknown or byte-fallback token
    (characters a pre-tokenizer drops, such as spaces, count as covered). ``vocab_utilization``:
    distinct ids used / vocabulary size. ``embedding_params``: vocabulary size × ``d_model``.
    ``attention_cost``: the sum over texts of (tokens in the text)², divided by the baseline
    row's when a baseline was named. ``cost``: tokens / 1000 × the price per 1,000 tokens.
    """

    name: str
    vocab_size: int
    tokens: int
    chars: int
    bytes: int
    words: int
    chars_per_token: Optional[float]
    bytes_per_token: Optional[float]
    compression: Optional[float]
    fertility: Optional[float]
    unk_rate: Optional[float]
    char_coverage: Optional[float]
    vocab_utilization: Optional[float]
    embedding_params: int
    attention_cost: Optional[float]
    cost: float


def unk_id(tok: Tokenizer) -> Optional[int]:
    """The id of ``tok``'s unknown token, or None when its model has none.

    >>> unk_id(granularity_tokenizer("char", ["ab\\n"])), unk_id(granularity_tokenizer("byte", []))
    (1, None)
    """
    model = tok.model
    token = getattr(model, "unk_token", None)
    if token is not None:
        return tok.token_to_id(token)
    found = getattr(model, "unk_id", None)
    return found if isinstance(found, int) else None


def _uncovered_chars(enc: Encoding, unk: Optional[int], byte_fallback: bool) -> int:
    """Characters lying inside an unknown or byte-fallback token (each character counted once:
    the three byte tokens of "€" cover the same character)."""
    lost: set[int] = set()
    for tid, token, (start, end), special in zip(enc.ids, enc.tokens, enc.offsets, enc.special_tokens_mask):
        if special:
            continue
        if tid == unk or (byte_fallback and _BYTE_TOKEN.fullmatch(token)):
            lost.update(range(start, end))
    return len(lost)


def compare_rows(
    tokenizers: Sequence[tuple[str, Tokenizer]],
    texts: Sequence[str],
    *,
    d_model: int = 768,
    price_per_1k: float = 0.0,
    baseline: Optional[str] = None,
) -> list[CompareRow]:
    """One :class:`CompareRow` per ``(name, tokenizer)``, all measured on ``texts``.

    Each text is encoded on its own, without special tokens (a post-processor's ``[CLS]`` is not
    the text's cost). ``baseline`` names one of the rows (say the character-level one): attention
    costs are then relative to its cost, else absolute.

    >>> char, byte = granularity_tokenizer("char", ["ab\\n"]), granularity_tokenizer("byte", [])
    >>> rows = compare_rows([("char", char), ("byte", byte)], ["ab", "é"], baseline="char")
    >>> [(r.name, r.tokens, round(r.unk_rate, 2), round(r.char_coverage, 2), r.attention_cost) for r in rows]
    [('char', 3, 0.33, 0.67, 1.0), ('byte', 4, 0.0, 1.0, 1.6)]
    """
    if isinstance(texts, str):
        raise TokenizerError("texts must be a list of strings, not a single string; wrap it: [text]")
    if isinstance(d_model, bool) or not isinstance(d_model, int) or d_model < 1:
        raise TokenizerError(f"d_model must be a positive whole number, got {d_model!r}")
    if not price_per_1k >= 0:
        raise TokenizerError(f"price_per_1k must be 0 or more, got {price_per_1k!r}")
    names = [name for name, _ in tokenizers]
    if baseline is not None and baseline not in names:
        raise TokenizerError(f"the baseline {baseline!r} is none of the tokenizers compared: {', '.join(names)}")
    measured = []
    for name, tok in tokenizers:
        encs = tok.encode_batch(texts, add_special_tokens=False).encodings  # byte-level BPE: one kernel call
        unk = unk_id(tok)
        m = compute_metrics(encs, texts, vocab_size=tok.vocab_size, unk_token=None, unk_id=unk)
        fallback = bool(getattr(tok.model, "byte_fallback", False))
        lost = sum(_uncovered_chars(e, unk, fallback) for e in encs)
        # Attention is quadratic per sequence: each text is one sequence.
        square = sum(sum(1 for s in e.special_tokens_mask if not s) ** 2 for e in encs)
        measured.append((name, tok, m, lost, square))
    unit = next((sq for name, _, _, _, sq in measured if name == baseline), None)
    return [
        CompareRow(
            name=name,
            vocab_size=tok.vocab_size,
            tokens=m.tokens,
            chars=m.chars,
            bytes=m.bytes,
            words=m.words,
            chars_per_token=m.chars_per_token,
            bytes_per_token=m.bytes_per_token,
            compression=ratio(m.tokens, m.chars),
            fertility=m.fertility,
            unk_rate=m.unk_rate,
            char_coverage=None if not m.chars else 1.0 - lost / m.chars,
            vocab_utilization=m.vocab_usage,
            embedding_params=tok.vocab_size * d_model,
            attention_cost=float(square) if baseline is None else ratio(square, unit or 0),
            cost=m.tokens / 1000 * price_per_1k,
        )
        for name, tok, m, lost, square in measured
    ]


@dataclass(frozen=True)
class Segment:
    """One token of a text: ``text[start:end]`` is what it covers (offsets into the original text)."""

    start: int
    end: int
    token: str
    id: int


def segments(tok: Tokenizer, text: str) -> list[Segment]:
    """The tokens of ``text`` (no special tokens added) with the character span each covers.

    Tokens that cover no character of their own keep the offsets the tokenizer gives them: the
    byte tokens of one multi-byte character all span that character, a zero-width token has
    ``start == end``.

    >>> byte = granularity_tokenizer("byte", [])
    >>> [(s.start, s.end, s.token) for s in segments(byte, "é!")]
    [(0, 1, 'Ã'), (0, 1, '©'), (1, 2, '!')]
    """
    enc = tok.encode(text, add_special_tokens=False)
    return [Segment(start, end, token, tid) for tid, token, (start, end) in zip(enc.ids, enc.tokens, enc.offsets)]


def boundaries(segs: Iterable[Segment]) -> set[int]:
    """Character positions where some token starts or ends.

    >>> sorted(boundaries([Segment(0, 2, "ab", 5), Segment(3, 4, "c", 6)]))
    [0, 2, 3, 4]
    """
    out: set[int] = set()
    for s in segs:
        out.add(s.start)
        out.add(s.end)
    return out


def disagreements(all_segments: Sequence[list[Segment]]) -> set[int]:
    """Positions that are a token boundary for some of the tokenizers but not for all of them.

    >>> whole, halves = [Segment(0, 4, "abcd", 1)], [Segment(0, 2, "ab", 2), Segment(2, 4, "cd", 3)]
    >>> disagreements([whole, halves]), disagreements([halves, halves]), disagreements([])
    ({2}, set(), set())
    """
    sets = [boundaries(segs) for segs in all_segments]
    if not sets:
        return set()
    return set.union(*sets) - set.intersection(*sets)


def robustness_examples() -> list[tuple[str, str]]:
    """Short ``(label, text)`` probes of how tokenizers cope with noisy or unusual input.

    >>> dict(robustness_examples())["misspelt"]
    'aritifical inteligense is reaal bro'
    """
    return [
        ("clean", "artificial intelligence is real bro"),
        ("misspelt", "aritifical inteligense is reaal bro"),
        ("shouting", "ARTIFICIAL INTELLIGENCE IS REAL BRO"),
        ("unseen word", "the quokka photobombed a selfie"),
        ("numbers", "In 2024, 1234567 + 89 = 1234656 (≈1.23e6)"),
        ("code", "def f(x):\n    return x**2  # square"),
        ("accents", "naïve café, Ångström, façade"),
        ("emoji", "great job 👍🏽🎉 see you 🇯🇵"),
    ]
