"""What PickyBPE's and BoundlessBPE's trainers share: the byte-level symbol table they start from,
the token a merge makes (new, restored or present), the vocabulary they end with, and when they stop
(their arguments' checks are in :mod:`tokenizer_core.removals.checks`).

Both train byte-level to ``vocab_size`` *present* tokens: each removal frees a slot for another merge,
so a guard stops them after :data:`MAX_MERGES_PER_SLOT` merges per slot.

>>> present_vocab(["a", "b", "ab", "abc"], [True, True, False, True])
{'a': 0, 'b': 1, 'abc': 2}
>>> stop_reason(size=300, vocab_size=300, n_initial=256, n_merges=44, max_merges=440)
'reached vocab_size 300'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tokenizer_core.bpe.symbols import SymbolTable
from tokenizer_core.text.byte_level import byte_level_alphabet

#: A guard: training stops after this many merges per vocabulary slot. Each removal frees a slot for
#: another merge, so the merges may outnumber the slots; in our runs they stay under 1.5 per slot.
MAX_MERGES_PER_SLOT = 10


def byte_table(special_tokens: Iterable[str]) -> SymbolTable:
    """The symbols training starts from: the special tokens, then the 256 byte symbols."""
    table = SymbolTable(special_tokens)
    for ch in byte_level_alphabet():
        table.add(ch)
    return table


def merged_token(table: SymbolTable, present: list[bool], a: int, b: int) -> tuple[int, str]:
    """The id of the token ``a b`` spells and how it stood: "new" (added to ``table`` and ``present``),
    "restored" (it was removed: it comes back with its id) or "present" (another pair made it).

    >>> table = byte_table(())
    >>> present = [True] * len(table)
    >>> merged_token(table, present, 65, 66), merged_token(table, present, 65, 66)
    ((256, 'new'), (256, 'present'))
    """
    names = table.id_to_tok
    text = names[a] + names[b]
    tid = table.tok_to_id.get(text)
    if tid is None:
        tid = table.add(text)
        present.append(True)
        return tid, "new"
    if not present[tid]:
        present[tid] = True
        return tid, "restored"
    return tid, "present"


def present_vocab(names: Sequence[str], present: Sequence[bool]) -> dict[str, int]:
    """The final vocabulary: the present tokens, numbered in the order they were first made."""
    return {t: i for i, t in enumerate(t for k, t in enumerate(names) if present[k])}


def stop_reason(*, size: int, vocab_size: int, n_initial: int, n_merges: int, max_merges: int) -> str:
    """Why training stops before the next merge, or "" to go on."""
    if size >= vocab_size:
        if not n_merges:
            return (f"vocab_size {vocab_size} leaves no room for merges: the special tokens and the 256 byte "
                    f"symbols already make {n_initial} tokens; raise vocab_size")
        return f"reached vocab_size {vocab_size}"
    if n_merges >= max_merges:
        return f"stopped after {n_merges} merges, {MAX_MERGES_PER_SLOT} per vocabulary slot, at {size} tokens"
    return ""
