"""The compiled kernel for byte-level BPE encoding, and when it applies.

``tokenizer_kernel`` (see :mod:`tokenizer_core.kernel.native`) pre-tokenizes with the GPT-2 or
cl100k_base pattern, merges each piece's bytes and assembles ids, token strings, offsets and
word ids in C. Any other split pattern (o200k, Llama 3, Qwen, Tekken, a tokenizer.json's own) is
compiled for the kernel's backtracking matcher (:mod:`tokenizer_core.text.regex_program`, an
``Encoder`` of pattern ``PROGRAM``); one outside the subset it runs is found by the ``regex``
module here, and the kernel is given each piece's end (:class:`SplitByRegex`, over an ``Encoder``
of pattern ``EXTERNAL``): the merging, the piece cache and the lists stay in C either way. It computes exactly what the pure-Python path computes
(:class:`~tokenizer_core.text.byte_level.ByteLevel`, :meth:`BPE.tokenize <tokenizer_core.bpe.model.BPE.tokenize>`,
:class:`~tokenizer_core.text.pre_tokenizer_base.Piece` offsets), which stays the reference the
app's pages step through; ``tests/kernel/test_kernel.py`` holds the two against each other.

The Encoder is kernels/src/encoder.c (its methods), encoder_init.c (the arguments built here,
checked) and encoder_batch.c (encode_batch).

>>> from tokenizer_core.bpe.model import BPE
>>> from tokenizer_core.text.byte_level import ByteLevel, bytes_to_unicode
>>> vocab = {c: i for i, c in enumerate(sorted(bytes_to_unicode().values()))}
>>> vocab["Ġw"] = 256
>>> enc = kernel_encoder(ByteLevel(), BPE(vocab, [("Ġ", "w")]))
>>> enc is None or enc.encode("a w", 0, 0)[:3] == ([64, 256], ["a", "Ġw"], [(0, 1), (1, 3)])
True
"""

from __future__ import annotations

import threading
import weakref
from array import array
from bisect import bisect_right
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Optional

import regex

from tokenizer_core.kernel.codes import SplitPattern
from tokenizer_core.kernel.native import available, class_table, kernel
from tokenizer_core.text.byte_level import (
    CL100K_PATTERN,
    CL100K_PORTABLE_PATTERN,
    GPT2_PATTERN,
    ByteLevel,
    bytes_to_unicode,
)
from tokenizer_core.text.patterns import python_pattern
from tokenizer_core.text.regex_program import compile_program

if TYPE_CHECKING:
    from tokenizer_core.bpe.model import BPE

__all__ = ["KERNEL_PATTERNS", "available", "class_table", "kernel_encoder"]

#: The split patterns the kernel walks itself (cl100k_base in either spelling).
KERNEL_PATTERNS: dict[str, SplitPattern] = {
    GPT2_PATTERN: SplitPattern.GPT2,
    CL100K_PATTERN: SplitPattern.CL100K,
    CL100K_PORTABLE_PATTERN: SplitPattern.CL100K,
}
_IDS_LIMIT = 2**31 - 1
_lock = threading.Lock()
# model -> {pattern (or (PROGRAM, its pattern)): Encoder or None}; an entry goes with its model.
_shared: "weakref.WeakKeyDictionary[Any, dict[Any, Any]]" = weakref.WeakKeyDictionary()


def kernel_encoder(pre_tokenizer: Any, model: "BPE") -> Optional[Any]:
    """A ``tokenizer_kernel.Encoder`` computing what ``pre_tokenizer`` and ``model`` compute, or None
    when the kernel is missing or these stages are beyond it (another pattern, a prefix space,
    subword prefixes or suffixes, byte symbols missing from the vocabulary).

    One Encoder per model and pattern, shared: a pipeline's fast path and the ids-only encoder of
    the same reference use one pair table and one piece cache."""
    if not available():
        return None
    chain = split_chain(pre_tokenizer)
    if chain is not None:  # a Sequence of Splits before ByteLevel: every one compiled, or no kernel
        programs = [compile_program(p, multiline=multiline) for p, multiline in chain]
        if any(p is None for p in programs) or not 1 <= len(programs) <= _MAX_CHAIN:
            return None
        key = (SplitPattern.PROGRAM, tuple(chain), "chain")
        with _lock:
            per_model = _shared.setdefault(model, {})
            if key not in per_model:
                per_model[key] = _build(SplitPattern.PROGRAM, model, program=programs)
            return per_model[key]
    if type(pre_tokenizer) is not ByteLevel or pre_tokenizer.add_prefix_space:
        return None
    # Without its regex ByteLevel keeps the whole text as one piece: the pattern that matches it all.
    regex = pre_tokenizer.pattern if pre_tokenizer.use_regex else WHOLE_TEXT
    pattern = KERNEL_PATTERNS.get(regex)
    program = None
    if pattern is None:  # another pattern: compiled for the kernel's matcher, else split by the regex module
        program = compile_program(regex)
        pattern = SplitPattern.EXTERNAL if program is None else SplitPattern.PROGRAM
    key = pattern if program is None else (pattern, program.pattern)
    with _lock:
        per_model = _shared.setdefault(model, {})
        if key not in per_model:
            per_model[key] = _build(pattern, model, program=program)
        encoder = per_model[key]
    if encoder is None or pattern != SplitPattern.EXTERNAL:
        return encoder
    return SplitByRegex(encoder, pre_tokenizer)


