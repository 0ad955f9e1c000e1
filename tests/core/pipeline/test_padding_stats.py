"""Padding waste figures and length bucketing."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.batch.stats import PaddingWaste, batches_waste, bucket_by_length, padding_waste
from tokenizer_core.errors import TokenizerError


def test_waste_of_a_known_batch() -> None:
    # Three sequences of 3, 5 and 8 tokens padded to a multiple of 4 (8 positions):
    # 24 positions, 16 real, 8 padding; 3 * 8 * 8 = 192 attention scores, of which
    # 9 + 25 + 64 = 98 relate two real tokens.
    w = padding_waste([3, 5, 8], pad_to_multiple_of=4)
    assert (w.sequences, w.real_tokens, w.total_positions, w.padded_positions) == (3, 16, 24, 8)
    assert w.pad_fraction == pytest.approx(1 / 3)
    assert (w.attention_cells, w.wasted_attention_cells) == (192, 94)
    assert w.wasted_attention_fraction == pytest.approx(94 / 192)
    assert w.to_dict()["padded_positions"] == 8


def test_waste_adds_up_over_batches() -> None:
    total = batches_waste([[2, 4], [1, 1, 3]])
    assert total == padding_waste([2, 4]) + padding_waste([1, 1, 3])
    assert total.padded_positions == 2 + 4
    assert PaddingWaste().pad_fraction == 0.0 and PaddingWaste().wasted_attention_fraction == 0.0


def test_fixed_width_and_bad_input() -> None:
    assert padding_waste([2, 3], padded_length=10).padded_positions == 15
    assert padding_waste([]) == PaddingWaste()
    with pytest.raises(TokenizerError, match="shorter than the longest"):
        padding_waste([5], padded_length=3)
    with pytest.raises(TokenizerError, match="whole numbers"):
        padding_waste([2, -1])


def test_bucketing_a_known_list() -> None:
    lengths = [1, 9, 2, 8]
    before = bucket_by_length(lengths, batch_size=2, strategy="none")
    assert before.batches == [[0, 1], [2, 3]]
    assert before.after.padded_positions == before.before.padded_positions == 8 + 6
    report = bucket_by_length(lengths, batch_size=2, strategy="sort")
    assert report.batch_lengths() == [[9, 8], [2, 1]]
    assert report.after.padded_positions == 2
    assert report.padding_removed == 12
    assert report.padding_removed_fraction == pytest.approx(12 / 14)
    assert report.attention_cells_saved == (2 * 81 + 2 * 64) - (2 * 81 + 2 * 4)
    assert report.to_dict()["padding_removed"] == 12


def test_bucketing_texts_with_a_length_function() -> None:
    texts = ["a b c", "a", "a b c d e f", "a b"]
    words = bucket_by_length(texts, batch_size=2)
    assert words.lengths == [3, 1, 6, 2]
    chars = bucket_by_length(texts, batch_size=2, length_fn=len)
    assert chars.lengths == [5, 1, 11, 3]


def test_bucket_strategy_groups_similar_lengths() -> None:
    lengths = [3, 40, 5, 38, 4, 41, 6]
    report = bucket_by_length(lengths, batch_size=2, strategy="bucket", bucket_width=10)
    assert report.batch_lengths() == [[40, 38], [41], [3, 5], [4, 6]]
    assert report.after.padded_positions < report.before.padded_positions


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": 2, "strategy": "shuffle"}, "unknown bucketing strategy"),
        ({"batch_size": 2, "bucket_width": 0}, "bucket_width"),
    ],
)
def test_bad_bucketing_settings(kwargs: dict, match: str) -> None:
    with pytest.raises(TokenizerError, match=match):
        bucket_by_length([1, 2, 3], **kwargs)


@settings(max_examples=200, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 50), max_size=40),
    batch_size=st.integers(1, 8),
    strategy=st.sampled_from(["none", "sort", "bucket"]),
)
def test_bucketing_properties(lengths: list[int], batch_size: int, strategy: str) -> None:
    report = bucket_by_length(lengths, batch_size=batch_size, strategy=strategy)
    flat = [i for batch in report.batches for i in batch]
    assert sorted(flat) == list(range(len(lengths)))  # every text in exactly one batch
    assert all(1 <= len(batch) <= batch_size for batch in report.batches)
    assert report.after.real_tokens == report.before.real_tokens == sum(lengths)
    if strategy == "sort":
        assert report.after.padded_positions <= report.before.padded_positions


@settings(max_examples=80, deadline=None)
@given(lengths=st.lists(st.integers(0, 12), min_size=1, max_size=7), batch_size=st.integers(1, 4))
def test_sorting_longest_first_is_optimal(lengths: list[int], batch_size: int) -> None:
    # Compare with every order of the texts: none pads less than the sorted one.
    best = min(
        batches_waste([[lengths[i] for i in order[k:k + batch_size]] for k in range(0, len(order), batch_size)])
        .padded_positions
        for order in itertools.permutations(range(len(lengths)))
    )
    assert bucket_by_length(lengths, batch_size=batch_size).after.padded_positions == best
