"""Reading BPE merge lists from JSON (our own format, ``tokenizers``' ``"model"`` object) and
deriving a merge list from a tiktoken-style vocabulary.

A merge list is read in C when the kernel is there (merge_pairs in kernels/src/merge_ids.c); this
code stays the reference.

>>> merges_from_json(["a b", ["ab", "c"]])
[('a', 'b'), ('ab', 'c')]
>>> merges_by_token_rank({"a": 0, "b": 1, "ab": 2, "abb": 3})
[('a', 'b'), ('ab', 'b')]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tokenizer_core.errors import FormatError
from tokenizer_core.kernel import native


def merges_from_json(merges: Any) -> list[tuple[str, str]]:
    """Merge pairs from a JSON list of ``[left, right]`` pairs or older ``"left right"`` strings."""
    if not isinstance(merges, list):
        raise FormatError("BPE \"merges\" must be a list of [left, right] pairs")
    if native.available():  # the plain case in one C pass; anything else is read (and refused) below
        pairs = native.kernel().merge_pairs(merges)
        if pairs is not None:
            return pairs
    pairs = []
    for m in merges:
        if isinstance(m, str):  # the older "left right" form
            parts = m.split(" ")
            if len(parts) != 2:
                raise FormatError(f"malformed merge {m!r}: expected 'left right'")
            pairs.append((parts[0], parts[1]))
        else:
            if not isinstance(m, list) or len(m) != 2:
                raise FormatError(f"malformed merge {m!r}: expected [left, right]")
            pairs.append((m[0], m[1]))
    return pairs


def merges_by_token_rank(vocab: Mapping[str, int]) -> list[tuple[str, str]]:
    """Every split of a token into two tokens, ordered by (token rank, left rank, right rank):
    the merge list ``tokenizers`` needs for a vocabulary whose ranks are its ids."""
    found = []
    for tok, tid in vocab.items():
        for k in range(1, len(tok)):
            left, right = tok[:k], tok[k:]
            lid, rid = vocab.get(left), vocab.get(right)
            if lid is not None and rid is not None:
                found.append((tid, lid, rid, left, right))
    found.sort()
    return [(f[3], f[4]) for f in found]
