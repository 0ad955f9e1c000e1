"""Which rule makes two tokenizers part at a place of a text: each boundary that only some of them
draw is classed by the characters around it (between digits, at a space, at an apostrophe, beside a
character outside ASCII, or inside letters, where only each vocabulary's merges decide), and each
class names the rules of :func:`tokenizer_core.analysis.rules.split_rules` that govern it.

>>> from tokenizer_core.analysis.compare import Segment
>>> left = [Segment(0, 3, "123", 1), Segment(3, 5, "45", 2)]
>>> right = [Segment(0, 2, "12", 3), Segment(2, 5, "345", 4)]
>>> [(p.place, p.positions, p.example) for p in parting_places("12345", [left, right])]
[('digits', (2, 3), '12|345')]
>>> rules_for("digits", ["digits in groups of up to 3, from the left", "case kept (Hello and hello are different tokens)"])
['digits in groups of up to 3, from the left']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tokenizer_core.analysis.compare import Segment, boundaries, disagreements
from tokenizer_core.analysis.rules import DIGITS

#: The places, in the order they are shown, and the rules (from split_rules) that govern each.
PLACE_RULES: dict[str, tuple[str, ...]] = {
    "digits": tuple(DIGITS.values()),
    "spaces": ("a word keeps its leading space", "spaces are separate from words"),
    "contractions": ("contractions split off ('s, 't, 're)",),
    "characters outside ASCII": ("a character it lacks becomes the unknown token",
                                 "a character it lacks falls back to its bytes (<0x..> tokens)",
                                 "any character: text is read as bytes",
                                 "even a private-use character is one token of its vocabulary"),
    "inside words": (),  # no rule: each vocabulary's merges
}
APOSTROPHES = "'’"


@dataclass(frozen=True)
class PartingPlace:
    """A kind of place where the rows draw different boundaries: the positions and one example."""

    place: str
    positions: tuple[int, ...]
    example: str  # the text around the first position, a bar at the boundary


def place_of(text: str, pos: int) -> str:
    """The kind of place a boundary at character ``pos`` of ``text`` is."""
    a = text[pos - 1] if pos > 0 else ""
    b = text[pos] if pos < len(text) else ""
    if a.isdigit() and b.isdigit():
        return "digits"
    if a in APOSTROPHES or b in APOSTROPHES:
        return "contractions"
    if a.isspace() or b.isspace():
        return "spaces"
    if any(c and ord(c) > 127 for c in (a, b)):
        return "characters outside ASCII"
    return "inside words"


def _example(text: str, pos: int, *, width: int = 8) -> str:
    return f"{text[max(0, pos - width):pos]}|{text[pos:pos + width]}"


def parting_places(text: str, all_segments: Sequence[Sequence[Segment]]) -> list[PartingPlace]:
    """The kinds of place where the rows' boundaries differ, in :data:`PLACE_RULES` order. Rows that cut
    at every character (character and byte baselines) are left out, as the aligned view leaves them
    out: against them every position would differ."""
    everywhere = set(range(len(text) + 1))
    coarse = [list(s) for s in all_segments if not boundaries(s) >= everywhere]
    found: dict[str, list[int]] = {}
    for pos in sorted(p for p in disagreements(coarse) if 0 < p < len(text)):
        found.setdefault(place_of(text, pos), []).append(pos)
    return [PartingPlace(place, tuple(found[place]), _example(text, found[place][0]))
            for place in PLACE_RULES if place in found]


def rules_for(place: str, rules: Sequence[str]) -> list[str]:
    """The rules among ``rules`` (one tokenizer's) that govern ``place``."""
    return [r for r in rules if r in PLACE_RULES.get(place, ())]
