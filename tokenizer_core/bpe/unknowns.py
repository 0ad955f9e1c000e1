"""The first symbols of a word holding characters outside the vocabulary, exactly as ``tokenizers``' BPE makes them.

Unknown characters become byte tokens (``byte_fallback``, when all of a character's
``<0xNN>`` tokens exist), the unknown token (runs fused with ``fuse_unk``) or nothing (no
unknown token). ``tokenizers`` lays the symbols out one after another in bytes, which has
visible consequences this module keeps: a dropped character takes no room (what follows
moves left), and an unknown token waits until a known character comes, so byte tokens in
between go before it. Offsets are those byte places widened to the characters they fall in.

>>> vocab = {"<unk>": 0, "a": 1, "<0xC3>": 2, "<0xA9>": 3}
>>> initial_with_unknowns("a中é", vocab=vocab, unk_token="<unk>", fuse_unk=True, byte_fallback=True)
(['a', '<0xC3>', '<0xA9>', '<unk>'], [0, 1, 1, 1], [1, 2, 2, 3])
>>> initial_with_unknowns("axa", vocab=vocab, unk_token=None, fuse_unk=False, byte_fallback=False)
(['a', 'a'], [0, 1], [1, 2])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

BYTE_TOKENS = tuple(f"<0x{b:02X}>" for b in range(256))


def initial_with_unknowns(
    piece: str,
    *,
    vocab: Mapping[str, int],
    unk_token: Optional[str],
    fuse_unk: bool,
    byte_fallback: bool,
    prefix: Optional[str] = None,
    suffix: Optional[str] = None,
) -> tuple[list[str], list[int], list[int]]:
    """``(symbols, starts, ends)`` of ``piece`` (character offsets), ``prefix``/``suffix`` decorating
    every character but the first / the last character."""
    syms: list[str] = []
    spans: list[tuple[int, int]] = []  # byte spans
    pos = 0
    pending = 0  # bytes of an unknown token not placed yet

    def place(sym: str, size: int) -> None:
        nonlocal pos
        syms.append(sym)
        spans.append((pos, pos + size))
        pos += size

    char_of: list[int] = []  # byte index -> character index
    last = len(piece) - 1
    for k, ch in enumerate(piece):
        raw = ch.encode("utf-8")
        char_of.extend([k] * len(raw))
        s = (prefix + ch if prefix is not None and k > 0 else ch) + (suffix if suffix is not None and k == last else "")
        if s in vocab:
            if pending:
                place(unk_token, pending)  # type: ignore[arg-type]
                pending = 0
            place(s, len(raw))
            continue
        if byte_fallback:
            # The bytes of the decorated symbol, as tokenizers does ("##中" needs <0x23> too).
            byte_toks = [BYTE_TOKENS[b] for b in s.encode("utf-8")]
            if all(bt in vocab for bt in byte_toks):
                for bt in byte_toks:  # the waiting unknown token stays where it is, after these
                    place(bt, 1)
                continue
        if unk_token is None:
            continue
        if pending and not fuse_unk:
            place(unk_token, pending)
            pending = 0
        pending += len(raw)
    if pending:
        place(unk_token, pending)  # type: ignore[arg-type]
    # Decorated byte tokens can run past the piece's own bytes: those point at its end.
    n, end = len(char_of), len(piece)
    return (syms, [char_of[a] if a < n else end for a, _ in spans],
            [char_of[b - 1] + 1 if b <= n else end for _, b in spans])
