"""Mistral's SentencePiece models as named references: ids identical to sentencepiece, line by line."""

from __future__ import annotations

import pytest

from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.io.references import list_references, load_reference, reference_files

spm = pytest.importorskip("sentencepiece")
NAMES = ["mistral_v1", "mistral_v3"]
HOSTILE = ["", " ", "  two  spaces ", "\ttab\nnewline", "naïve café", "🤖👩‍👩‍👧", "<s> typed </s>", "[INST] x [/INST]",
           "x" * 3000, "12345678901234567890", "日本語のテキスト", "مرحبا", "e\u0301\u0302",
           # runs of spaces (the models have pieces of several "▁"): texts are cut before each run
           "def f():\n    return  1", "        deep", "a    b     c", "x \u2581 y\u2581\u2581z", "  \u2581  ", "end   "]


@pytest.mark.parametrize("name", NAMES)
def test_mistral_references_equal_sentencepiece(name):
    if name not in {r.name for r in list_references()}:
        pytest.fail(f"{name} is not listed")
    try:
        files = reference_files(name)
    except Exception as err:  # the package is in requirements.txt; say so if it is missing
        pytest.fail(f"mistral-common is not installed: {err}")
    sp = spm.SentencePieceProcessor(model_file=str(files[0]))
    tok = load_reference(name)
    assert tok.vocab_size == sp.get_piece_size()
    lines = [ln.rstrip("\n") for ln in load_sample("multilingual").lines()] + HOSTILE
    lines += [ln.rstrip("\n") for ln in list(load_sample("default").lines())[:1500]]
    different = [ln for ln in lines if tok.encode(ln, add_special_tokens=False).ids != sp.encode(ln)]
    assert different == []
    ids = sp.encode("Hello, naïve world 🤖")
    assert tok.decode(ids) == sp.decode(ids)
