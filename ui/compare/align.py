"""Tokens of several tokenizers lined up on the characters they cover, as escaped HTML.

Each tokenizer is a row of one CSS grid whose columns are the characters of the text, so a token
spanning characters 3-7 sits under those characters in every row. Tokens whose spans overlap (a
byte-level token ending inside a character, such as GPT-2's ``·<0xC3>`` and ``<0xBC>`` for " ü")
share one cell, side by side, each chip whole however many bytes it holds; the cut between them is
dashed, and the character it falls inside is underlined with dashes in the text row. Long texts are
cut into blocks about :data:`BLOCK_WIDTH` characters wide at positions where every tokenizer has a
boundary (so no token is split), each block a grid of its own, and blocks wrap down the page.
Boundaries that only some tokenizers have are marked with a thick dark-red edge (and a line in the
text row): that is where they disagree.

>>> from tokenizer_core.analysis.compare import Segment
>>> rows = [("a", [Segment(0, 2, "ab", 1)]), ("b", [Segment(0, 1, "a", 2), Segment(1, 2, "b", 3)])]
>>> html = aligned_html("ab", rows)
>>> html.count('class="tp-chip'), "tp-disagree" in html  # b is character-level: nothing to mark
(3, False)
>>> "tp-disagree" in aligned_html("abc", [rows[0], ("d", [Segment(0, 1, "a", 6), Segment(1, 3, "bc", 7)])])
True
>>> block_cuts([1.0] * 10, [{0, 4, 10}], width=6)
[0, 4, 10]
>>> block_cuts([1.0] * 10, [{0, 8, 10}], width=6), block_cuts([1.0] * 10, [{0, 10}], width=3, hard=4)
([0, 8, 10], [0, 4, 8, 10])
"""

from __future__ import annotations

import html as html_lib
import unicodedata
from collections.abc import Callable, Sequence
from typing import Optional

from tokenizer_core.analysis.compare import Segment
from ui.widgets.tokens import (
    CHIP_CSS,
    CHIP_TEXT,
    EDGE_COLOUR,
    Scheme,
    bytes_display,
    row_colours,
    shown_text,
    visible_whitespace,
)

#: Characters of the text shown aligned; the rest is summarized (a grid per character gets heavy).
MAX_ALIGNED_CHARS = 3000
#: A block is cut at the last common boundary before it grows wider than this many monospace
#: characters (chips' padding included): with the row names it fits a 1024-pixel-wide window.
BLOCK_WIDTH = 40.0
#: Estimated width of a chip's padding, border and gap, in monospace characters.
_CHIP_PAD = 1.1
Row = tuple[str, list[Segment]]
Describe = Optional[Callable[[str], Optional[bytes]]]


def block_cuts(widths: Sequence[float], boundary_sets: Sequence[set[int]], *, width: float = BLOCK_WIDTH,
               hard: float = 3 * BLOCK_WIDTH) -> list[int]:
    """Cut positions 0 < ... < ``len(widths)``: each block as wide as it can be without passing
    ``width`` (``widths[i]`` is column i's), cut at a position every set contains (so no token is
    split); a block that passes ``width`` before any such position ends at the next one, or where it
    passes ``hard`` when none comes (a token may then straddle two blocks)."""
    length = len(widths)
    common = set.intersection(*boundary_sets) if boundary_sets else set(range(length + 1))
    cuts, last, used, candidate, overdue = [0], 0, 0.0, None, False
    for pos in range(length):
        cut = None
        if pos > last and pos in common:
            candidate = pos
            if overdue:
                cut = pos
        if cut is None and pos > last and used + widths[pos] > width and candidate is not None:
            cut = candidate
        elif cut is None and pos > last and used + widths[pos] > width:
            overdue = True
            if used + widths[pos] > hard:
                cut = pos
        if cut is not None:
            cuts.append(cut)
            last, candidate, overdue = cut, None, False
            used = sum(widths[cut:pos])
        used += widths[pos]
    cuts.append(length)
    return sorted(set(cuts))


def clusters(segs: Sequence[Segment]) -> list[list[Segment]]:
    """Segments grouped where their spans overlap: the tokens that share characters (the byte
    tokens of one character, a token ending inside a character and the next one) share a cell. A
    zero-width token joins the token it stands before.

    >>> [[s.token for s in c] for c in clusters([Segment(0, 2, "ĠÃ", 1), Segment(1, 2, "¼", 2), Segment(2, 3, "b", 3)])]
    [['ĠÃ', '¼'], ['b']]
    """
    out: list[list[Segment]] = []
    end = -1
    for s in segs:
        own_end = max(s.end, s.start + 1)
        if out and s.start < end:
            out[-1].append(s)
            end = max(end, own_end)
        else:
            out.append([s])
            end = own_end
    return out


