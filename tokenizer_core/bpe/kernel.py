"""The compiled kernel for byte-level BPE (``kernels/``, built from source at install), and when it applies.

``tokenizer_kernel`` pre-tokenizes with the GPT-2 or cl100k_base pattern, merges each piece's
bytes and assembles ids, token strings, offsets and word ids in C. It computes exactly what
the pure-Python path computes (:class:`~tokenizer_core.text.byte_level.ByteLevel`,
:meth:`BPE.tokenize <tokenizer_core.bpe.model.BPE.tokenize>`, :class:`~tokenizer_core.text.pre_tokenizer_base.Piece`
offsets), which stays the reference the app's pages step through; ``tests/test_kernel.py``
holds the two against each other. The kernel is optional: without it (no compiler at install,
or ``TOKENIZER_CORE_PURE=1``) every caller gets ``None`` here and uses the Python path.

Character classes come from the ``regex`` module itself (one byte per code point), so the
kernel and the Python path can never disagree about what is a letter, a digit or a space.

>>> from tokenizer_core.bpe.model import BPE
>>> from tokenizer_core.text.byte_level import ByteLevel, bytes_to_unicode
>>> vocab = {c: i for i, c in enumerate(sorted(bytes_to_unicode().values()))}
>>> vocab["Ġw"] = 256
>>> enc = kernel_encoder(ByteLevel(), BPE(vocab, [("Ġ", "w")]))
>>> enc is None or enc.encode("a w", 0, 0)[:3] == ([64, 256], ["a", "Ġw"], [(0, 1), (1, 3)])
True
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Optional

import regex

from tokenizer_core.text.byte_level import (
    CL100K_PATTERN,
    CL100K_PORTABLE_PATTERN,
    GPT2_PATTERN,
    ByteLevel,
    bytes_to_unicode,
)

if TYPE_CHECKING:
    from tokenizer_core.bpe.model import BPE

try:  # built by `pip install ./kernels` (requirements.txt); optional by design
    import tokenizer_kernel as _kernel
except ImportError:  # pragma: no cover - exercised on machines without a compiler
    _kernel = None

#: The split patterns the kernel walks itself (0: GPT-2, 1: cl100k_base, either spelling).
KERNEL_PATTERNS = {GPT2_PATTERN: 0, CL100K_PATTERN: 1, CL100K_PORTABLE_PATTERN: 1}
#: Class codes, as tokenizer_kernel.c reads them.
_LETTER, _DIGIT, _SPACE = 1, 2, 4
_CASELESS = "sdmtlver"  # the letters of cl100k's (?i:[sdmt]|ll|ve|re)
_IDS_LIMIT = 2**31 - 1
_lock = threading.Lock()


def available() -> bool:
    """Whether the compiled kernel is installed and not switched off (``TOKENIZER_CORE_PURE=1``)."""
    return _kernel is not None and os.environ.get("TOKENIZER_CORE_PURE", "") != "1"


@lru_cache(maxsize=1)
def class_table() -> bytes:
    """One byte per code point: 1 ``\\p{L}``, 2 ``\\p{N}``, 4 ``\\s`` as the ``regex`` module reads them,
    plus (bits 3..6) 1 + the index in "sdmtlver" of the letter a character matches case-insensitively.

    >>> t = class_table(); t[ord("a")] & 7, t[ord("7")], t[ord(" ")], t[0x17F] >> 3  # ſ folds to s
    (1, 2, 4, 1)
    """
    everything = "".join(map(chr, range(0x110000)))
    table = bytearray(0x110000)
    # The three classes are disjoint general categories (L*, N*, and Z*/Cc), so plain assignment will do.
    for pattern, code in ((r"\p{L}+", _LETTER), (r"\p{N}+", _DIGIT), (r"\s+", _SPACE)):
        for m in regex.finditer(pattern, everything):
            s, e = m.span()
            table[s:e] = bytes([code]) * (e - s)
    for k, letter in enumerate(_CASELESS):
        for m in regex.finditer(f"(?i:{letter})", everything):
            table[m.start()] |= (k + 1) << 3
    return bytes(table)


def kernel_encoder(pre_tokenizer: Any, model: "BPE") -> Optional[Any]:
    """A ``tokenizer_kernel.Encoder`` computing what ``pre_tokenizer`` and ``model`` compute, or None
    when the kernel is missing or these stages are beyond it (another pattern, a prefix space,
    subword prefixes or suffixes, byte symbols missing from the vocabulary)."""
    if not available() or type(pre_tokenizer) is not ByteLevel or not pre_tokenizer.use_regex:
        return None
    pattern = KERNEL_PATTERNS.get(pre_tokenizer.pattern)
    if pattern is None or pre_tokenizer.add_prefix_space:
        return None
    if model.continuing_subword_prefix or model.end_of_word_suffix or model.suffix_as_symbol:
        return None
    vocab = model._vocab
    byte_ids = [vocab.get(c) for c in bytes_to_unicode().values()]
    if None in byte_ids or not vocab or max(vocab.values()) > _IDS_LIMIT:
        return None  # unknown bytes take the Python path's unknown-token rules
    size = max(vocab.values()) + 1
    strs: list[Optional[str]] = [None] * size
    raw: list[Optional[bytes]] = [None] * size
    byte_of = {c: b for b, c in bytes_to_unicode().items()}
    for token, tid in vocab.items():
        strs[tid] = token
        if all(c in byte_of for c in token):
            raw[tid] = bytes(byte_of[c] for c in token)
    merges: list[tuple[int, int, int]] = []
    if model.merge_ranks == "merges":
        for (left, right), (_, merged) in sorted(model._merge.items(), key=lambda kv: kv[1][0]):
            ids = (vocab.get(left), vocab.get(right), vocab.get(merged))
            if None in ids:
                return None
            merges.append(ids)  # type: ignore[arg-type]
    with _lock:  # the table is built once per process
        table = class_table()
    return _kernel.Encoder(table, pattern, byte_ids, merges, raw, strs,
                           tokens_rank=model.merge_ranks == "tokens", ignore_merges=model.ignore_merges)
