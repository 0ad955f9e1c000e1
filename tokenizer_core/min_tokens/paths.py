"""The fewest-token path through a lattice (PathPiece's segmentation, Schmidt et al., 2024).

Every edge costs one token, whatever its probability: a breadth-first dynamic programme over the
lattice's nodes finds the smallest number of tokens that covers the text. Several paths may share
that number; the paper breaks ties two ways, and both are here:

- ``"longest"`` (PathPieceL): walking back from the end, the longest last token among the tied ones;
- ``"random"`` (PathPieceR): walking back, one of the tied last tokens drawn uniformly (``rng``).

The lattice is the Unigram page's own (:class:`~tokenizer_core.unigram.lattice.Lattice`), so the
path can be drawn beside Viterbi's, and its ``log_prob`` is the same sum of piece log-probabilities
(a fewest-token path is never more likely than Viterbi's, and often less).

>>> from tokenizer_core.unigram.lattice import Lattice, PieceTrie
>>> trie = PieceTrie([("a", 0, -1.0), ("b", 1, -1.0), ("c", 2, -1.0), ("ab", 3, -5.0), ("bc", 4, -0.5)])
>>> lattice = Lattice.build("abc", trie)
>>> lattice.viterbi().pieces, fewest_tokens(lattice).pieces
(['a', 'bc'], ['a', 'bc'])
>>> fewest_count(lattice)
FewestCount(tokens=2, paths=2)
"""

from __future__ import annotations

import math
import random
from typing import Literal, NamedTuple, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.unigram.lattice import Lattice, LatticeEdge, Segmentation

Tie = Literal["longest", "random"]
TIES: tuple[Tie, ...] = ("longest", "random")


class FewestCount(NamedTuple):
    """The fewest tokens that cover a text, and how many different paths use exactly that many."""

    tokens: int
    paths: int


def _fewest_to(lattice: Lattice) -> list[int]:
    """``best[p]``: the fewest edges from node 0 to node ``p`` (``len(text) + 1`` entries)."""
    n = len(lattice.text)
    best = [0] + [math.inf] * n  # every node is reachable: the lattice covers each position
    for pos in range(n):
        here = best[pos] + 1
        for edge in lattice.edges_from(pos):
            if here < best[edge.end]:
                best[edge.end] = here
    return best  # type: ignore[return-value]  # all finite once the loop has run


def fewest_tokens(lattice: Lattice, *, tie: Tie = "longest", rng: Optional[random.Random] = None) -> Segmentation:
    """A path with the fewest edges; ``tie`` picks among equally short ones (see the module).

    >>> from tokenizer_core.unigram.lattice import PieceTrie
    >>> lat = Lattice.build("aaa", PieceTrie([("a", 0, -1.0), ("aa", 1, -1.0)]))
    >>> fewest_tokens(lat).pieces   # "a aa" and "aa a" tie; the longest last token wins
    ['a', 'aa']
    """
    if tie not in TIES:
        raise TokenizerError(f"tie must be one of {', '.join(TIES)}, got {tie!r}")
    if tie == "random" and rng is None:
        raise TokenizerError('tie="random" needs an rng (random.Random(seed)), so a draw can be repeated')
    best = _fewest_to(lattice)
    path: list[LatticeEdge] = []
    pos = len(lattice.text)
    while pos > 0:
        # The edges into pos that lie on some shortest path to it (earliest start first).
        tied = [e for e in lattice.edges_to(pos) if best[e.start] + 1 == best[pos]]
        edge = tied[0] if tie == "longest" else tied[rng.randrange(len(tied))]  # type: ignore[union-attr]
        path.append(edge)
        pos = edge.start
    path.reverse()
    return Segmentation(tuple(path), math.fsum(e.log_prob for e in path))


def fewest_count(lattice: Lattice) -> FewestCount:
    """The fewest tokens covering the text, and the number of paths that use that many."""
    best = _fewest_to(lattice)
    n = len(lattice.text)
    ways = [1] + [0] * n
    for pos in range(1, n + 1):
        ways[pos] = sum(ways[e.start] for e in lattice.edges_to(pos) if best[e.start] + 1 == best[pos])
    return FewestCount(int(best[n]), ways[n])


def longest_match(lattice: Lattice) -> Segmentation:
    """Greedy longest match from the left (WordPiece's way, and the simplest "longest token" rule):
    often more tokens than :func:`fewest_tokens`.

    >>> from tokenizer_core.unigram.lattice import PieceTrie
    >>> lat = Lattice.build("abcd", PieceTrie([(p, i, -1.0) for i, p in enumerate(["a", "b", "c", "d", "ab", "bcd"])]))
    >>> longest_match(lat).pieces, fewest_tokens(lat).pieces
    (['ab', 'c', 'd'], ['a', 'bcd'])
    """
    path: list[LatticeEdge] = []
    pos = 0
    while pos < len(lattice.text):
        edge = lattice.edges_from(pos)[-1]  # shortest first: the last is the longest
        path.append(edge)
        pos = edge.end
    return Segmentation(tuple(path), math.fsum(e.log_prob for e in path))


def all_fewest(lattice: Lattice, *, limit: int = 20) -> list[Segmentation]:
    """Up to ``limit`` of the paths with the fewest tokens, likeliest first (ties: earlier cuts first);
    when there are more than ``10 * limit`` such paths, the likeliest of the first ``10 * limit`` found.

    >>> from tokenizer_core.unigram.lattice import PieceTrie
    >>> lat = Lattice.build("aaa", PieceTrie([("a", 0, -1.0), ("aa", 1, -3.0)]))
    >>> [(p.pieces, p.log_prob) for p in all_fewest(lat)]
    [(['a', 'aa'], -4.0), (['aa', 'a'], -4.0)]
    """
    if limit < 1:
        raise TokenizerError(f"limit must be 1 or more, got {limit}")
    best = _fewest_to(lattice)
    found: list[tuple[LatticeEdge, ...]] = []

    def walk(pos: int, tail: tuple[LatticeEdge, ...]) -> None:
        if len(found) >= limit * 10:  # enough to choose the likeliest from
            return
        if pos == 0:
            found.append(tail)
            return
        for edge in lattice.edges_to(pos):
            if best[edge.start] + 1 == best[pos]:
                walk(edge.start, (edge, *tail))

    walk(len(lattice.text), ())
    paths = [Segmentation(p, math.fsum(e.log_prob for e in p)) for p in found]
    paths.sort(key=lambda p: (-p.log_prob, p.boundaries))
    return paths[:limit]
