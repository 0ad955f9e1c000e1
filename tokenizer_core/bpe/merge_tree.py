"""Merge trees: how a BPE token is built from alphabet symbols, one binary merge at a time.

>>> t = tree_from_producers("low", vocab={"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4},
...                         producers={"lo": (0, "l", "o"), "low": (1, "lo", "w")})
>>> t.rank, t.left.token, t.right.token, t.leaves(), t.depth()
(1, 'lo', 'w', ['l', 'o', 'w'], 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from tokenizer_core.bpe.merging import MergeStep, Ranker, merge_heap


@dataclass(frozen=True, slots=True)
class MergeTree:
    """How a token is built from alphabet symbols: a binary tree of merges (leaves have no rank).

    >>> from tokenizer_core.bpe.model import BPE
    >>> m = BPE({"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4}, [("l", "o"), ("lo", "w")])
    >>> t = m.merge_tree("low")
    >>> t.rank, t.left.token, t.right.token, t.leaves()
    (1, 'lo', 'w', ['l', 'o', 'w'])
    """

    token: str
    id: int
    rank: Optional[int] = None
    left: Optional["MergeTree"] = None
    right: Optional["MergeTree"] = None

    @property
    def is_leaf(self) -> bool:
        return self.left is None

    def leaves(self) -> list[str]:
        if self.left is None or self.right is None:
            return [self.token]
        return self.left.leaves() + self.right.leaves()

    def depth(self) -> int:
        if self.left is None or self.right is None:
            return 0
        return 1 + max(self.left.depth(), self.right.depth())

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"token": self.token, "id": self.id}
        if self.left is not None and self.right is not None:
            d.update(rank=self.rank, left=self.left.to_dict(), right=self.right.to_dict())
        return d


def tree_from_producers(
    token: str, *, vocab: Mapping[str, int], producers: Mapping[str, tuple[int, str, str]], depth: int = 0
) -> MergeTree:
    """The tree of a merge-list model: each token splits by the first merge that made it."""
    made = producers.get(token)
    # Producers have lower ranks than what they make, so this ends; the depth guard only
    # stops a malformed merge list (e.g. a right part equal to the prefix) from looping.
    if made is None or depth > len(token) + 8:
        return MergeTree(token, vocab[token])
    rank, left, right = made
    return MergeTree(
        token, vocab[token], rank,
        tree_from_producers(left, vocab=vocab, producers=producers, depth=depth + 1),
        tree_from_producers(right, vocab=vocab, producers=producers, depth=depth + 1),
    )


def tree_by_encoding(token: str, *, vocab: Mapping[str, int], rank: Ranker) -> MergeTree:
    """tiktoken-style vocabularies have no merge list: replay BPE on the token's own symbols."""
    syms = list(token)
    if len(syms) == 1:
        return MergeTree(token, vocab[token])
    trees: list[Optional[MergeTree]] = [MergeTree(s, vocab[s]) if s in vocab else None for s in syms]
    steps: list[MergeStep] = []
    merge_heap(list(syms), list(range(len(syms))), list(range(1, len(syms) + 1)), rank, steps=steps)
    for st in steps:
        left, right = trees[st.position], trees[st.position + 1]
        node = MergeTree(st.token, vocab[st.token], st.rank, left, right)
        trees[st.position: st.position + 2] = [node]
    if len(trees) == 1 and trees[0] is not None and trees[0].token == token:
        return trees[0]
    # Not reachable by BPE from its own bytes: show the split with the earliest ranks.
    best = min(
        ((max(vocab[token[:k]], vocab[token[k:]]), k) for k in range(1, len(token))
         if token[:k] in vocab and token[k:] in vocab),
        default=None,
    )
    if best is None:
        return MergeTree(token, vocab[token])
    k = best[1]
    return MergeTree(token, vocab[token], vocab[token],
                     tree_by_encoding(token[:k], vocab=vocab, rank=rank),
                     tree_by_encoding(token[k:], vocab=vocab, rank=rank))
