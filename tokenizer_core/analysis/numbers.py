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

import calendar
import datetime
from collections import Counter
from dataclasses import dataclass
from typing import Any, Optional

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


def grouping_rule(tok: Any) -> str:
    """The rule ``tok``'s splits of long digit runs follow (:data:`NumberSplits.grouping`'s values but
    "unknown"), read from four numbers alone.

    >>> from tokenizer_core.io.references import load_reference
    >>> grouping_rule(load_reference("cl100k_base")), grouping_rule(load_reference("qwen"))
    ('from the left', 'single digits')
    """
    probes = {d: "4725386"[:d] for d in range(4, 8)}
    rows = _encoded(tok, list(probes.values()))[1]
    return _grouping({d: "+".join(str(b - a) for a, b in row if b > a) for d, row in zip(probes, rows)})


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
    grouping = "unknown" if unknown * 2 > len(texts) else grouping_rule(tok)
    return NumberSplits(start, pieces, shapes, grouping, unknown)


#: The number sets a grid can show: integers from a start, the decimals 0.00-9.99, the days of a year.
GRID_KINDS = ("integers", "decimals", "dates")
MAX_START = 10**15  # integers start below this (a 16-digit number, still exact as a float in JSON)


@dataclass(frozen=True)
class NumberGrid:
    """Texts laid out as a heatmap: ``cells[r][c]`` is the text at row ``r``, column ``c`` (None: no
    such number, as 31 February), with the labels of the rows and columns."""

    kind: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[tuple[Optional[str], ...], ...]

    def texts(self) -> list[str]:
        return [t for row in self.cells for t in row if t is not None]


def number_grid(kind: str, *, start: int = 0, year: int = 2024) -> NumberGrid:
    """The texts of one number set, as rows and columns a reader can scan.

    >>> g = number_grid("dates", year=2023)
    >>> g.cells[1][27], g.cells[1][28], len(g.texts())
    ('2023-02-28', None, 365)
    >>> number_grid("decimals").cells[3][14]
    '3.14'
    >>> number_grid("integers", start=1_000_000).cells[0][:2]
    ('1000000', '1000001')
    """
    if kind == "integers":
        if not 0 <= start < MAX_START:
            raise ValueError(f"integers start between 0 and {MAX_START:,}, not {start}")
        cells = tuple(tuple(str(start + r * 100 + c) for c in range(100)) for r in range(100))
        return NumberGrid(kind, tuple(f"{start + r * 100:,}" for r in range(100)),
                          tuple(f"+{c}" for c in range(100)), cells)
    if kind == "decimals":
        cells = tuple(tuple(f"{r}.{c:02d}" for c in range(100)) for r in range(10))
        return NumberGrid(kind, tuple(f"{r}." for r in range(10)), tuple(f".{c:02d}" for c in range(100)), cells)
    if kind == "dates":
        if not 1 <= year <= 9999:
            raise ValueError(f"a year from 1 to 9999, not {year}")
        cells = tuple(tuple(_date(year, m, d) for d in range(1, 32)) for m in range(1, 13))
        return NumberGrid(kind, tuple(calendar.month_abbr[m] for m in range(1, 13)),
                          tuple(str(d) for d in range(1, 32)), cells)
    raise ValueError(f"a number set is one of {', '.join(GRID_KINDS)}, not {kind!r}")


def _date(year: int, month: int, day: int) -> Optional[str]:
    try:
        return datetime.date(year, month, day).isoformat()
    except ValueError:
        return None


def grid_pieces(tok: Any, grid: NumberGrid) -> tuple[tuple[Optional[list[str]], ...], ...]:
    """Each cell's text as ``tok`` splits it alone (no special tokens; a token covering no character,
    as SentencePiece's word start, is kept as ""), None where the grid has no number."""
    texts = grid.texts()
    _, offsets = _encoded(tok, texts)
    found = iter([t[a:b] for a, b in row] for t, row in zip(texts, offsets))
    return tuple(tuple(None if cell is None else next(found) for cell in row) for row in grid.cells)
