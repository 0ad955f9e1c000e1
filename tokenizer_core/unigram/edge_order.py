"""Lattice edges placed straight into forward-backward order: a counting sort, no argsort.

Forward-backward wants the edges of all word lattices sorted by ``(level of end node, end node,
start node)`` and, through ``b_order``, by ``(level of start node, start node, end node)``, where a
node's level is its position inside its word. Sorting 6 M edges with ``np.argsort`` needs an int64
key and an int64 order on top of the edges (the training's peak memory); here each edge's place is
computed from per-node counts instead. The order is the same, so training results do not change.

The edges of one node (its *group*) are adjacent in each order, so an edge's end node (forward)
or start node (backward) is its group's node: only the groups are stored, never a node per edge.

Edges come in *parts*: ``(length, start nodes, pieces)`` where every edge of a part spans
``length`` characters. Within one part no start node repeats (one window per position), so
``ptr[nodes] += 1`` over a part never hits a node twice.

>>> level = np.array([0, 1, 2, 0, 1])            # words "ab" (nodes 0-2) and "c" (nodes 3-4)
>>> parts = [(1, np.array([0, 1, 3], dtype=np.int32), np.array([0, 1, 2], dtype=np.int32)),
...          (2, np.array([0], dtype=np.int32), np.array([3], dtype=np.int32))]
>>> e = sort_edges(parts, level)
>>> end = np.repeat(e.forward.node, e.forward.size)
>>> (end - e.span).tolist(), end.tolist(), e.piece.tolist(), e.b_order.tolist(), parts
([0, 3, 0, 1], [1, 4, 2, 2], [0, 2, 3, 1], [0, 2, 1, 3], [])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tokenizer_core.unigram.memory import return_free_memory

#: One part of edges: its length in characters, its start nodes and its piece ids.
Part = tuple[int, np.ndarray, np.ndarray]


class Groups(NamedTuple):
    """The runs of edges that share a node, in ``(level, node)`` order: the node and the number of
    edges of each, and ``bounds[k]``, the first group of level ``k`` (``bounds[-1]``: their count).
    """

    node: np.ndarray
    size: np.ndarray
    bounds: np.ndarray


class SortedEdges(NamedTuple):
    """Edges in forward order (``span``, ``piece``), ``b_order`` (forward indices in backward order)
    and the groups of each order: by end node (``forward``) and by start node (``backward``).
    """

    span: np.ndarray
    piece: np.ndarray
    b_order: np.ndarray
    forward: Groups
    backward: Groups


def parts_by_length(start: np.ndarray, end: np.ndarray, piece: np.ndarray) -> list[Part]:
    """Edges given as plain arrays (no two with the same start and end), split into parts.

    >>> [(n, s.tolist()) for n, s, _ in parts_by_length(np.array([0, 0, 1]), np.array([1, 2, 2]),
    ...                                                  np.array([5, 6, 7]))]
    [(1, [0, 1]), (2, [0])]
    """
    span = np.asarray(end) - np.asarray(start)
    return [(int(n), np.asarray(start)[span == n].astype(np.int32), np.asarray(piece)[span == n].astype(np.int32))
            for n in distinct(span)]


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values, as ``np.unique`` gives them, without importing ``numpy.ma``
    (``np.unique`` does on first use: 1.7 MB of resident memory a training process never frees).

    >>> distinct(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    s = np.sort(np.asarray(values).ravel())
    if not len(s):
        return s
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    np.not_equal(s[1:], s[:-1], out=new[1:])
    return s[new]


def group_bounds(sizes: np.ndarray, gbounds: np.ndarray) -> np.ndarray:
    """First edge of each level's groups (int64), from the group sizes and the levels' first groups.

    >>> group_bounds(np.array([2, 1, 3], dtype=np.uint8), np.array([0, 2, 3])).tolist()
    [0, 3, 6]
    """
    csum = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=csum[1:])
    return csum[gbounds]


def _groups(by_level: np.ndarray, degree: np.ndarray, sorted_level: np.ndarray, node_t: type) -> Groups:
    """Groups of the nodes with edges (``degree > 0``), in ``by_level`` order."""
    sizes = degree[by_level]
    has = sizes > 0
    size = sizes[has]
    # A node has at most one edge per piece length: sizes fit in one byte unless pieces are long.
    size = size.astype(np.uint8 if len(size) == 0 or size.max() < 256 else np.int32)
    levels = np.arange(int(sorted_level[-1]) + 2 if len(sorted_level) else 1)
    bounds = np.searchsorted(sorted_level[has], levels)
    return Groups(by_level[has].astype(node_t), size, bounds)


def sort_edges(parts: list[Part], level: np.ndarray) -> SortedEdges:
    """All edges in ``parts`` in forward order (an edge ends at its forward group's node, and starts
    ``span`` before it; a span takes one byte), ``b_order`` listing the same edges in backward order,
    and the groups of both orders. ``level[node]`` is the node's position in its word.

    ``parts`` is emptied as its edges are placed, so each part is freed once it is copied.
    """
    num_nodes = len(level)
    total = sum(len(s) for _, s, _ in parts)
    idx_t = np.int32 if total < 2**31 else np.int64
    node_t = np.int32 if num_nodes < 2**31 else np.int64
    in_deg = np.zeros(num_nodes, dtype=idx_t)
    out_deg = np.zeros(num_nodes, dtype=idx_t)
    for length, s, _ in parts:
        in_deg[s + np.int32(length)] += 1  # no node repeats within a part
        out_deg[s] += 1
    # Groups (one per node) follow the nodes by (level, node): a stable sort by level alone.
    by_level = np.argsort(level, kind="stable")
    sorted_level = level[by_level]
    forward = _groups(by_level, in_deg, sorted_level, node_t)
    backward = _groups(by_level, out_deg, sorted_level, node_t)
    del sorted_level
    # Forward: a node's group starts after the in-edges of every node before it, and is filled
    # from its start with the longest edge first (earliest start node first).
    f_next = np.empty(num_nodes, dtype=idx_t)
    sizes = in_deg[by_level]
    f_next[by_level] = np.cumsum(sizes, dtype=idx_t) - sizes
    del in_deg
    # Backward: groups by start node, each filled from its end since the longest edge (latest
    # end node) comes first.
    b_next = np.empty(num_nodes, dtype=idx_t)
    b_next[by_level] = np.cumsum(out_deg[by_level], dtype=idx_t)
    del out_deg, by_level, sizes
    span = np.empty(total, dtype=np.uint8 if max((n for n, _, _ in parts), default=0) < 256 else np.uint16)
    piece = np.empty(total, dtype=np.int32)
    b_order = np.empty(total, dtype=idx_t)
    parts.sort(key=lambda p: p[0])  # stable: parts of one length keep their order
    placed = 0
    while parts:
        length, s, p = parts.pop()  # longest first; the popped part goes once it is copied
        e = s + np.int32(length)
        dest = f_next[e]
        f_next[e] += 1
        span[dest], piece[dest] = length, p
        b_next[s] -= 1
        b_order[b_next[s]] = dest
        del s, p, e, dest
        placed += 1
        if placed % 8 == 0:  # the copied parts' pages go back as the sorted arrays fill up
            return_free_memory()
    return SortedEdges(span, piece, b_order, forward, backward)