def _span(group: Sequence[Segment]) -> tuple[int, int]:
    return group[0].start, max(max(s.end, s.start + 1) for s in group)


def _token_bytes(seg: Segment, text: str, describe: Describe) -> bytes:
    data = describe(seg.token) if describe is not None else None
    return data if data is not None else text[seg.start:seg.end].encode("utf-8", "surrogatepass")


def _title(seg: Segment, data: bytes, extra: str = "") -> str:
    hexed = " ".join(f"{b:02X}" for b in data[:24]) + (" …" if len(data) > 24 else "")
    return (f"id {seg.id} · {seg.token[:80]!r} · chars {seg.start}–{seg.end} · "
            f"bytes {hexed} ({bytes_display(data)[:40]})" + extra)


def _cuts_inside(group: Sequence[Segment], text: str, datas: Sequence[bytes]) -> list[Optional[tuple[int, int, int]]]:
    """For each chip after the first of a cell: ``(character, byte, of)`` when the cut before it
    falls inside a character (its ``byte``-th of ``of`` bytes starts the chip), else None."""
    lo, hi = _span(group)
    chars = text[lo:hi]
    sizes = [len(c.encode("utf-8", "surrogatepass")) for c in chars]
    if sum(map(len, datas)) != sum(sizes):  # a normalizer changed the bytes: place no cut
        return [None] * (len(group) - 1)
    out: list[Optional[tuple[int, int, int]]] = []
    offset = 0
    for data in datas[:-1]:
        offset += len(data)
        pos, start = 0, 0
        while pos < len(sizes) and start + sizes[pos] <= offset:
            start += sizes[pos]
            pos += 1
        out.append((lo + pos, offset - start + 1, sizes[pos]) if start < offset and pos < len(sizes) else None)
    return out


def _cell(group: list[Segment], colours: Sequence[str], text: str, *, row: int, col: int, span: int, left: bool,
          right: bool, scheme: Scheme, translate: bool, describe: Describe) -> tuple[str, set[int]]:
    """One grid cell: the tokens sharing a span, one whole chip each; and the characters the cuts
    between them fall inside."""
    datas = [_token_bytes(s, text, describe) for s in group]
    inside = _cuts_inside(group, text, datas) if len(group) > 1 else []
    chips = []
    for i, (s, data, colour) in enumerate(zip(group, datas, colours)):
        cut = inside[i - 1] if i else None
        edge = ""
        extra = ""
        if i and cut is not None:
            pos, nth, of = cut
            edge = f"border-left:2px dashed {CHIP_TEXT};"
            extra = f" · starts inside {visible_whitespace(text[pos])!r} (at its byte {nth} of {of})"
        elif i:
            edge = "border-left:1px solid rgba(17,24,39,0.45);"
        if i == 0 and left:
            edge += f"border-left:4px solid {EDGE_COLOUR};"
        if i == len(group) - 1 and right:
            edge += f"border-right:4px solid {EDGE_COLOUR};"
        tip = html_lib.escape(_title(s, data, extra), quote=True)
        shown = shown_text(s.token, scheme=scheme, translate=translate) or "∅"
        chips.append(f'<span class="tp-chip{" tp-bytecut" if i and cut is not None else ""}" tabindex="0" '
                     f'title="{tip}" data-tip="{tip}" style="flex:1 0 auto;background:{colour};color:{CHIP_TEXT};'
                     f'{edge}padding:1px 3px;font-family:ui-monospace,monospace;white-space:pre;'
                     f'unicode-bidi:isolate;text-align:center">{html_lib.escape(shown)}</span>')
    cls = "tp-cell tp-disagree" if left or right else "tp-cell"
    cell = (f'<span class="{cls}" style="grid-row:{row};grid-column:{col} / span {span};display:flex;margin:1px;'
            f'border:1px solid rgba(17,24,39,0.45);border-radius:4px;overflow:visible">{"".join(chips)}</span>')
    return cell, {c[0] for c in inside if c is not None}


def _char_width(c: str) -> float:
    return 2.0 if unicodedata.east_asian_width(c) in "WF" else 1.0


def _shown_width(s: str) -> float:
    return sum(map(_char_width, s))


def _column_widths(text: str, grouped: Sequence[list[list[Segment]]], schemes: Sequence[Scheme],
                   translate: bool) -> list[float]:
    """Estimated width of each character's column, in monospace characters: the widest share of a
    cell over that column, among the rows and the text itself."""
    widths = [_shown_width(visible_whitespace(c)) + 0.4 for c in text]
    for groups, scheme in zip(grouped, schemes):
        for group in groups:
            lo, hi = _span(group)
            hi = min(hi, len(text))
            if hi <= lo:
                continue
            need = sum(_shown_width(shown_text(s.token, scheme=scheme, translate=translate) or "∅") + _CHIP_PAD
                       for s in group)
            for pos in range(lo, hi):
                widths[pos] = max(widths[pos], need / (hi - lo))
    return widths


