"""SuperBPE's pre-tokenizers: stage 1 cuts at whitespace, stage 2 only at line ends and digit groups.

Both follow the authors' training code (Liu et al., 2025): numbers are split from the rest and cut in
groups of three from the right, then stage 1 splits with a GPT-2 style regex (words with their
leading space, punctuation runs, whitespace runs) and stage 2 does not, so its "words" are whole
lines and merges may cross spaces. Bytes are shown as GPT-2's printable symbols in both.

Stage 2 also cuts after every newline. The authors train on files read line by line, so no merge
they learn has a token ending in a newline on its left; cutting there at encoding time changes no
token and bounds the longest piece by the longest line.

>>> [w for w in raw_stage2().words("It cost 12345 dollars, ok?\\n")]
['It cost ', '12', '345', ' dollars, ok?\\n']
>>> stage2_pre_tokenizer().words("of the\\nend")
['ofĠtheĊ', 'end']
"""

from __future__ import annotations

import re
from typing import Any

import regex

from tokenizer_core.text.byte_level import ByteLevel
from tokenizer_core.text.pre_tokenizer_base import PreTokenizer, Sequence
from tokenizer_core.text.splitting import Digits, Split

#: Numbers in groups of three from the right ("12345" -> "12", "345"): an empty match before each group.
DIGIT_GROUPS = r"(?=(\d{3})+(?!\d))"
#: Stage 1's regex after the digit groups: GPT-2's classes without its contractions.
WORDS = r" ?\p{L}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
STAGE1_PATTERN = DIGIT_GROUPS + "|" + WORDS


def stage1_pre_tokenizer() -> PreTokenizer:
    """Stage 1 (and the plain BPE it is compared with): digits apart, the regex, then bytes."""
    return Sequence([Digits(individual_digits=False), Split(STAGE1_PATTERN, is_regex=True, behavior="isolated"),
                     ByteLevel(use_regex=False)])


def raw_stage2() -> PreTokenizer:
    """Stage 2's cuts without the byte mapping: lines, numbers apart and in groups of three."""
    return Sequence([Split("\n", behavior="merged_with_previous"), Digits(individual_digits=False),
                     Split(DIGIT_GROUPS, is_regex=True, behavior="isolated")])


def stage2_pre_tokenizer() -> PreTokenizer:
    """Stage 2, the SuperBPE tokenizer's own: :func:`raw_stage2`, then bytes."""
    return Sequence([*raw_stage2().pre_tokenizers, ByteLevel(use_regex=False)])


_NUMERIC = regex.compile(r"\p{N}")
_WORDS = regex.compile(WORDS)
_RUNS = regex.compile(r"\p{N}+|[^\p{N}\n]*\n|[^\p{N}\n]+")
_GROUPS = Split(DIGIT_GROUPS, is_regex=True, behavior="isolated")


def stage1_pieces(piece: str) -> list[str]:
    """Stage 1's pieces of one stage-2 piece (raw text, no byte mapping).

    A stage-2 piece is a number (a group of digits) or a run without any, so stage 1's own digit
    split has nothing left to do there: a number stays whole (only the digit groups' empty matches
    could cut it) and a run without numbers is cut by the regex's other classes, which cover every
    character of it (so ``findall`` gives exactly what tokenizers' "isolated" Split gives).

    >>> stage1_pieces("It cost "), stage1_pieces("345")
    (['It', ' cost', ' '], ['345'])
    """
    if _NUMERIC.match(piece):
        return [piece]
    return _WORDS.findall(piece)


class RawStage2(PreTokenizer):
    """:func:`raw_stage2`'s pieces, found by one regex (what counting the corpus uses).

    >>> RawStage2().words("In 2024:\\nok")
    ['In ', '2', '024', ':\\n', 'ok']
    """

    type_name = "SuperBpeStage2Raw"

    def words(self, text: str) -> list[str]:
        out: list[str] = []
        for run in _RUNS.findall(text):
            if not _NUMERIC.match(run):
                out.append(run)
            elif run.isascii():  # 0-9 only: groups of three from the right
                head = len(run) % 3
                if head:
                    out.append(run[:head])
                out.extend(run[k:k + 3] for k in range(head, len(run), 3))
            else:  # other numerals (½, ², Ⅻ): the digit-group regex itself
                out.extend(_GROUPS.words(run))
        return out

    def split(self, text: str) -> list[Any]:
        return raw_stage2().split(text)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type_name}


_CROSSING = re.compile(r"\S\s")


def crosses_space(text: str) -> bool:
    """Whether a token's text bridges whitespace: something other than whitespace, then whitespace
    (a *superword*). A leading space alone does not count, nor a token of spaces only.

    >>> crosses_space(" of the"), crosses_space(", and"), crosses_space(" the"), crosses_space("  ")
    (True, True, False, False)
    """
    return _CROSSING.search(text) is not None
