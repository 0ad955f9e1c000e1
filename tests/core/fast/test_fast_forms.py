"""Byte-level BPE behind a Unicode form (Qwen's NFC, Claude's NFKC) or an empty normalizer Sequence
(DeepSeek's files) on the fast path: texts in the form go to the kernel, the others are normalized
first and mapped back, and both equal the general path field for field; a batch without special
tokens skips a post-processor that would leave every row as it is."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests._texts import TRICKY
from tokenizer_core.batch.batching import finish_encoding
from tokenizer_core.batch.builtin_processors import (
    BertProcessing,
    ByteLevelProcessing,
    RobertaProcessing,
    SequenceProcessing,
)
from tokenizer_core.batch.templates import TemplateProcessing
from tokenizer_core.io.references import load_reference
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text import normalizers
from tokenizer_core.types import Encoding, Token

ODD = ["ﬁne café e\u0301 ① Ｆｕｌｌ ｗｉｄｔｈ ½ ㎏", "\u1100\u1161\u11a8 한국어 ", "x\u0327\u0301 q\u0307\u0323",
       " \u212b\u2126 Å\n\n\u0344\n\u0301x", "ﬁ" * 40 + "\r\n e\u0301\n"]


def _gpt2() -> Tokenizer:
    """GPT-2 of our own to change (load_reference hands every caller the one shared object)."""
    ref = load_reference("gpt2")
    return Tokenizer(ref.model, normalizer=ref.normalizer, pre_tokenizer=ref.pre_tokenizer, decoder=ref.decoder,
                     post_processor=ref.post_processor, added_tokens=[t for t, _ in ref.added.entries])


def _general(tok, text):
    return tok._trace_text(text, split_special=True, sampling=None, sequence_id=0)[1]


@pytest.mark.parametrize("normalizer", [normalizers.NFC(), normalizers.NFKC(), normalizers.NFD(), normalizers.NFKD(),
                                        normalizers.Sequence([]), normalizers.Sequence([normalizers.NFKC()])],
                         ids=["NFC", "NFKC", "NFD", "NFKD", "empty-sequence", "sequence-NFKC"])
def test_a_unicode_form_keeps_byte_level_bpe_on_the_fast_path_and_equal_to_the_general_one(normalizer):
    tok = _gpt2()
    tok.normalizer = normalizer
    report = tok.explain_fast_path()
    assert report.chosen.startswith("byte-level BPE")
    texts = TRICKY + ODD + ["<|endoftext|>ﬁ", "\n".join(ODD)]
    for text in texts:
        assert tok.encode(text) == _general(tok, text), text
    rows = tok.encode_batch(texts, add_special_tokens=False).encodings
    assert rows == [_general(tok, t) for t in texts]


_FORM_TEXT = st.lists(st.sampled_from(["a", "e\u0301", "ﬁ", "\u1100\u1161", "\n", " ", "①", "Å", "\u0344", "x\u0327\u0301",
                                        "\r\n", "é", "\u212b"]), max_size=12).map("".join)


@given(text=_FORM_TEXT, form=st.sampled_from(["NFC", "NFD", "NFKC", "NFKD"]), cuts=st.lists(st.integers(0, 40), max_size=8))
def test_the_array_alignment_of_a_form_is_the_normalized_strings(text, form, cuts):
    import numpy as np

    from tokenizer_core.text.normalized import NormalizedString, original_spans, unit_alignment

    norm = getattr(normalizers, form)()
    ns = norm.normalize(text)
    out, starts, ends = unit_alignment(text, norm.units(text))
    assert out == ns.text and list(zip(starts.tolist(), ends.tolist())) == ns.align
    assert NormalizedString.from_str(text).transform(norm.units(text)) == ns
    points = sorted(min(c, len(out)) for c in cuts)
    spans = list(zip(points, points[1:])) + [(p, p) for p in points]  # every span between cuts, and empty ones
    first, last = original_spans(starts, ends, len(text), np.array([a for a, _ in spans], dtype=np.int64),
                                 np.array([b for _, b in spans], dtype=np.int64))
    assert list(zip(first.tolist(), last.tolist())) == [ns.original_span(a, b) for a, b in spans]


def test_a_long_text_outside_the_form_maps_its_offsets_back_as_the_general_path():
    tok = _gpt2()
    tok.normalizer = normalizers.NFKC()
    text = "\n".join(ODD * 30 + TRICKY)
    enc = tok.encode(text)
    assert enc == _general(tok, text)
    assert type(enc).__name__ == "PackedEncoding"  # the columns kept, offsets replaced in them


def test_two_unicode_forms_or_another_normalizer_take_another_path():
    tok = _gpt2()
    tok.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.NFKD()])
    assert not (tok.explain_fast_path().chosen or "").startswith("byte-level")
    tok.normalizer = normalizers.Lowercase()
    assert "neither none nor one Unicode form" in dict(tok.explain_fast_path().refused)[
        "byte-level BPE (GPT-2's family, Llama 3, Qwen)"]


# "a hi!": the second token's offsets hold its space (what trimming processors cut).
A = Encoding.from_tokens([Token(7, "a", (0, 1)), Token(5, "Ġhi", (1, 4)), Token(6, "!", (4, 5))], word_ids=[0, 1, 2])
PROCESSORS = [
    (BertProcessing(), True),
    (RobertaProcessing(trim_offsets=True), False),
    (RobertaProcessing(trim_offsets=False), True),
    (ByteLevelProcessing(trim_offsets=True), False),
    (ByteLevelProcessing(trim_offsets=False), True),
    (TemplateProcessing.gpt(bos=("<s>", 1)), True),
    (TemplateProcessing(single="$A:1", pair="$A:0 $B:1", special_tokens={}), False),
    (SequenceProcessing([ByteLevelProcessing(trim_offsets=False), TemplateProcessing.gpt(bos=("<s>", 1))]), True),
    (SequenceProcessing([ByteLevelProcessing(trim_offsets=True), TemplateProcessing.gpt(bos=("<s>", 1))]), False),
]


@pytest.mark.parametrize("processor,unchanged", PROCESSORS, ids=lambda p: repr(p)[:40])
def test_single_unchanged_says_exactly_when_a_text_without_specials_comes_out_as_it_went_in(processor, unchanged):
    assert processor.single_unchanged() is unchanged
    out = finish_encoding(A, None, post_processor=processor, add_special_tokens=False)
    assert (out == A) is unchanged  # a processor that says "changed" does change this text


def test_a_batch_without_specials_is_what_finishing_each_row_gives():
    tok = _gpt2()
    bos = ("<|endoftext|>", tok.token_to_id("<|endoftext|>"))
    # Llama 3.1's processors: ByteLevel with offsets untrimmed, then a template adding a bos token.
    tok.post_processor = SequenceProcessing([ByteLevelProcessing(trim_offsets=False), TemplateProcessing.gpt(bos=bos)])
    assert tok.post_processor.single_unchanged()
    texts = TRICKY[:6]
    batch = tok.encode_batch(texts, add_special_tokens=False).encodings
    assert batch == [finish_encoding(tok.encode_sequence(t), None, post_processor=tok.post_processor,
                                     add_special_tokens=False) for t in texts]
    assert tok.encode_batch(texts).encodings[0].ids[0] == bos[1]  # with special tokens: the template's
    tok.post_processor = ByteLevelProcessing(trim_offsets=True)  # changes rows: each is finished
    assert tok.encode_batch(texts, add_special_tokens=False).encodings == [
        finish_encoding(tok.encode_sequence(t), None, post_processor=tok.post_processor, add_special_tokens=False)
        for t in texts]


@given(words=st.lists(st.text(alphabet="ab\n <", min_size=1, max_size=6), min_size=1, max_size=12),
       text=st.text(alphabet="ab\n <x", max_size=60))
def test_the_added_token_trie_matches_what_longest_first_alternation_matches(words, text):
    """Added tokens are found with a trie regex (Gemma's 6,415 tokens: 170x faster); it finds exactly
    what the alternation of the tokens, longest first, finds."""
    import re

    from tokenizer_core.text.added_vocabulary import trie_pattern

    plain = re.compile("|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)))
    assert [m.span() for m in re.finditer(trie_pattern(words), text)] == [m.span() for m in plain.finditer(text)]
    assert trie_pattern(["a" * 300, "a"]) == "a" * 300 + "|a"  # too deep for a trie: the alternation


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_an_added_token_that_only_the_normalized_text_holds_takes_the_general_path(form):
    """"é" as an added token matched in the raw text (normalized=False): "e\u0301" does not hold it,
    its NFC form does. The general path cuts raw added tokens out before normalizing, so the fast path
    must not cut one out of the normalized text: it hands such a text back."""
    from tokenizer_core.text.added_vocabulary import AddedToken

    ref = load_reference("gpt2")
    tok = Tokenizer(ref.model, normalizer=getattr(normalizers, form)(), pre_tokenizer=ref.pre_tokenizer,
                    decoder=ref.decoder, post_processor=ref.post_processor,
                    added_tokens=[*(t for t, _ in ref.added.entries), AddedToken("é", normalized=False)])
    assert tok.explain_fast_path().chosen.startswith("byte-level BPE")
    for text in ("cafe\u0301 au lait", "e\u0301", "café e\u0301\n" * 3):
        assert tok.encode(text) == _general(tok, text), text
    assert tok.encode("cafe\u0301").ids == _general(tok, "cafe\u0301").ids
