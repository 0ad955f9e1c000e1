"""The split rules said in words are what each tokenizer does: each rule checked against the
tokenizer's own output on the probe it names, for the references and the baselines."""

from __future__ import annotations

import pytest

from tokenizer_core.analysis.compare import granularity_tokenizer
from tokenizer_core.analysis.rules import split_rules
from tokenizer_core.io.references import load_reference


@pytest.mark.parametrize("name, expected", [
    ("gpt2", ["digits as learned (no fixed grouping)", "a word keeps its leading space",
              "case kept (Hello and hello are different tokens)", "any character: text is read as bytes",
              "contractions split off ('s, 't, 're)"]),
    ("llama3", ["digits in groups of up to 3, from the left"]),
    ("qwen", ["single digits"]),
    ("mistral_v1", ["single digits", "a character it lacks falls back to its bytes (<0x..> tokens)"]),
])
def test_the_references_rules(name, expected):
    rules = split_rules(load_reference(name))
    assert all(e in rules for e in expected), rules
    # o200k keeps contractions on their word; cl100k splits them off
    assert ("contractions split off ('s, 't, 're)" in split_rules(load_reference("o200k_base"))) is False


def test_the_baselines_rules():
    lines = ["Hello hello don't\n"]
    word, char, byte = (granularity_tokenizer(k, lines) for k in ("word", "char", "byte"))
    assert split_rules(word)[:2] == ["digits it lacks become unknown tokens", "spaces are separate from words"]
    assert not any("case" in r or "lowercases" in r for r in split_rules(granularity_tokenizer("word", ["x y\n"])))
    assert "a character it lacks becomes the unknown token" in split_rules(char)
    assert split_rules(byte)[0] == "single digits" and "any character: text is read as bytes" in split_rules(byte)


def test_lowercasing_and_an_added_bos_are_said():
    import json

    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    from tokenizer_core.io.hf_json import tokenizer_from_hf

    vocab = {"[UNK]": 0, "<s>": 1, "hello": 2, "hi": 3}
    theirs = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    theirs.normalizer = normalizers.Lowercase()
    theirs.pre_tokenizer = pre_tokenizers.Whitespace()
    theirs.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    rules = split_rules(tokenizer_from_hf(json.loads(theirs.to_str())))
    assert "lowercases the text" in rules and rules[-1] == "adds <s> at the start"
