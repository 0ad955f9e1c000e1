"""The BERT pipeline around WordPiece: trainer options, special tokens, templates, saving."""

from __future__ import annotations

from collections import Counter

import pytest

import tokenizer_core.wordpiece.model  # noqa: F401  (registers the wordpiece trainer)
from tests._builders import train_bert_wordpiece
from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.vocab_txt import bert_tokenizer
from tokenizer_core.options import TrainOptions, WordPieceOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.pre_tokenizers import ByteLevel, Whitespace
from tokenizer_core.training import train
from tokenizer_core.wordpiece.trainer import BERT_SPECIAL_TOKENS

LINES = ["Hugging Face hugs pugs, puns and buns.\n", "The pug hugs the bun!\n"] * 5


def test_registered_trainer_keeps_the_trace_on_the_model():
    tok = train("wordpiece", LINES, options=TrainOptions(vocab_size=60, lowercase=True, top_k=3))
    trace = tok.model.training
    assert trace.vocab == tok.get_vocab()
    assert list(tok.get_vocab())[:5] == list(BERT_SPECIAL_TOKENS)
    assert all(len(m.runner_ups) <= 3 for m in trace.merges)
    assert tok.encode("hugs").tokens[0] == "[CLS]"


def test_custom_special_tokens_without_cls_and_sep_give_no_template():
    tok, _ = train_bert_wordpiece(LINES, options=TrainOptions(vocab_size=50, special_tokens=("<pad>",),
                                                              unk_token="<unk>"))
    assert list(tok.get_vocab())[:2] == ["<unk>", "<pad>"]  # the unknown token is added first
    assert tok.post_processor is None
    enc = tok.encode("pug zebra")
    assert "<unk>" in enc.tokens and enc.tokens[0] != "[CLS]"


def test_other_pre_tokenizer_and_prefix():
    opts = TrainOptions(vocab_size=50, pre_tokenizer="whitespace-split", continuing_subword_prefix="@@")
    tok, trace = train_bert_wordpiece(LINES, options=opts)
    assert "@@u" in trace.vocab and not any(t.startswith("##") for t in trace.vocab)
    assert type(tok.pre_tokenizer).__name__ == "WhitespaceSplit"
    assert tok.decode(tok.encode("pugs, puns").ids) == "pugs, puns"


def test_max_input_chars_per_word_option():
    tok, _ = train_bert_wordpiece(LINES, options=TrainOptions(vocab_size=60, wordpiece=WordPieceOptions(max_input_chars_per_word=4)))
    assert tok.encode("Hugging", add_special_tokens=False).tokens == ["[UNK]"]  # 7 characters > 4
    with pytest.raises(TokenizerError, match="max_input_chars_per_word"):
        WordPieceOptions(max_input_chars_per_word="x")


def test_empty_corpus_is_explained():
    with pytest.raises(TokenizerError, match="no words"):
        train_bert_wordpiece([" \n", "\t\n"], options=TrainOptions(vocab_size=60))


def test_template_needs_cls_and_sep():
    with pytest.raises(TokenizerError, match=r"\[CLS\]"):
        bert_tokenizer({"[UNK]": 0, "[SEP]": 1, "a": 2})
    tok = bert_tokenizer({"[UNK]": 0, "a": 1}, add_template=False)
    assert tok.encode("a a").tokens == ["a", "a"]


def test_special_tokens_in_the_input_stay_whole_and_decode_skips_them():
    vocab = {t: i for i, t in enumerate([*BERT_SPECIAL_TOKENS, "mask", "##ed", "a", "."])}
    tok = bert_tokenizer(vocab)
    enc = tok.encode("a [MASK] masked.")
    assert enc.tokens == ["[CLS]", "a", "[MASK]", "mask", "##ed", ".", "[SEP]"]
    # As tokenizers: the [MASK] typed in the text is not marked (only the template's tokens are).
    assert enc.special_tokens_mask == [1, 0, 0, 0, 0, 0, 1]
    assert enc.word_ids == [None, 0, 1, 2, 2, 3, None]
    assert tok.decode(enc.ids) == "a masked."
    assert tok.decode(enc.ids, skip_special_tokens=False) == "[CLS] a [MASK] masked. [SEP]"


def test_own_format_round_trip(tmp_path):
    tok, _ = train_bert_wordpiece(LINES, options=TrainOptions(vocab_size=70, lowercase=True))
    path = tmp_path / "wp.json"
    tok.save(path)
    again = Tokenizer.load(path)
    for text in ["Hugging pugs!", "The bun.", "ünknown wörds", ""]:
        assert again.encode(text, "pair text").ids == tok.encode(text, "pair text").ids
    assert again.model.special_tokens == tok.model.special_tokens


@pytest.mark.parametrize("name, ours", [("whitespace", Whitespace), ("byte-level", ByteLevel)])
def test_counting_matches_tokenizers_pre_tokenizers(name, ours):
    """Whitespace takes the chunked fast path; ByteLevel keeps spaces in its pieces and counts line by line."""
    from tokenizers import pre_tokenizers as hf_pre

    ref = {"whitespace": hf_pre.Whitespace(), "byte-level": hf_pre.ByteLevel(add_prefix_space=False)}[name]
    lines = ["a b  a, don't\n", "b\tc  é中\n", "  lead and trail  \n"]
    got = count_words(lines, normalizer=None, pre_tokenizer=ours())
    expected = Counter(w for line in lines for w, _ in ref.pre_tokenize_str(line))
    assert list(got.items()) == list(expected.items())
