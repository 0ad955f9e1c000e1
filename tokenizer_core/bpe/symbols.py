"""The input side of BPE training: token ids, the kept alphabet, and words as symbol-id lists.

>>> table = SymbolTable(["[UNK]"])
>>> for ch in kept_alphabet({"hug": 3, "pug": 1}, initial_alphabet=(), limit_alphabet=None):
...     _ = table.add(ch)
>>> table.id_to_tok
['[UNK]', 'g', 'h', 'p', 'u']
>>> symbolize({"hug": 3, "pug": 1}, table, prefix=None, suffix=None, suffix_as_symbol=False)
([[2, 4, 1], [3, 4, 1]], [3, 1])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Optional

from tokenizer_core.errors import TokenizerError


class SymbolTable:
    """Token ids in creation order: ``add`` gives a new token the next id and returns an existing one's."""

    __slots__ = ("id_to_tok", "tok_to_id")

    def __init__(self, tokens: Iterable[str] = ()) -> None:
        self.id_to_tok: list[str] = []
        self.tok_to_id: dict[str, int] = {}
        for tok in tokens:
            self.add(tok)

    def add(self, tok: str) -> int:
        tid = self.tok_to_id.get(tok)
        if tid is None:
            tid = self.tok_to_id[tok] = len(self.id_to_tok)
            self.id_to_tok.append(tok)
        return tid

    def __len__(self) -> int:
        return len(self.tok_to_id)


def check_counts(word_counts: Mapping[str, int]) -> None:
    """Raise :class:`TokenizerError` unless ``word_counts`` maps strings to whole numbers >= 0."""
    if not isinstance(word_counts, Mapping):
        raise TokenizerError(f"word_counts must be a mapping from word to count, got {type(word_counts).__name__}")
    for w, c in word_counts.items():
        if not isinstance(w, str):
            raise TokenizerError(f"words must be strings, got {w!r}")
        if not isinstance(c, int) or isinstance(c, bool) or c < 0:
            raise TokenizerError(f"word counts must be whole numbers >= 0, got {c!r} for {w!r}")


def kept_alphabet(
    word_counts: Mapping[str, int], *, initial_alphabet: Iterable[str], limit_alphabet: Optional[int]
) -> list[str]:
    """Characters kept as initial symbols, sorted by code point."""
    initial = list(initial_alphabet)
    for ch in initial:
        if not isinstance(ch, str) or len(ch) != 1:
            raise TokenizerError(f"initial_alphabet must hold single characters, got {ch!r}")
    if limit_alphabet is None:
        return sorted(set("".join(word_counts)).union(initial))
    freq: dict[str, float] = {}
    for word, c in word_counts.items():
        for ch in word:
            freq[ch] = freq.get(ch, 0) + c
    for ch in initial:
        freq[ch] = float("inf")  # always kept unless the limit is below the initial alphabet's size
    kept = list(freq)
    if len(kept) > limit_alphabet:
        # Rarest first; among equal counts the larger code point goes first (deterministic).
        kept.sort(key=lambda ch: (freq[ch], -ord(ch)))
        kept = kept[len(kept) - limit_alphabet :]
    return sorted(kept)


def symbolize(
    word_counts: Mapping[str, int],
    table: SymbolTable,
    *,
    prefix: Optional[str],
    suffix: Optional[str],
    suffix_as_symbol: bool,
) -> tuple[list[list[int]], list[int]]:
    """Words as lists of symbol ids. Characters outside the alphabet are skipped (as tokenizers);
    decorated symbols ("##a", "w</w>") and a separate suffix get ids after the alphabet, sorted."""
    tok_to_id = table.tok_to_id
    counts = list(word_counts.values())
    glue = suffix if not suffix_as_symbol else None
    if prefix is None and glue is None and not suffix_as_symbol:
        get = tok_to_id.get
        if all(ch in tok_to_id for ch in set("".join(word_counts))):
            getitem = tok_to_id.__getitem__
            return [list(map(getitem, w)) for w in word_counts], counts
        return [[i for i in map(get, w) if i is not None] for w in word_counts], counts
    raw: list[list[str]] = []
    extra: set[str] = {suffix} if suffix_as_symbol and suffix else set()
    for word in word_counts:
        last = len(word) - 1
        syms = []
        for k, ch in enumerate(word):
            if ch not in tok_to_id:
                continue
            sym = ch
            if k > 0 and prefix is not None:
                sym = prefix + sym
            if k == last and glue is not None:
                sym = sym + glue
            if sym not in tok_to_id:
                extra.add(sym)
            syms.append(sym)
        if suffix_as_symbol and word:
            syms.append(suffix)  # type: ignore[arg-type]
        raw.append(syms)
    for sym in sorted(extra):
        table.add(sym)
    return [[tok_to_id[sym] for sym in syms] for syms in raw], counts
