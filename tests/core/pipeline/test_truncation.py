"""Truncation windows, pair budgets and settings, checked by hand and against ``tokenizers``."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models
from tokenizers import pre_tokenizers as hf_pre

from tokenizer_core.batch.truncation import (
    TruncationParams,
    pair_budget,
    truncate_pair,
    truncate_windows,
    window_ranges,
)
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding, Token

os.environ.setdefault("RUST_BACKTRACE", "0")

WORDS = [f"w{i}" for i in range(60)]
HF = HFTokenizer(hf_models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="w0"))
HF.pre_tokenizer = hf_pre.WhitespaceSplit()


def seq(n: int, *, first: int = 0, sequence_id: int = 0) -> Encoding:
    tokens = [Token(first + i, f"w{first + i}", (3 * i, 3 * i + 2)) for i in range(n)]
    return Encoding.from_tokens(tokens, word_ids=list(range(n)), type_id=sequence_id, sequence_id=sequence_id)


def windows(enc: Encoding) -> list[list[int]]:
    return [enc.ids] + [o.ids for o in enc.overflowing]


def test_windows_by_hand() -> None:
    e = seq(7)
    assert windows(truncate_windows(e, 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert windows(truncate_windows(e, 3, stride=1)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert windows(truncate_windows(e, 4, stride=2, side="left")) == [[3, 4, 5, 6], [1, 2, 3, 4], [0, 1, 2]]
    assert windows(truncate_windows(e, 7)) == [list(range(7))]
    nothing = truncate_windows(e, 0, stride=3)
    assert nothing.ids == [] and [o.ids for o in nothing.overflowing] == [list(range(7))]
    # The kept window keeps offsets, word ids and masks of its tokens.
    kept = truncate_windows(e, 2, side="left")
    assert kept.offsets == [(15, 17), (18, 20)] and kept.word_ids == [5, 6]


def test_window_ranges_stop_at_the_end() -> None:
    assert window_ranges(6, 4, stride=2, side="right") == [(0, 4), (2, 6)]
    assert window_ranges(6, 4, stride=2, side="left") == [(2, 6), (0, 4)]
    assert window_ranges(5, 2, stride=0, side="left") == [(3, 5), (1, 3), (0, 1)]


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 40),
    max_len=st.integers(1, 12),
    stride_frac=st.floats(0, 0.99),
    side=st.sampled_from(["right", "left"]),
)
def test_windows_match_tokenizers_encoding_truncate(n: int, max_len: int, stride_frac: float, side: str) -> None:
    stride = int(stride_frac * max_len)
    reference = HF.encode(" ".join(WORDS[:n]))
    reference.truncate(max_len, stride=stride, direction=side)
    ours = truncate_windows(seq(n), max_len, stride=stride, side=side)
    assert windows(ours) == [reference.ids] + [o.ids for o in reference.overflowing]
    # Every window is full except possibly the last; neighbours share `stride` tokens.
    ranges = window_ranges(n, max_len, stride=stride, side=side) if n > max_len else [(0, n)]
    assert all(stop - start == max_len for start, stop in ranges[:-1])
    covered = sorted({i for start, stop in ranges for i in range(start, stop)})
    assert covered == list(range(n))


@settings(max_examples=150, deadline=None)
@given(len_a=st.integers(0, 30), len_b=st.integers(0, 30), max_length=st.integers(1, 40))
def test_longest_first_budget_matches_tokenizers(len_a: int, len_b: int, max_length: int) -> None:
    tok = HFTokenizer.from_str(HF.to_str())
    tok.enable_truncation(max_length, strategy="longest_first")
    reference = tok.encode(" ".join(WORDS[:len_a]), " ".join(WORDS[:len_b]))
    a, b = truncate_pair(seq(len_a), seq(len_b, sequence_id=1), params=TruncationParams(max_length=max_length))
    assert b is not None
    assert len(a) + len(b) == len(reference.ids)
    assert len(b) == sum(reference.type_ids)
    if len_a + len_b > max_length:
        assert (len(a), len(b)) == pair_budget(len_a, len_b, max_length)


def test_only_first_and_only_second_by_hand() -> None:
    a, b = seq(6), seq(4, first=20, sequence_id=1)
    x, y = truncate_pair(a, b, params=TruncationParams(strategy="only_first", max_length=7, stride=1))
    assert windows(x) == [[0, 1, 2], [2, 3, 4], [4, 5]] and y is not None and y.ids == [20, 21, 22, 23]
    x, y = truncate_pair(a, b, params=TruncationParams(strategy="only_second", max_length=8, side="left"))
    assert x.ids == list(range(6)) and y is not None and windows(y) == [[22, 23], [20, 21]]
    same = truncate_pair(a, b, params=TruncationParams(strategy="only_second", max_length=10))
    assert same == (a, b)


@pytest.mark.parametrize("strategy", ["only_first", "only_second"])
@pytest.mark.parametrize("spare", [-1, 0, 1, 2])
def test_only_one_text_at_the_edge_matches_tokenizers(strategy: str, spare: int) -> None:
    # The target text holds exactly ``excess + spare`` tokens: tokenizers refuses when nothing of
    # it would be left (spare <= 0) and keeps ``spare`` tokens otherwise.
    len_a, len_b = 5, 4
    len_target = len_a if strategy == "only_first" else len_b
    max_length = len_a + len_b - (len_target - spare)
    a, b = seq(len_a), seq(len_b, first=20, sequence_id=1)
    ref = HFTokenizer.from_str(HF.to_str())
    ref.enable_truncation(max_length, strategy=strategy)
    text_a, text_b = " ".join(a.tokens), " ".join(b.tokens)
    params = TruncationParams(strategy=strategy, max_length=max_length)
    if spare <= 0:
        with pytest.raises(Exception, match="too short"):
            ref.encode(text_a, text_b, add_special_tokens=False)
        with pytest.raises(TokenizerError, match="raise max_length or use 'longest_first'"):
            truncate_pair(a, b, params=params)
        return
    want = ref.encode(text_a, text_b, add_special_tokens=False)
    x, y = truncate_pair(a, b, params=params)
    assert y is not None and x.ids + y.ids == want.ids
    cut, kept, whole = (x, y, b) if strategy == "only_first" else (y, x, a)
    assert len(cut) == spare and kept.ids == whole.ids  # the other text keeps every token


def test_truncation_errors_say_how_to_fix() -> None:
    a, b = seq(6), seq(4, sequence_id=1)
    with pytest.raises(TokenizerError, match="needs a second text"):
        truncate_pair(a, None, params=TruncationParams(strategy="only_second", max_length=3))
    with pytest.raises(TokenizerError, match="raise max_length"):
        truncate_pair(a, b, params=TruncationParams(strategy="only_second", max_length=5))
    with pytest.raises(TokenizerError, match="stride=2 must be smaller"):
        truncate_windows(a, 2, stride=2)
    # Nothing to cut: only_second on a single short text is fine (as in tokenizers).
    assert truncate_pair(a, None, params=TruncationParams(strategy="only_second", max_length=6))[0] is a


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"strategy": "shortest"}, "unknown truncation strategy"),
        ({"side": "middle"}, "'right' or 'left'"),
        ({"max_length": -1}, "max_length"),
        ({"stride": -2}, "stride"),
        ({"max_length": 2.5}, "max_length"),
    ],
)
def test_bad_settings(kwargs: dict, match: str) -> None:
    with pytest.raises(TokenizerError, match=match):
        TruncationParams(**kwargs)


@pytest.mark.parametrize("strategy", ["longest_first", "only_first", "only_second"])
@pytest.mark.parametrize("side", ["right", "left"])
def test_tokenizer_json_matches_tokenizers(strategy: str, side: str) -> None:
    params = TruncationParams(strategy=strategy, max_length=17, stride=3, side=side)
    tok = HFTokenizer.from_str(HF.to_str())
    tok.enable_truncation(17, stride=3, strategy=strategy, direction=side)
    assert params.to_hf() == json.loads(tok.to_str())["truncation"]
    assert TruncationParams.from_hf(params.to_hf()) == params
    assert TruncationParams.from_dict(params.to_dict()) == params


def test_do_not_truncate() -> None:
    params = TruncationParams(strategy="do_not_truncate", max_length=2)
    assert not params.enabled and params.to_hf() is None
    a = seq(5)
    assert truncate_pair(a, None, params=params) == (a, None)
    assert TruncationParams.from_hf(None) == TruncationParams(strategy="do_not_truncate")
