"""Lattice edges placed straight into forward-backward order: a counting sort, no argsort.

Forward-backward wants the edges of all word lattices sorted by ``(level of end node, end node,
start node)`` and, through ``b_order``, by ``(level of start node, start node, end node)``, where a
node's level is its position inside its word. Sorting 6 M edges with ``np.argsort`` needs an int64
key and an int64 order on top of the edges (the training's peak memory); here each edge's place is
computed from per-node counts instead. The order is the same, so training results do not change.

Edges come in *parts*: ``(length, start nodes, pieces)`` where every edge of a part spans
``length`` characters. Within one part no start node repeats (one window per position), so
``ptr[nodes] += 1`` over a part never hits a node twice.

>>> level = np.array([0, 1, 2, 0, 1])            # words "ab" (nodes 0-2) and "c" (nodes 3-4)
>>> parts = [(1, np.array([0, 1, 3], dtype=np.int32), np.array([0, 1, 2], dtype=np.int32)),
...          (2, np.array([0], dtype=np.int32), np.array([3], dtype=np.int32))]
>>> start, span, piece, b_order = sort_edges(parts, level)
>>> start.tolist(), (start + span).tolist(), piece.tolist(), b_order.tolist(), parts
([0, 3, 0, 1], [1, 4, 2, 2], [0, 2, 3, 1], [0, 2, 1, 3], [])
"""

from __future__ import annotations

import numpy as np

#: One part of edges: its length in characters, its start nodes and its piece ids.
Part = tuple[int, np.ndarray, np.ndarray]


def parts_by_length(start: np.ndarray, end: np.ndarray, piece: np.ndarray) -> list[Part]:
    """Edges given as plain arrays (no two with the same start and end), split into parts.

    >>> [(n, s.tolist()) for n, s, _ in parts_by_length(np.array([0, 0, 1]), np.array([1, 2, 2]),
    ...                                                  np.array([5, 6, 7]))]
    [(1, [0, 1]), (2, [0])]
    """
    span = np.asarray(end) - np.asarray(start)
    return [(int(n), np.asarray(start)[span == n].astype(np.int32), np.asarray(piece)[span == n].astype(np.int32))
            for n in np.unique(span)]


def sort_edges(parts: list[Part], level: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(start, span, piece, b_order)`` of all edges in ``parts``, in forward order (an edge ends
    at node ``start + span``; a span takes one byte, an end node four); ``b_order`` lists the same
    edges in backward order. ``level[node]`` is the node's position in its word.

    ``parts`` is emptied as its edges are placed, so each part is freed once it is copied.
    """
    num_nodes = len(level)
    total = sum(len(s) for _, s, _ in parts)
    idx_t = np.int32 if total < 2**31 else np.int64
    in_deg = np.zeros(num_nodes, dtype=idx_t)
    out_deg = np.zeros(num_nodes, dtype=idx_t)
    for length, s, _ in parts:
        in_deg[s + np.int32(length)] += 1  # no node repeats within a part
        out_deg[s] += 1
    # Groups (one per node) follow the nodes by (level, node): a stable sort by level alone.
    by_level = np.argsort(level, kind="stable")
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
    start = np.empty(total, dtype=np.int32)
    span = np.empty(total, dtype=np.uint8 if max((n for n, _, _ in parts), default=0) < 256 else np.uint16)
    piece = np.empty(total, dtype=np.int32)
    b_order = np.empty(total, dtype=idx_t)
    parts.sort(key=lambda p: p[0])  # stable: parts of one length keep their order
    while parts:
        length, s, p = parts.pop()  # longest first; the popped part goes once it is copied
        e = s + np.int32(length)
        dest = f_next[e]
        f_next[e] += 1
        start[dest], span[dest], piece[dest] = s, length, p
        b_next[s] -= 1
        b_order[b_next[s]] = dest
        del s, p, e, dest
    return start, span, piece, b_order
