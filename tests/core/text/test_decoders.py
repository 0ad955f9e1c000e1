"""Decoders agree with tokenizers' decoders."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tokenizers import decoders as hf

from tokenizer_core.registry import build
from tokenizer_core.text import decoders as ours
from tokenizer_core.text.pre_tokenizers import ByteLevel

CASES = [
    ["▁Hey", "▁", "▁friend"],
    ["hug", "##s", "[UNK]", ",", "do", "n", "'", "t", ".", "##x", "?"],
    ["lo", "w</w>", "est</w>"],
    ["Ġhello", "Ã", "Ġ", "Ġ"],
    ["a", "<0xE2>", "<0x82>", "<0xAC>", "<0xE2>", "b"],
    [],
]
PAIRS = [
    (ours.MetaspaceDecoder(), hf.Metaspace()),
    (ours.WordPieceDecoder(), hf.WordPiece()),
    (ours.WordPieceDecoder(cleanup=False), hf.WordPiece(cleanup=False)),
    (ours.BPESuffixDecoder(), hf.BPEDecoder()),
    (ours.ByteLevelDecoder(), hf.ByteLevel()),
    (ours.ByteFallbackDecoder(), hf.ByteFallback()),
    (ours.JoinDecoder(""), hf.Fuse()),
    (ours.SequenceDecoder([ours.ByteFallbackDecoder(), ours.MetaspaceDecoder()]),
     hf.Sequence([hf.ByteFallback(), hf.Metaspace()])),
]


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: repr(p[0]))
def test_same_as_tokenizers(pair):
    mine, theirs = pair
    for tokens in CASES:
        assert mine.decode(tokens) == theirs.decode(tokens), tokens


@given(st.text(max_size=60))
def test_byte_level_round_trip(text):
    pieces = ByteLevel().words(text)
    assert ours.ByteLevelDecoder().decode(pieces) == text


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: repr(p[0]))
def test_round_trip_through_dict(pair):
    mine, _ = pair
    assert build("decoder", mine.to_dict()) == mine
