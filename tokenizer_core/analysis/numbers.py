"""How a tokenizer splits numbers: each integer of a range as its pieces, the shape of the split
("3+1": three digits then one), and whether long numbers are grouped from the left or the right.

GPT-2 learned whatever digit strings its corpus had (1995 is one token, 1996 maybe two); cl100k_base
and o200k split digits into groups of up to three *from the left* ("1234" is "123" + "4", so the
thousands do not line up); Llama 1/2, Qwen and Mistral's Tekken split every digit. A model adding
"1234 + 5678" sees groups that do not align with place value unless the groups run from the right.

>>> from tokenizer_core.io.references import load_reference
>>> s = number_splits(load_reference("cl100k_base"), start=1230, stop=1236)
>>> s.pieces[4], s.shapes[4], s.grouping
(['123', '4'], '3+1', 'from the left')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from tokenizer_core.analysis.compare import unk_id

MAX_NUMBERS = 100_000


@dataclass(frozen=True)
class NumberSplits:
    start: int
    pieces: tuple[list[str], ...]  # the pieces of start, start + 1, ... ("" for a token covering no digit)
    shapes: tuple[str, ...]  # "3+1", "1+1+1+1", "4"
    grouping: str  # "from the left", "from the right", "single digits", "learned (no rule)", "unknown"
    unknown: int = 0  # numbers that hold an unknown token

    @property
    def counts(self) -> list[int]:
        return [len(p) for p in self.pieces]

    def shape_share(self, digits: int) -> list[tuple[str, int]]:
        """The shapes of the numbers with ``digits`` digits, most common first."""
        found = Counter(s for s, n in zip(self.shapes, range(self.start, self.start + len(self.shapes)))
                        if len(str(n)) == digits)
        return found.most_common()


def _encoded(tok: Any, texts: list[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
    """Each text's ids and token offsets, encoded as one batch (no special tokens)."""
    batch = tok.encode_batch(texts, add_special_tokens=False)
    return ([[int(i) for i in row] for row in batch["input_ids"]],
            [[(int(a), int(b)) for a, b in row] for row in batch["offsets"]])


def _grouping(shapes: dict[int, str]) -> str:
    """The rule the shapes of long numbers follow (by numbers of 4 to 7 digits made of one repeated
    pattern: see :func:`number_splits`)."""
    if not shapes:
        return "learned (no rule)"
    if all(set(s.split("+")) == {"1"} for s in shapes.values()):
        return "single digits"
    left = all(s == "+".join(["3"] * (d // 3) + ([str(d % 3)] if d % 3 else [])) for d, s in shapes.items())
    right = all(s == "+".join(([str(d % 3)] if d % 3 else []) + ["3"] * (d // 3)) for d, s in shapes.items())
    if left and not right:
        return "from the left"
    if right and not left:
        return "from the right"
    return "learned (no rule)"


def number_splits(tok: Any, *, start: int = 0, stop: int = 10_000) -> NumberSplits:
    """Encode every integer in ``range(start, stop)`` alone (no special tokens) and read its pieces."""
    if stop <= start or stop - start > MAX_NUMBERS or start < 0:
        raise ValueError(f"a range of 1 to {MAX_NUMBERS:,} non-negative integers, not {start}..{stop}")
    texts = [str(n) for n in range(start, stop)]
    ids, offsets = _encoded(tok, texts)
    pieces = tuple([t[a:b] for a, b in row] for t, row in zip(texts, offsets))
    unk = unk_id(tok)
    unknown = sum(1 for row in ids if unk is not None and unk in row)
    # a SentencePiece model's word-start token ("▁") covers no digit: it counts, but has no place in a shape
    shapes = tuple("+".join(str(len(p)) for p in ps if p) for ps in pieces)
    # numbers nobody's corpus has as a word: a digit run of d digits, for d = 4..7
    probes = {d: "4725386"[:d] for d in range(4, 8)}
    probe_shapes = {d: "+".join(str(b - a) for a, b in row if b > a) for d, row in zip(probes, _encoded(tok, list(probes.values()))[1])}
    grouping = "unknown" if unknown * 2 > len(texts) else _grouping(probe_shapes)
    return NumberSplits(start, pieces, shapes, grouping, unknown)
