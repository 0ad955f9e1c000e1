"""Parity on real text: our BERT WordPiece pipeline against tokenizers, line by line, and exported files."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders as hf_decoders
from tokenizers import models as hf_models
from tokenizers import normalizers as hf_normalizers
from tokenizers import pre_tokenizers as hf_pre
from tokenizers import processors as hf_processors
from tokenizers import trainers as hf_trainers

from tests._builders import train_bert_wordpiece
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.io.vocab_txt import bert_tokenizer, load_bert_vocab
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.normalizers import BertNormalizer
from tokenizer_core.text.pre_tokenizers import BertPreTokenizer
from tokenizer_core.training import TrainOptions


def lines_of(name: str) -> list[str]:
    return [line for line in load_sample(name).lines() if line.strip()]


@pytest.fixture(scope="module")
def default_lines() -> list[str]:
    return lines_of("default")


@pytest.fixture(scope="module")
def multilingual_lines() -> list[str]:
    return lines_of("multilingual")


@pytest.fixture(scope="module")
def uncased(default_lines):
    """Our trainer on the default corpus, uncased, 4k vocabulary."""
    tok, _ = train_bert_wordpiece(default_lines, options=TrainOptions(vocab_size=4000, lowercase=True))
    return tok


def reference(vocab: dict[str, int], *, lowercase: bool) -> HFTokenizer:
    ref = HFTokenizer(hf_models.WordPiece(vocab, unk_token="[UNK]"))
    ref.normalizer = hf_normalizers.BertNormalizer(lowercase=lowercase)
    ref.pre_tokenizer = hf_pre.BertPreTokenizer()
    ref.post_processor = hf_processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    ref.decoder = hf_decoders.WordPiece()
    # as in BERT's own tokenizer.json: the five specials are added tokens (kept whole, skipped by decode)
    ref.add_special_tokens([t for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]") if t in vocab])
    return ref


def assert_same_encodings(ours, ref: HFTokenizer, lines: list[str]) -> None:
    expected = ref.encode_batch(lines)
    mismatches = []
    for line, exp in zip(lines, expected):
        got = ours.encode(line)
        if (got.tokens, got.ids, got.offsets, got.type_ids) != (exp.tokens, exp.ids, exp.offsets, exp.type_ids):
            mismatches.append((line[:80], got.tokens[:12], exp.tokens[:12]))
    assert not mismatches, f"{len(mismatches)} of {len(lines)} lines differ, e.g. {mismatches[:3]}"


def test_uncased_parity_on_default_and_multilingual(uncased, default_lines, multilingual_lines):
    ref = reference(uncased.get_vocab(), lowercase=True)
    assert_same_encodings(uncased, ref, multilingual_lines)
    assert_same_encodings(uncased, ref, default_lines)


def test_cased_parity_with_a_vocabulary_from_tokenizers(default_lines, multilingual_lines):
    """Same vocabulary, cased: here the vocabulary comes from tokenizers' own WordPieceTrainer."""
    hf = HFTokenizer(hf_models.WordPiece(unk_token="[UNK]"))
    hf.normalizer = hf_normalizers.BertNormalizer(lowercase=False)
    hf.pre_tokenizer = hf_pre.BertPreTokenizer()
    trainer = hf_trainers.WordPieceTrainer(vocab_size=3000,
                                           special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    hf.train_from_iterator(default_lines + multilingual_lines, trainer=trainer)
    vocab = hf.get_vocab()
    ours = bert_tokenizer(vocab, lowercase=False)
    ref = reference(vocab, lowercase=False)
    assert_same_encodings(ours, ref, multilingual_lines)
    assert_same_encodings(ours, ref, default_lines)


def test_pairs_and_decoding_match(uncased, multilingual_lines, default_lines):
    ref = reference(uncased.get_vocab(), lowercase=True)
    sample = multilingual_lines + default_lines[:300] + ["a [MASK] in text", "[SEP]"]
    for a, b in zip(sample, sample[1:]):
        got, exp = uncased.encode(a, b), ref.encode(a, b)
        assert (got.tokens, got.ids, got.type_ids, got.offsets) == (exp.tokens, exp.ids, exp.type_ids, exp.offsets)
    for line in sample + ["x [MASK] y", "[CLS][SEP]"]:
        ids = ref.encode(line).ids
        assert uncased.decode(ids) == ref.decode(ids)
        assert uncased.decode(ids, skip_special_tokens=False) == ref.decode(ids, skip_special_tokens=False)


def test_exported_tokenizer_json_encodes_identically(uncased, tmp_path, multilingual_lines, default_lines):
    path = tmp_path / "tokenizer.json"
    uncased.save_hf(path)
    loaded = HFTokenizer.from_file(str(path))
    sample = multilingual_lines + default_lines[:2000] + ["[CLS] already marked [SEP] [MASK] text", "Ünïcödé!"]
    assert_same_encodings(uncased, loaded, sample)
    for line in sample[:200]:
        enc = loaded.encode(line)
        assert loaded.decode(enc.ids) == uncased.decode(enc.ids)
        assert enc.special_tokens_mask == uncased.encode(line).special_tokens_mask
    pair = loaded.encode("first text", "second one")
    assert pair.type_ids == uncased.encode("first text", "second one").type_ids


def test_vocab_txt_import_matches_tokenizers_bert(uncased, tmp_path, multilingual_lines):
    vocab = uncased.get_vocab()
    path = tmp_path / "vocab.txt"
    path.write_text("".join(t + "\n" for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])), encoding="utf-8")
    ours = load_bert_vocab(path, lowercase=True)
    ref = reference(hf_models.WordPiece.read_file(str(path)), lowercase=True)
    assert_same_encodings(ours, ref, multilingual_lines)
    cased = load_bert_vocab(path, lowercase=False)
    assert_same_encodings(cased, reference(ref.get_vocab(), lowercase=False), multilingual_lines)


hostile = st.text(alphabet=st.sampled_from(list("ab Cé\u0301\t\n\r\x00\x1c\x85\u3000中文,.!") + ["\ufffd", "🙂"]),
                  max_size=40)


@settings(max_examples=150, deadline=None)
@given(st.lists(hostile, min_size=1, max_size=5), st.booleans())
def test_word_counting_matches_tokenizers_pipeline(lines, lowercase):
    """Our fast chunked counting equals normalizing and pre-tokenizing each line with tokenizers."""
    got = count_words(lines, normalizer=BertNormalizer(lowercase=lowercase), pre_tokenizer=BertPreTokenizer())
    norm = hf_normalizers.BertNormalizer(lowercase=lowercase)
    pre = hf_pre.BertPreTokenizer()
    expected = Counter(w for line in lines for w, _ in pre.pre_tokenize_str(norm.normalize_str(line)))
    assert list(got.items()) == list(expected.items())  # same counts, same first-appearance order
