"""Applying one merge to a sequence of symbols, the step every merge-based method repeats.

>>> merge_pair(["h", "u", "g", "u", "g"], "u", "g", "ug")
['h', 'ug', 'ug']
"""

from __future__ import annotations

from collections.abc import Sequence


def merge_pair(symbols: Sequence[str], left: str, right: str, merged: str) -> list[str]:
    """Replace every ``left`` directly followed by ``right`` with ``merged``, left to right
    (so ``a a a`` with the pair ``a a`` gives ``aa a``)."""
    out: list[str] = []
    i, n = 0, len(symbols)
    while i < n:
        if i + 1 < n and symbols[i] == left and symbols[i + 1] == right:
            out.append(merged)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out