def aligned_html(text: str, rows: Sequence[Row], *, schemes: Optional[Sequence[Scheme]] = None,
                 translate: bool = True, describers: Optional[Sequence[Describe]] = None,
                 limit: int = MAX_ALIGNED_CHARS, width: float = BLOCK_WIDTH) -> str:
    """The aligned view of ``text`` (its first ``limit`` characters) for ``rows`` of
    ``(name, segments)``; token text, names and titles are all escaped."""
    text = text[:limit]
    rows = [(name, [s for s in segs if s.start < len(text)]) for name, segs in rows]
    schemes = list(schemes or ["plain"] * len(rows))
    describers = list(describers or [None] * len(rows))
    grouped = [clusters(segs) for _, segs in rows]
    colours = [row_colours(s.id for s in segs) for _, segs in rows]
    edges = [_edges(groups, len(text)) for groups in grouped]
    # Character- and byte-level rows draw a boundary at every character, so against them every
    # position would "disagree": disagreements are counted among the other rows.
    coarse = [e for e in edges if not e >= set(range(len(text) + 1))]
    split = set.union(*coarse) - set.intersection(*coarse) if coarse else set()
    cuts = block_cuts(_column_widths(text, grouped, schemes, translate), edges, width=width)
    blocks = []
    for lo, hi in zip(cuts, cuts[1:]):
        cells, cut_chars = [], {}
        for r, (name, _) in enumerate(rows):
            cells.append(f'<span class="tp-rowname" title="{html_lib.escape(name, quote=True)}" style="grid-column:1;'
                         f'grid-row:{r + 2};font-size:0.8em;opacity:0.8;padding-right:6px;max-width:9em;'
                         f'overflow-wrap:anywhere;line-height:1.2;align-self:center">{html_lib.escape(name)}</span>')
            first = 0
            for group in grouped[r]:
                start, stop = _span(group)
                first += len(group)
                if not lo <= start < hi:
                    continue
                cell, inside = _cell(group, colours[r][first - len(group):first], text, row=r + 2,
                                     col=start - lo + 2, span=min(stop, hi) - start,
                                     left=start in split and start > 0, right=stop in split and stop < len(text),
                                     scheme=schemes[r], translate=translate, describe=describers[r])
                cells.append(cell)
                for pos in inside:
                    cut_chars.setdefault(pos, []).append(name)
        cells.insert(0, _ruler(text, lo, hi, split, cut_chars))
        blocks.append(f'<div class="tp-align-block" style="display:grid;grid-template-columns:max-content '
                      f'repeat({hi - lo}, max-content);align-items:stretch;margin-bottom:12px;'
                      f'max-width:100%">{"".join(cells)}</div>')
    return (f'{CHIP_CSS}<div class="tp-align" style="display:flex;flex-wrap:wrap;column-gap:18px">'
            f'{"".join(blocks)}</div>')


def _edges(groups: Sequence[list[Segment]], length: int) -> set[int]:
    """Positions where a row's cells start or end (a cut inside a character is not one), with 0 and
    the end."""
    out = {0, length}
    for group in groups:
        lo, hi = _span(group)
        out.add(lo)
        out.add(min(hi, length))
    return out


def _ruler(text: str, lo: int, hi: int, split: set[int], cut_chars: dict[int, list[str]]) -> str:
    """The text itself on top, one character per column: disagreement positions get a line before
    them, characters that a token boundary cuts inside are underlined with dashes."""
    out = ['<span style="grid-column:1;grid-row:1;font-size:0.8em;opacity:0.8;padding-right:6px">text</span>']
    for pos in range(lo, hi):
        style = "border-left:3px solid currentColor;" if pos in split and pos > 0 else ""
        title = ""
        cls = "tp-ruler"
        if pos in cut_chars:
            cls += " tp-cutchar"
            style += "border-bottom:2px dashed currentColor;"
            data = text[pos].encode("utf-8", "surrogatepass")
            title = (f' title="{html_lib.escape(repr(text[pos]), quote=True)} is bytes '
                     f'{" ".join(f"{b:02X}" for b in data)}; cut inside by '
                     f'{html_lib.escape(", ".join(cut_chars[pos]), quote=True)}"')
        out.append(f'<span class="{cls}"{title} style="grid-column:{pos - lo + 2};grid-row:1;'
                   f'font-family:ui-monospace,monospace;text-align:center;{style}">'
                   f'{html_lib.escape(visible_whitespace(text[pos]))}</span>')
    return "".join(out)
