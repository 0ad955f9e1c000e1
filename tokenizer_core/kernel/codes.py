"""The integer codes Python passes into the compiled kernel, as enums.

The C side defines them once, in ``kernels/src/codes.h``, and the module exports each under its C
name (``tokenizer_kernel.PAT_GPT2`` ...); ``tests/kernel/test_kernel_constants.py`` holds these enums
equal to those constants, so a code changed on one side only fails a test instead of silently
splitting text the wrong way. Each member's :attr:`c_name` is that exported name.

>>> SplitPattern.CL100K, int(PieceSplit.WHITESPACE_SPLIT), CharClass.WORD.c_name
(<SplitPattern.CL100K: 1>, 4, 'C_W')
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

__all__ = ["CASELESS_SHIFT", "CharClass", "ChunkRule", "PieceSplit", "SplitPattern", "kernel_constants"]


class SplitPattern(IntEnum):
    """``Encoder(pattern=...)``: the split pattern the kernel's encoder walks itself."""

    GPT2 = 0
    CL100K = 1
    EXTERNAL = 2  #: no pattern of its own: the caller gives each piece's end (``Encoder.encode_split``)
    PROGRAM = 3  #: a compiled pattern (:mod:`tokenizer_core.text.regex_program`) run by the kernel's matcher

    @property
    def c_name(self) -> str:
        return "PAT_" + self.name


class PieceSplit(IntEnum):
    """``PieceCounter(how=...)``: how the kernel splits training text into pieces before counting.

    (1 is unused: the code of a cl100k counter that was never needed.)"""

    GPT2 = 0  #: the GPT-2 pattern, lines joined (ByteLevel)
    WHITESPACE = 2  #: ``\\w+|[^\\w\\s]+`` (Whitespace)
    WORD_SPLIT = 3  #: ``\\w+|[^\\w\\s]`` (WordSplit)
    WHITESPACE_SPLIT = 4  #: ``\\S+`` (WhitespaceSplit)
    SPACES = 5  #: ``[^ \\t\\n\\r]+`` (the chunks BERT's normalizer and pre-tokenizer work on)

    @property
    def c_name(self) -> str:
        return "SPLIT_" + self.name.replace("_", "")


class ChunkRule(IntEnum):
    """``ChunkTable(rule=...)``: how the kernel's chunk table cuts a text into chunks."""

    WORDS = 0  #: runs of characters other than space, tab, LF and CR (those dropped)
    SPACES = 1  #: a run of spaces and the other characters after it (every character in a chunk)
    PIECES = 2  #: the pieces of a split program (the table's splitter Encoder)

    @property
    def c_name(self) -> str:
        return "RULE_" + self.name


class CharClass(IntFlag):
    """Bits of the kernel's character class table (built in :mod:`tokenizer_core.kernel.native`)."""

    LETTER = 1  #: ``\\p{L}``
    DIGIT = 2  #: ``\\p{N}``
    SPACE = 4  #: ``\\s``
    WORD = 128  #: ``\\w``

    @property
    def c_name(self) -> str:
        return "C_" + {"LETTER": "L", "DIGIT": "N", "SPACE": "S", "WORD": "W"}[self.name]


#: Bits 3..6 of a class code hold 1 + the index in "sdmtlver" of the letter a character matches
#: case-insensitively (cl100k's contractions); C name ``C_CASELESS_SHIFT``.
CASELESS_SHIFT = 3


def kernel_constants() -> dict[str, int]:
    """Every code above by its C name, as the kernel module should export it.

    >>> kernel_constants()["SPLIT_WORDSPLIT"]
    3
    """
    codes: dict[str, int] = {"C_CASELESS_SHIFT": CASELESS_SHIFT}
    for enum in (SplitPattern, PieceSplit, ChunkRule, CharClass):
        codes.update({member.c_name: int(member) for member in enum})
    return codes
