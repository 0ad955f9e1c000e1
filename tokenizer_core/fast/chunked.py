"""The fast path for stages that never look across ASCII white space: encodings from cached chunks.

With BERT's stages (:class:`~tokenizer_core.text.normalizers.BertNormalizer`,
:class:`~tokenizer_core.text.word_splitters.BertPreTokenizer`) or plain word splitters
(``Whitespace``, ``WhitespaceSplit``, ``WordSplit``, with no normalizer or ``Lowercase``) and a
model whose best segmentation is fixed (WordPiece, BPE, Unigram; never when sampling), text cut at space, tab, LF and CR
encodes chunk by chunk: the normalizer works character by character (Unicode's canonical
reordering stops at a space; Python's final-sigma rule looks no further than a space either), the
pre-tokenizer drops that white space, and no token holds it. Each distinct chunk is therefore
encoded once, by the general path's steps on the chunk alone, and remembered as its ids, tokens,
offsets and word ids relative to the chunk (each distinct piece's model tokens are remembered
too); a text is then a dictionary lookup per chunk. Texts holding an added token, and tokenizers
with added tokens matched in normalized text, take the general path.

With the compiled kernel the chunks are kept in its ``ChunkTable`` (:mod:`tokenizer_core.fast.chunk_table`),
which cuts, looks up and assembles texts and batches in C, on every core for a batch.

The result is the general path's :class:`~tokenizer_core.types.Encoding`, field for field
(tests/core/fast/test_fast_paths.py compares them on hostile texts).

>>> from tokenizer_core.wordpiece.model import WordPiece
>>> from tokenizer_core.text.normalizers import BertNormalizer
>>> from tokenizer_core.text.pre_tokenizers import BertPreTokenizer
>>> from tokenizer_core.pipeline import Tokenizer
>>> tok = Tokenizer(WordPiece({"[UNK]": 0, "hug": 1, "##s": 2, "!": 3}), normalizer=BertNormalizer(),
...                 pre_tokenizer=BertPreTokenizer())
>>> enc = tok.encode("Hugs  hugs!")
>>> enc.tokens, enc.offsets, enc.word_ids
(['hug', '##s', 'hug', '##s', '!'], [(0, 3), (3, 4), (6, 9), (9, 10), (10, 11)], [0, 0, 1, 1, 2])
"""

from __future__ import annotations

from typing import Any, Optional, Union

import regex

from tokenizer_core.fast.assembly import ChunkEntry, ChunkSteps, assembled_encoding
from tokenizer_core.fast.chunk_table import RULE_WORDS, CompiledChunks, TablePath, token_strings
from tokenizer_core.fast.protocol import stage_name
from tokenizer_core.types import CACHE_LIMIT, Encoding

_CHUNKS = regex.compile(r"[^ \t\n\r]+")


def _normalizer_is_local(normalizer: Any) -> bool:
    from tokenizer_core.text.normalizers import BertNormalizer, Lowercase

    return normalizer is None or type(normalizer) in (BertNormalizer, Lowercase)


def _pre_tokenizer_is_local(pre_tokenizer: Any) -> bool:
    from tokenizer_core.text.pre_tokenizers import BertPreTokenizer, Whitespace, WhitespaceSplit, WordSplit

    return type(pre_tokenizer) in (BertPreTokenizer, Whitespace, WhitespaceSplit, WordSplit)


def _model_is_deterministic(model: Any) -> bool:
    from tokenizer_core.bpe.model import BPE
    from tokenizer_core.unigram.model import Unigram
    from tokenizer_core.wordpiece.model import WordPiece

    # Their tokenize() is deterministic (sampling and dropout take other calls, never this path).
    return type(model) in (BPE, WordPiece, Unigram)


class ChunkedFastPath(TablePath):
    """Encodings of one tokenizer's texts, from the cached encodings of their chunks."""

    name = "chunks cut at white space (BERT's and plain word splitters)"

    def __init__(self, normalizer: Any, pre_tokenizer: Any, model: Any) -> None:
        self._normalizer, self._pre_tokenizer, self._model = normalizer, pre_tokenizer, model
        self._cache: dict[str, ChunkEntry] = {}
        self._steps = ChunkSteps(normalizer, pre_tokenizer, model, limit=CACHE_LIMIT)

    @classmethod
    def plan(cls, *, normalizer: Any, pre_tokenizer: Any, model: Any) -> Union[ChunkedFastPath, str]:
        """The fast path for these stages, or why they may look across white space."""
        if not _normalizer_is_local(normalizer):
            return f"the normalizer ({stage_name(normalizer)}) is not one proven to stop at white space"
        if not _pre_tokenizer_is_local(pre_tokenizer):
            return f"the pre-tokenizer ({stage_name(pre_tokenizer)}) may keep white space inside a piece"
        if not _model_is_deterministic(model):
            return f"the model ({stage_name(model)}) is not BPE, WordPiece or Unigram"
        return cls(normalizer, pre_tokenizer, model)

    def _entry(self, chunk: str, *, remember: bool = True) -> ChunkEntry:
        """The general path's steps on one chunk without added tokens (``remember=False``: the
        kernel's table keeps it instead)."""
        entry = self._cache.get(chunk) if remember else None
        if entry is None:
            entry = self._steps.entry(chunk, at_start=True)
            if remember and len(self._cache) < CACHE_LIMIT:
                self._cache[chunk] = entry
        return entry

    def _new_table(self) -> Optional[CompiledChunks]:
        return CompiledChunks.build(token_strs=token_strings(self._model), rule=RULE_WORDS)

    def _entry_of(self, chunk: str, first: bool) -> ChunkEntry:
        return self._entry(chunk, remember=False)

    def encode(self, text: str, *, added: Any, split_special: bool, sequence_id: int) -> Optional[Encoding]:
        """The model tokens of ``text`` as the general path gives them; None when ``text`` holds an
        added token (the general path cuts those out first)."""
        if self._added_in(text, added, split_special=split_special):
            return None
        enc = self._from_table(text, sequence_id)
        if enc is not None:
            return enc
        starts, entries = self._cached_chunks(text, _CHUNKS, self._cache, self._entry)
        return assembled_encoding(starts, entries, sequence_id)
