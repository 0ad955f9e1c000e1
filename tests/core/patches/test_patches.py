"""Entropy patching (tokenizer_core/patches): the byte n-gram model against Witten-Bell's formula
written out independently (dicts, one context at a time), its worked example, the Byte Latent
Transformer's two patching rules, and the edges (empty text, unseen bytes, bad settings)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.patches import MAX_ORDER, ByteNgramModel, patch_starts, patch_text, patches_of


def witten_bell(corpus: bytes, order: int, before: bytes) -> list[float]:
    """P(v | before) for every byte v, from the formula alone (no arrays, no sorting)."""
    follow: dict[bytes, Counter] = {}
    for k in range(order):
        for i in range(len(corpus) - k):
            follow.setdefault(corpus[i:i + k], Counter())[corpus[i + k]] += 1
    probs = [1 / 256] * 256
    for k in range(min(order - 1, len(before)) + 1):
        ctx = before[len(before) - k:] if k else b""
        seen = follow.get(ctx)
        if not seen:
            continue
        total, kinds = sum(seen.values()), len(seen)
        probs = [(seen.get(v, 0) + kinds * probs[v]) / (total + kinds) for v in range(256)]
    return probs


@settings(max_examples=60, deadline=None)
@given(corpus=st.binary(min_size=1, max_size=60), text=st.binary(max_size=12), order=st.integers(1, 4))
def test_every_distribution_is_witten_bells_formula_and_sums_to_one(corpus, text, order):
    # Small alphabets make contexts repeat, so the higher orders really mix in.
    corpus = bytes(b % 3 + 97 for b in corpus)
    text = bytes(b % 4 + 97 for b in text)
    model = ByteNgramModel.train(corpus, order=order)
    got = model.distributions(text)
    assert got.shape == (len(text), 256)
    for i in range(len(text)):
        assert got[i] == pytest.approx(witten_bell(corpus, order, text[:i]), abs=1e-12)
    assert np.allclose(got.sum(axis=1), 1.0)
    h = model.entropies(text)
    assert ((h >= 0) & (h <= 8 + 1e-9)).all()


def test_the_worked_example():
    """abababab, order 2: a and b 4 times each (8 bytes, 2 kinds), "a" followed by b 4 times (1 kind)."""
    model = ByteNgramModel.train(b"abababab", order=2)
    unigram_b = (4 + 2 / 256) / (8 + 2)
    p = model.distributions(b"ab")
    assert p[0, ord("b")] == pytest.approx(unigram_b)
    assert p[1, ord("b")] == pytest.approx((4 + 1 * unigram_b) / (4 + 1)) == pytest.approx(0.88015625)
    assert p[1, ord("z")] == pytest.approx((0 + 1 * (2 / 256) / 10) / 5)  # never seen: the shorter model's share
    surprise = model.surprisals(b"ab")
    assert surprise[1] == pytest.approx(-math.log2(0.88015625))


def test_patch_rules_of_the_paper():
    h = [5.0, 1.0, 0.5, 3.0, 3.5, 0.2, 2.9]
    assert patch_starts(h, threshold=2.0) == [0, 3, 4, 6]  # global: H(t) > 2
    assert patch_starts(h, threshold=2.0, mode="relative") == [0, 3, 6]  # H(t) - H(t-1) > 2
    assert patch_starts(h, threshold=3.0) == [0, 4]  # strictly above: 3.0 is not
    assert patch_starts([], threshold=1.0) == [] and patch_starts([9.0], threshold=100) == [0]
    assert [p.data for p in patches_of(b"abcdefg", [0, 3, 6])] == [b"abc", b"def", b"g"]


@settings(max_examples=40, deadline=None)
@given(h=st.lists(st.floats(0, 8), max_size=40), low=st.floats(0, 8), high=st.floats(0, 8))
def test_a_higher_global_threshold_only_removes_starts(h, low, high):
    low, high = sorted((low, high))
    assert set(patch_starts(h, threshold=high)) <= set(patch_starts(h, threshold=low))


def test_patches_cover_the_text_and_start_at_word_beginnings_more_than_bytes_do():
    """On English prose the model is surest inside words: patch starts fall after a space far more
    often than bytes do (the paper's figure of entropy dropping within words)."""
    data = "\n".join(load_sample("default").texts)[:400_000].encode("utf-8")
    model = ByteNgramModel.train(data, order=4)
    patches = patch_text(model, data[:6000], threshold=2.5)
    assert b"".join(p.data for p in patches) == data[:6000]
    assert all(p.start < p.end for p in patches)
    starts = [p.start for p in patches]
    after_space = sum(1 for s in starts if s and data[s - 1:s] == b" ") / len(starts)
    bytes_after_space = data[:6000].count(b" ") / 6000
    assert after_space > 2 * bytes_after_space


def test_text_is_utf8_bytes_and_a_patch_may_cut_a_character():
    model = ByteNgramModel.train("naïve café ".encode() * 30, order=3)
    patches = patch_text(model, "café", threshold=-1.0)  # every byte its own patch
    assert [p.data for p in patches] == [b"c", b"a", b"f", b"\xc3", b"\xa9"]
    assert patches[3].text == "\ufffd"


@pytest.mark.parametrize("bad, message", [
    (dict(data=b"", order=3), "empty"),
    (dict(data="text", order=3), "bytes, not str"),
    (dict(data=b"x", order=0), "from 1 to"),
    (dict(data=b"x", order=MAX_ORDER + 1), "from 1 to"),
    (dict(data=b"x", order=True), "from 1 to"),
])
def test_bad_training_input_is_a_clear_error(bad, message):
    with pytest.raises(TokenizerError, match=message):
        ByteNgramModel.train(bad["data"], order=bad["order"])


def test_bad_rules_are_clear_errors():
    with pytest.raises(TokenizerError, match="'global' or 'relative'"):
        patch_starts([1.0], threshold=1.0, mode="local")
    with pytest.raises(TokenizerError, match="finite"):
        patch_starts([1.0], threshold=float("nan"))


def test_an_empty_text_has_no_patches_and_unseen_bytes_fall_back_to_uniform():
    model = ByteNgramModel.train(b"aaaa", order=3)
    assert patch_text(model, "", threshold=1.0) == [] and model.entropies(b"").shape == (0,)
    p = model.distributions(b"\xff\xfe")  # bytes the corpus never had, after a context it never had
    assert p[1, 0xFE] == pytest.approx((0 + 1 * (1 / 256)) / (4 + 1))
