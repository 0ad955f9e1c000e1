"""Tokens of several tokenizers lined up on the characters they cover, as escaped HTML.

Each tokenizer is a row of one CSS grid whose columns are the characters of the text, so a token
spanning characters 3-7 sits under those characters in every row. Long texts are cut into blocks
at positions where every tokenizer has a boundary (so no token is split), each block a grid of its
own, and blocks wrap down the page. Boundaries that only some tokenizers have are marked with a red
edge: that is where they disagree.

>>> from tokenizer_core.analysis.compare import Segment
>>> rows = [("a", [Segment(0, 2, "ab", 1)]), ("b", [Segment(0, 1, "a", 2), Segment(1, 2, "b", 3)])]
>>> html = aligned_html("ab", rows)
>>> html.count('class="tp-chip'), "tp-disagree" in html  # b is character-level: nothing to mark
(3, False)
>>> rows.append(("c", [Segment(0, 2, "ab", 4), Segment(2, 3, "c", 5)]))
>>> "tp-disagree" in aligned_html("abc", [rows[0], ("d", [Segment(0, 1, "a", 6), Segment(1, 3, "bc", 7)])])
True
>>> block_cuts(10, [{0, 4, 10}], width=3)
[0, 4, 10]
"""

from __future__ import annotations

import html as html_lib
from collections.abc import Callable, Sequence
from typing import Optional

from tokenizer_core.analysis.compare import Segment, boundaries, disagreements
from ui.widgets.tokens import Scheme, bytes_display, shown_text, token_colour, visible_whitespace

#: Characters of the text shown aligned; the rest is summarized (a grid per character gets heavy).
MAX_ALIGNED_CHARS = 3000
#: A block is cut at the first common boundary after this many characters...
BLOCK_CHARS = 24
#: ...or, when the tokenizers share none, forced after this many (a token may then straddle blocks).
MAX_BLOCK_CHARS = 60
_DISAGREE = "#d9480f"
Row = tuple[str, list[Segment]]


def block_cuts(length: int, boundary_sets: Sequence[set[int]], *, width: int = BLOCK_CHARS,
               hard: int = MAX_BLOCK_CHARS) -> list[int]:
    """Cut positions 0 < ... < ``length``: after at least ``width`` characters, at the first position
    every set contains (or after ``hard`` characters when none comes)."""
    common = set.intersection(*boundary_sets) if boundary_sets else set(range(length + 1))
    cuts, last = [0], 0
    for pos in range(1, length):
        if pos - last >= hard or (pos - last >= width and pos in common):
            cuts.append(pos)
            last = pos
    cuts.append(length)
    return sorted(set(cuts))


def _title(seg: Segment, text: str, describe: Optional[Callable[[str], Optional[bytes]]]) -> str:
    data = describe(seg.token) if describe is not None else None
    if data is None:
        data = text[seg.start:seg.end].encode("utf-8", "surrogatepass")
    hexed = " ".join(f"{b:02X}" for b in data[:24]) + (" …" if len(data) > 24 else "")
    return (f"id {seg.id} · {seg.token[:80]!r} · chars {seg.start}–{seg.end} · "
            f"bytes {hexed} ({bytes_display(data)[:40]})")


def _cell(group: list[Segment], text: str, *, row: int, col: int, span: int, left: bool, right: bool,
          scheme: Scheme, translate: bool, describe: Optional[Callable[[str], Optional[bytes]]]) -> str:
    """One grid cell: the tokens sharing one span (the byte tokens of one character share it)."""
    shown = "".join(shown_text(s.token, scheme=scheme, translate=translate) for s in group) or "∅"
    title = "\n".join(_title(s, text, describe) for s in group)
    edges = (f"border-left:3px solid {_DISAGREE};" if left else "") + (
        f"border-right:3px solid {_DISAGREE};" if right else "")
    cls = "tp-chip tp-disagree" if left or right else "tp-chip"
    return (f'<span class="{cls}" title="{html_lib.escape(title, quote=True)}" style="grid-row:{row};grid-column:{col} / span {span};'
            f'background:{token_colour(group[0].id)};color:#111827;{edges}border-radius:4px;padding:1px 3px;margin:1px;'
            f'font-family:ui-monospace,monospace;white-space:pre;overflow:hidden;text-overflow:ellipsis;'
            f'unicode-bidi:isolate">{html_lib.escape(shown)}</span>')