_MAX_CHAIN = 4  # programs one Encoder chains (MAX_CHAIN in kernels/src/encoder.h)
#: The split pattern of a ByteLevel without its regex: one piece, the whole text (none for "").
WHOLE_TEXT = r"[\s\S]+"


def split_chain(pre_tokenizer: Any) -> Optional[list[tuple[str, bool]]]:
    """The regexes (Python spelling) of a ``Sequence`` of isolated, not inverted ``Split`` s ending in a
    ``ByteLevel`` without a prefix space (its own pattern last, when it splits), each with whether it
    is read with MULTILINE (a Split's is, as Oniguruma reads it; ByteLevel's is not): the chain the
    kernel runs, each splitting the pieces of the one before; None for any other pre-tokenizer.

    >>> from tokenizer_core.text.pre_tokenizers import Sequence
    >>> from tokenizer_core.text.splitting import Split
    >>> split_chain(Sequence([Split(r"\\d+", is_regex=True), ByteLevel(use_regex=False)])) == [(r"\\d+", True)]
    True
    """
    from tokenizer_core.text.pre_tokenizer_base import Sequence
    from tokenizer_core.text.splitting import Split

    if type(pre_tokenizer) is not Sequence or len(pre_tokenizer.pre_tokenizers) < 2:
        return None
    *splits, last = pre_tokenizer.pre_tokenizers
    if type(last) is not ByteLevel or last.add_prefix_space:
        return None
    patterns = []
    for split in splits:
        if type(split) is not Split or split.behavior != "isolated" or split.invert or not split.pattern:
            return None
        patterns.append((python_pattern(split.pattern) if split.is_regex else regex.escape(split.pattern), True))
    return patterns + ([(last.pattern, False)] if last.use_regex else [])


class SplitByRegex:
    """An ``EXTERNAL`` Encoder with the ``regex`` module's split in front: the methods of an Encoder
    that splits by itself (``encode``, ``encode_ids``, ``encode_batch``, ``split``, ``encode_piece``,
    the cache's).

    The pieces are :class:`ByteLevel`'s own (a pattern's matches, and the gaps between them where it
    leaves any), so the result is the pure-Python path's, as with the kernel's own patterns."""

    def __init__(self, encoder: Any, pre_tokenizer: ByteLevel) -> None:
        self.encoder, self._chunks = encoder, pre_tokenizer.chunk_texts
        self.cache_size, self.cache_bytes, self.clear_cache = encoder.cache_size, encoder.cache_bytes, encoder.clear_cache
        self.encode_piece = encoder.encode_piece

    def _ends(self, text: str) -> array:
        return array("q", accumulate(map(len, self._chunks(text))))

    def split(self, text: str) -> list[str]:
        return self._chunks(text)

    def encode(self, text: str, base: int, first_word: int, *, packed: bool = False, threads: int = 1) -> tuple[Any, ...]:
        # (threads: the regex module splits here, one pass; the kernel only merges the pieces given)
        return self.encoder.encode_split(text, self._ends(text), base, first_word, packed=packed)

    def encode_ids(self, text: str) -> list[int]:
        return self.encoder.encode_split(text, self._ends(text), 0, 0)[0]

    def encode_batch(self, texts: Any, sequence_id: int, *, threads: int = 1, encoding: Any = None,
                     packed: bool = False) -> list[Any]:
        """Each text in turn (the regex split holds the GIL, so threads would not help here)."""
        out = []
        if packed:
            for text in texts:
                columns, _, strs = self.encode(text, 0, 0, packed=True)
                out.append((columns, sequence_id, strs) if encoding is None
                           else encoding.from_packed(columns, sequence_id, strs))
            return out
        for text in texts:
            ids, tokens, offsets, word_ids, _ = self.encode(text, 0, 0)
            out.append(encoding.from_columns(ids, tokens, offsets, word_ids=word_ids, sequence_id=sequence_id))
        return out


