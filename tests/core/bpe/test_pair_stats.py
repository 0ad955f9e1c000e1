"""merge_everywhere (bpe/pair_stats.py), BPE training's innermost loop, is long on purpose (its common
case is written out inline); these tests pin what it computes against a plain recount."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.bpe.pair_stats import count_pairs, merge_everywhere, pair_queue

SHIFT = 8
NEW = 9  # the merged token's id (the alphabet is 0..3)


def _merged(word: list[int], a: int, b: int) -> list[int]:
    """The reference: occurrences of (a, b) merged left to right, without overlap."""
    out: list[int] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
            out.append(NEW)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


words_st = st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=9), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(words=words_st, data=st.data())
def test_merge_everywhere_matches_a_recount(words: list[list[int]], data: st.DataObject) -> None:
    counts = data.draw(st.lists(st.integers(1, 5), min_size=len(words), max_size=len(words)))
    a, b = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    key = (a << SHIFT) | b
    work = [list(w) for w in words]
    pair_counts, heap, seq = pair_queue(work, counts, shift=SHIFT)
    _, where = count_pairs(work, counts, SHIFT)
    positions = where.get(key, [])
    saved = merge_everywhere(work, counts, positions, a, b, NEW, SHIFT, pair_counts, heap, seq)

    expected = [_merged(w, a, b) for w in words]
    assert work == expected
    assert saved == sum(c * (len(w) - len(m)) for w, m, c in zip(words, expected, counts))
    recount, holders = count_pairs(expected, counts, SHIFT)
    # Every pair but the merged one has its exact count (the merged pair leaves the queue's choice).
    changed = {k for k in set(recount) | set(pair_counts) if k != key}
    assert {k: pair_counts.get(k, 0) for k in changed} == {k: recount.get(k, 0) for k in changed}
    # Each pair with the new token is queued under its count, with every word that holds it.
    for k, cnt in recount.items():
        if NEW in (k >> SHIFT, k & ((1 << SHIFT) - 1)):
            queued = [e for e in heap if e[1] == k and -e[0] == cnt]
            assert queued and sorted({wi for e in queued for wi in e[3]}) == holders[k]


def test_a_run_of_one_symbol_merges_left_to_right() -> None:
    words, counts = [[0, 0, 0], [1, 0, 0, 0, 0, 1]], [2, 1]
    pair_counts, heap, seq = pair_queue(words, counts, shift=SHIFT)
    saved = merge_everywhere(words, counts, [0, 1], 0, 0, NEW, SHIFT, pair_counts, heap, seq)
    assert words == [[NEW, 0], [1, NEW, NEW, 1]] and saved == 2 * 1 + 2
    assert pair_counts[(NEW << SHIFT) | NEW] == 1 and pair_counts[(NEW << SHIFT) | 0] == 2
    assert pair_counts[(1 << SHIFT) | 0] == 0 and pair_counts[(1 << SHIFT) | NEW] == 1