def _grouped(segs: list[Segment]) -> list[list[Segment]]:
    out: list[list[Segment]] = []
    for s in segs:
        if out and (out[-1][0].start, out[-1][0].end) == (s.start, s.end):
            out[-1].append(s)
        else:
            out.append([s])
    return out


def aligned_html(text: str, rows: Sequence[Row], *, schemes: Optional[Sequence[Scheme]] = None,
                 translate: bool = True, describers: Optional[Sequence[Optional[Callable]]] = None,
                 limit: int = MAX_ALIGNED_CHARS) -> str:
    """The aligned view of ``text`` (its first ``limit`` characters) for ``rows`` of
    ``(name, segments)``; token text, names and titles are all escaped."""
    text = text[:limit]
    rows = [(name, [s for s in segs if s.start < len(text)]) for name, segs in rows]
    schemes = list(schemes or ["plain"] * len(rows))
    describers = list(describers or [None] * len(rows))
    # Character- and byte-level rows draw a boundary at every character, so against them every
    # position would "disagree": disagreements are counted among the other rows.
    coarse = [segs for _, segs in rows if not _every_position(segs, len(text))]
    split = disagreements(coarse)
    cuts = block_cuts(len(text), [boundaries(segs) | {0, len(text)} for _, segs in rows])
    blocks = []
    for lo, hi in zip(cuts, cuts[1:]):
        cells = [_ruler(text, lo, hi, split)]
        for r, (name, segs) in enumerate(rows):
            cells.append(f'<span class="tp-rowname" style="grid-column:1;grid-row:{r + 2};font-size:0.8em;'
                         f'opacity:0.75;padding-right:6px;white-space:nowrap">{html_lib.escape(name[:28])}</span>')
            starts = {s.start for s in segs}
            for group in _grouped([s for s in segs if lo <= s.start < hi]):
                s = group[0]
                # A zero-width token takes the column of the character it stands before.
                end = min(max(s.end, s.start + 1), hi)
                cells.append(_cell(group, text, row=r + 2, col=s.start - lo + 2, span=end - s.start,
                                   left=s.start in split and s.start > 0, right=s.end in split and s.end not in starts and s.end < len(text),
                                   scheme=schemes[r], translate=translate, describe=describers[r]))
        blocks.append(f'<div class="tp-align-block" style="display:grid;grid-template-columns:max-content '
                      f'repeat({hi - lo}, max-content);align-items:stretch;margin-bottom:12px;'
                      f'max-width:100%;overflow-x:auto">{"".join(cells)}</div>')
    return f'<div class="tp-align" style="display:flex;flex-wrap:wrap;column-gap:18px">{"".join(blocks)}</div>'


def _every_position(segs: Sequence[Segment], length: int) -> bool:
    return boundaries(segs) >= set(range(length + 1))


def _ruler(text: str, lo: int, hi: int, split: set[int]) -> str:
    """The text itself on top, one character per column, with disagreement positions marked."""
    out = ['<span style="grid-column:1;grid-row:1;font-size:0.8em;opacity:0.75;padding-right:6px">text</span>']
    for pos in range(lo, hi):
        mark = f"border-left:2px solid {_DISAGREE};" if pos in split and pos > 0 else ""
        out.append(f'<span class="tp-ruler" style="grid-column:{pos - lo + 2};grid-row:1;opacity:0.75;'
                   f'font-family:ui-monospace,monospace;text-align:center;{mark}">'
                   f'{html_lib.escape(visible_whitespace(text[pos]))}</span>')
    return "".join(out)