def _build(pattern: SplitPattern, model: "BPE", *, program: Any = None) -> Optional[Any]:
    """The Encoder of ``model`` walking ``pattern`` (EXTERNAL: pieces given; PROGRAM: ``program``, or a
    list of programs for a chain), or None when beyond it."""
    if model.continuing_subword_prefix or model.end_of_word_suffix or model.suffix_as_symbol:
        return None
    vocab = model._vocab
    byte_ids = [vocab.get(c) for c in bytes_to_unicode().values()]
    if None in byte_ids:
        return None  # unknown bytes take the Python path's unknown-token rules
    size = max(vocab.values()) + 1
    if size > _IDS_LIMIT or size > 4 * len(vocab) + 1024:
        return None  # ids far apart: the kernel's tables are indexed by id
    strs: list[Optional[str]] = [None] * size
    for token, tid in vocab.items():
        strs[tid] = token
    raw = _kernel_token_bytes(strs)
    merges: Any = []
    if model.merge_ranks == "merges":
        packed = getattr(getattr(model, "_table", None), "id_triples", None)
        if packed is not None:  # checked by the kernel at load: the ids come packed already
            merges = packed
        else:
            for (left, right), (_, merged) in sorted(model._merge.items(), key=lambda kv: kv[1][0]):
                ids = (vocab.get(left), vocab.get(right), vocab.get(merged))
                if None in ids:
                    return None
                merges.append(ids)
    extra = {}
    if isinstance(program, list):
        extra = {"program": tuple(p.code for p in program), "program_table": tuple(p.table() for p in program)}
    elif program is not None:
        extra = {"program": program.code, "program_table": program.table()}
    return kernel().Encoder(class_table(), pattern, byte_ids, merges, raw, strs,
                            tokens_rank=model.merge_ranks == "tokens", ignore_merges=model.ignore_merges, **extra)


#: Byte symbol -> its byte (as a Latin-1 character); other characters below 256 -> U+FFFF, which
#: no Latin-1 byte is, like every character from 256 up that is not a byte symbol.
_TO_LATIN1 = {**{k: "\uffff" for k in range(256)}, **{ord(c): chr(b) for b, c in bytes_to_unicode().items()}}
_NOT_LATIN1 = regex.compile("[^\x00-\xff]")


#: Code point -> the byte its byte-level symbol stands for, -1 for none (the kernel's form of it).
_INVERSE = [-1] * 324
for _b, _c in bytes_to_unicode().items():
    _INVERSE[ord(_c)] = _b


def _kernel_token_bytes(strs: "list[Optional[str]]") -> "list[Optional[bytes]]":
    """:func:`token_bytes` in the kernel (one pass in C), or in Python when it is missing."""
    convert = getattr(kernel(), "byte_level_bytes", None)
    return token_bytes(strs) if convert is None else convert(strs, _INVERSE)


def token_bytes(strs: "list[Optional[str]]") -> "list[Optional[bytes]]":
    """Each token's bytes (by id), None for a hole or a token not made of byte symbols.

    All tokens are translated and encoded as one string, then cut apart: a per-token loop took a
    second for a 200,000-token vocabulary.

    >>> token_bytes(["Ġa", None, "<b>", "\u2581x"])
    [b' a', None, b'<b>', None]
    """
    tokens = ["" if s is None else s for s in strs]
    joined = "".join(tokens).translate(_TO_LATIN1)
    data = joined.encode("latin-1", errors="replace")
    ends = list(accumulate(map(len, tokens)))
    raw: list[Optional[bytes]] = [data[a:b] for a, b in zip([0, *ends], ends)]
    for k, s in enumerate(strs):
        if s is None:
            raw[k] = None
    for match in _NOT_LATIN1.finditer(joined):  # rare: tokens that are not byte strings
        raw[bisect_right(ends, match.start())] = None
    return raw
