"""Byte counts for people, in decimal units as file managers show them: one spelling for the whole
project (the corpus limits' messages and every page's sizes).

>>> format_bytes(512), format_bytes(2_500), format_bytes(2_500_000), format_bytes(3_200_000_000)
('512 bytes', '2.5 kB', '2.5 MB', '3.2 GB')
"""

from __future__ import annotations

__all__ = ["format_bytes"]


def format_bytes(n: int) -> str:
    """``n`` bytes in bytes, kB, MB or GB, one decimal."""
    for unit, size in (("GB", 1_000_000_000), ("MB", 1_000_000), ("kB", 1_000)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"
