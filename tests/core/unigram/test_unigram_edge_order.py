"""The counting sort that places Unigram lattice edges gives exactly the lexsort orders it replaced."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.unigram.batched_lattice import Lattices, edge_parts, lattice_edges
from tokenizer_core.unigram.edge_order import sort_edges
from tokenizer_core.unigram.words import PieceIndex, WordTable, hash_strings

words_st = st.lists(st.text(alphabet="ab▁c", min_size=1, max_size=9), min_size=1, max_size=8, unique=True)
pieces_st = st.lists(st.text(alphabet="ab▁c", min_size=2, max_size=4), max_size=12, unique=True)


def _index(pieces: list[str]) -> PieceIndex:
    return PieceIndex(hash_strings(pieces), np.array([len(p) for p in pieces]))


@settings(max_examples=150, deadline=None)
@given(words_st, pieces_st)
def test_counting_sort_matches_lexsort(words, multi):
    pieces = ["a", "b", "c", "▁", *(p for p in multi if len(p) > 1)]
    w = WordTable(words, np.ones(len(words)))
    start, end, piece, _ = lattice_edges(w, _index(pieces), None)
    level = np.arange(w.num_nodes) - np.repeat(w.first, w.last - w.first + 1)
    fwd = np.lexsort((start, end, level[end]))
    got = sort_edges(edge_parts(w, _index(pieces), None), level)
    got_end = np.repeat(got.forward.node, got.forward.size)
    assert (got_end - got.span).tolist() == start[fwd].tolist()
    assert got_end.tolist() == end[fwd].tolist()
    assert got.piece.tolist() == piece[fwd].tolist()
    s, e = start[fwd], end[fwd]
    assert got.b_order.tolist() == np.lexsort((e, s, level[s])).tolist()
    # Backward groups: the start node of each edge in backward order.
    assert np.repeat(got.backward.node, got.backward.size).tolist() == s[got.b_order].tolist()
    for groups in (got.forward, got.backward):
        # ``bounds[k]``: the first group whose node is at level k or deeper.
        levels = level[groups.node]
        assert groups.bounds.tolist() == np.searchsorted(levels, np.arange(len(groups.bounds))).tolist()


def test_lattices_from_arrays_and_from_parts_agree():
    w = WordTable(["▁abc", "▁ab", "c"], np.array([3.0, 2.0, 1.0]))
    pieces = ["a", "b", "c", "▁", "ab", "▁a", "bc", "▁ab"]
    lat_a = Lattices(w, *lattice_edges(w, _index(pieces), None))
    lat_b = Lattices.from_parts(w, edge_parts(w, _index(pieces), None))
    for name in ("span", "piece", "b_order", "f_bounds", "b_bounds"):
        assert getattr(lat_a, name).tolist() == getattr(lat_b, name).tolist(), name
    for a, b in ((lat_a.f, lat_b.f), (lat_a.b, lat_b.b)):
        assert [x.tolist() for x in a] == [x.tolist() for x in b]
    lp = np.log(np.full(len(pieces), 1 / len(pieces)))
    assert lat_a.expected_counts(lp, len(pieces))[0].tolist() == lat_b.expected_counts(lp, len(pieces))[0].tolist()


@settings(max_examples=60, deadline=None)
@given(words_st, pieces_st)
def test_small_chunks_change_no_bit(words, multi):
    """Level sub-chunks, chunked grouping and in-place filtering give the very same numbers."""
    import tokenizer_core.unigram.batched_lattice as bl

    pieces = ["a", "b", "c", "▁", *(p for p in multi if len(p) > 1)]
    w = WordTable(words, np.arange(1.0, len(words) + 1))
    lp = np.log(np.linspace(1.0, 2.0, len(pieces)) / len(pieces))
    keep = np.ones(len(pieces), dtype=bool)
    keep[4::2] = False

    def run() -> tuple:
        lat = Lattices(w, *lattice_edges(w, _index(pieces), None))
        counts, loglik = lat.expected_counts(lp, len(pieces))
        back, best = lat.viterbi(lp)
        lat.keep(keep, np.cumsum(keep) - 1)
        after = lat.expected_counts(lp[keep], int(keep.sum()))[0]
        return counts.tolist(), loglik, back.tolist(), best.tolist(), after.tolist(), lat.b_order.tolist()

    want = run()
    saved = bl._CHUNK
    try:
        bl._CHUNK = 3
        assert run() == want
    finally:
        bl._CHUNK = saved
