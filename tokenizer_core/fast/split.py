"""The fast path of regex splits before a model that is not byte-level: the kernel cuts, Python
encodes each distinct piece once.

A tokenizer.json whose pre-tokenizer is a ``Split`` of any pattern (or a ``Sequence`` of up to four,
each splitting the pieces of the one before), "isolated" and not inverted, with no normalizer, before
a BPE, WordPiece or Unigram model: its pieces are the pattern's matches and the gaps between them,
which the kernel's compiled pattern matcher finds as the byte-level path does
(:func:`~tokenizer_core.text.regex_program.compile_program`, the ``regex`` module's leftmost-first
semantics, each Split read with MULTILINE as Oniguruma reads it). The model tokenizes each piece on
its own, so a piece's tokens depend on its text alone: the kernel's ``ChunkTable`` keeps them per
distinct piece (:mod:`tokenizer_core.fast.chunk_table`, rule ``RULE_PIECES``) and assembles texts and
batches in C. A piece is never split again alone (a pattern with a look-ahead may cut a piece
differently without what follows it), so its entry is the model's tokens of exactly that piece, one
word. Patterns the matcher cannot run take the general path.

>>> from tokenizer_core.text.splitting import Split
>>> from tokenizer_core.wordpiece.model import WordPiece
>>> from tokenizer_core.pipeline import Tokenizer
>>> wp = WordPiece({"[UNK]": 0, "hug": 1, "##s": 2, "1": 3, " ": 4})
>>> tok = Tokenizer(wp, pre_tokenizer=Split(r"\\d", is_regex=True))
>>> enc = tok.encode("hugs1 hugs")
>>> enc.tokens, enc.offsets, enc.word_ids
(['hug', '##s', '1', '[UNK]'], [(0, 3), (3, 4), (4, 5), (5, 10)], [0, 0, 1, 2])
"""

from __future__ import annotations

from typing import Any, Optional, Union

import regex

from tokenizer_core.bpe.model import BPE
from tokenizer_core.fast.assembly import ChunkEntry
from tokenizer_core.fast.chunk_table import RULE_PIECES, CompiledChunks, TablePath, token_strings
from tokenizer_core.fast.protocol import stage_name
from tokenizer_core.kernel import native
from tokenizer_core.kernel.codes import SplitPattern
from tokenizer_core.kernel.native import class_table
from tokenizer_core.text.patterns import python_pattern
from tokenizer_core.text.pre_tokenizer_base import Sequence
from tokenizer_core.text.regex_program import compile_program
from tokenizer_core.text.splitting import Split
from tokenizer_core.types import Encoding
from tokenizer_core.unigram.model import Unigram
from tokenizer_core.wordpiece.model import WordPiece

__all__ = ["SplitFastPath"]

_MAX_CHAIN = 4  # split programs one kernel Encoder chains (MAX_CHAIN in kernels/src/encoder.h)


def _patterns(pre_tokenizer: Any) -> Optional[list[str]]:
    """The Python spelling of each isolated, not inverted Split's pattern, in order; None otherwise."""
    splits = pre_tokenizer.pre_tokenizers if type(pre_tokenizer) is Sequence else [pre_tokenizer]
    if not 1 <= len(splits) <= _MAX_CHAIN:
        return None
    out = []
    for split in splits:
        if type(split) is not Split or split.behavior != "isolated" or split.invert or not split.pattern:
            return None
        out.append(python_pattern(split.pattern) if split.is_regex else regex.escape(split.pattern))
    return out


def _splitter(patterns: list[str]) -> Optional[Any]:
    """A kernel Encoder that only splits (every pattern compiled, or None): its byte tables are a
    stand-in, never used to encode."""
    programs = [compile_program(p, multiline=True) for p in patterns]
    if any(p is None for p in programs):
        return None
    return native.kernel().Encoder(class_table(), int(SplitPattern.PROGRAM), list(range(256)), [],
                                   [bytes([b]) for b in range(256)], [chr(b) for b in range(256)],
                                   program=tuple(p.code for p in programs),
                                   program_table=tuple(p.table() for p in programs))


class SplitFastPath(TablePath):
    """Encodings of one tokenizer's texts from the kernel's table of their distinct pieces."""

    name = "regex Splits in the kernel's matcher"

    def __init__(self, model: Any, splitter: Any) -> None:
        self._model, self._splitter = model, splitter

    @classmethod
    def plan(cls, *, normalizer: Any, pre_tokenizer: Any, model: Any) -> Union[SplitFastPath, str]:
        """The fast path for these stages, or why not (a normalizer, another pre-tokenizer, a pattern
        the kernel cannot run, no kernel)."""
        if normalizer is not None:
            return f"a normalizer ({stage_name(normalizer)}) comes first"
        # Their tokenize() is deterministic (sampling and dropout take other calls, never this path).
        if type(model) not in (BPE, WordPiece, Unigram):
            return f"the model ({stage_name(model)}) is not BPE, WordPiece or Unigram"
        if not native.available():
            return "the compiled kernel is not built here"
        patterns = _patterns(pre_tokenizer)
        if patterns is None:
            return f"the pre-tokenizer ({stage_name(pre_tokenizer)}) is not a chain of isolated Splits"
        splitter = _splitter(patterns)
        return "the kernel's regex matcher cannot run one of its patterns" if splitter is None else cls(model, splitter)

    def _new_table(self) -> Optional[CompiledChunks]:
        return CompiledChunks.build(token_strs=token_strings(self._model), rule=RULE_PIECES, splitter=self._splitter)

    def _entry_of(self, piece: str, first: bool) -> ChunkEntry:
        return ChunkEntry.of_tokens(self._model.tokenize(piece), pieces=1)

    def encode(self, text: str, *, added: Any, split_special: bool, sequence_id: int) -> Optional[Encoding]:
        """The model tokens of ``text`` as the general path gives them; None for the general path (an
        added token, no kernel, a text the matcher gives up on)."""
        if self._added_in(text, added, split_special=split_special):
            return None
        return self._from_table(text, sequence_id)
