"""ByteLevel without its regex keeps the whole text as one piece: the kernel runs it (a pattern that
matches the whole text) and gives the general path's encoding and ``tokenizers``' ids and offsets."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._texts import real_lines
from tokenizer_core.fast.byte_level import ByteLevelFastPath
from tokenizer_core.io.hf_json import tokenizer_from_hf
from tokenizer_core.kernel import native

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.skipif(not native.available(), reason="the whole-text piece runs in the kernel only")

TEXTS = st.lists(st.sampled_from(["a", "ab", " ", "  ", "\n", "\t", "é", "中文", "😀", "x y", "<s>", "\u0301"]),
                 max_size=30).map("".join)


@pytest.fixture(scope="module")
def pair():  # noqa: ANN201
    from tokenizers import models, pre_tokenizers, trainers

    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(use_regex=False, add_prefix_space=False)
    hf.train_from_iterator(real_lines(600), trainers.BpeTrainer(
        vocab_size=700, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return hf, tokenizer_from_hf(json.loads(hf.to_str()))


def test_the_kernel_path_is_taken(pair) -> None:
    _, tok = pair
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    assert isinstance(fast, ByteLevelFastPath) and fast.kernel is not None


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(TEXTS, max_size=6))
def test_equal_to_the_general_path_and_tokenizers(pair, texts: list[str]) -> None:
    hf, tok = pair
    general = [tok._trace_text(t, split_special=True, sampling=None, sequence_id=0)[1] for t in texts]
    assert [dataclasses.asdict(tok.encode(t)) for t in texts] == [dataclasses.asdict(g) for g in general]
    assert [dataclasses.asdict(e) for e in tok._encode_sequences(texts, threads=2)] == [
        dataclasses.asdict(g) for g in general]
    for text, g in zip(texts, general):
        want = hf.encode(text, add_special_tokens=False)
        assert (g.ids, g.offsets) == (want.ids, [tuple(o) for o in want.offsets]), text


def test_a_long_text_is_one_piece(pair) -> None:
    hf, tok = pair
    text = "\n".join(real_lines(300))
    enc = tok.encode(text)
    assert enc.ids == hf.encode(text, add_special_tokens=False).ids and set(enc.word_ids) == {0}
