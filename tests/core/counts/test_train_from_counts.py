"""Count once, train from the counts: the same tokenizer and trace as training on the lines.

The app's BPE page counts a corpus once per normalizer and pre-tokenizer
(tokenizer_core.training.word_counting) and hands the counts to train_bpe_from_counts or
train_bert_wordpiece_from_counts; these tests hold that path to the one that counts inside.
"""

from __future__ import annotations

import pytest

from tests._texts import real_lines
from tokenizer_core.bpe.trainer import train_bpe, train_bpe_from_counts
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import BpeOptions, TrainOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.training import MAX_DISTINCT_WORDS, word_counting
from tokenizer_core.wordpiece.bert import train_bert_wordpiece, train_bert_wordpiece_from_counts

_PROBE = "Lowest newer WIDEST héllo wörld, 1,000 tokens! 中文"


def _lines() -> list[str]:
    return [line + "\n" for line in real_lines(300)]


def _same_tokenizer(a: Tokenizer, b: Tokenizer) -> None:
    assert a.to_dict() == b.to_dict()
    assert a.encode(_PROBE).tokens == b.encode(_PROBE).tokens


@pytest.mark.parametrize("options", [
    TrainOptions(vocab_size=400),
    TrainOptions(vocab_size=500, lowercase=True, pre_tokenizer="whitespace-split", top_k=3),
    TrainOptions(num_merges=60, end_of_word_suffix="</w>", bpe=BpeOptions(tie_break="first", suffix_as_symbol=True)),
    TrainOptions(vocab_size=600, byte_level=True, top_k=0),
    TrainOptions(vocab_size=600, byte_level=True, pre_tokenizer="cl100k-regex", min_frequency=3),
], ids=["whitespace", "lowercase-split", "first-ties", "byte-level-kernel", "cl100k"])
def test_bpe_from_counts_equals_training_on_lines(options: TrainOptions) -> None:
    parts, result = train_bpe(_lines(), options=options, workers=1)
    counts = word_counting("bpe", options=options).count(_lines(), workers=1)
    parts2, result2 = train_bpe_from_counts(counts, options=options)
    assert result2.merges == result.merges and result2.vocab == result.vocab
    assert list(result2.trace) == list(result.trace)
    assert result2.trace.top_words(50) == result.trace.top_words(50)
    assert result2.stop_reason == result.stop_reason and parts2.metadata == parts.metadata
    _same_tokenizer(Tokenizer.from_parts(parts), Tokenizer.from_parts(parts2))


@pytest.mark.parametrize("options", [
    TrainOptions(vocab_size=300),
    TrainOptions(vocab_size=400, lowercase=True, top_k=2),
    TrainOptions(vocab_size=400, pre_tokenizer="whitespace", continuing_subword_prefix="@@"),
], ids=["bert", "lowercase", "whitespace-prefix"])
def test_wordpiece_from_counts_equals_training_on_lines(options: TrainOptions) -> None:
    parts, training = train_bert_wordpiece(_lines(), options=options)
    counts = word_counting("wordpiece", options=options).count(_lines())
    parts2, training2 = train_bert_wordpiece_from_counts(counts, options=options)
    assert training2.vocab == training.vocab and training2.merges == training.merges
    assert training2.stop_reason == training.stop_reason
    _same_tokenizer(Tokenizer.from_parts(parts), Tokenizer.from_parts(parts2))


def test_the_key_names_what_the_counts_depend_on() -> None:
    key = lambda model, **kw: word_counting(model, options=TrainOptions(**kw)).key  # noqa: E731
    assert key("bpe") == key("bpe", vocab_size=123, top_k=0)  # training settings do not change the counts
    assert key("bpe") != key("bpe", lowercase=True)
    assert key("bpe", byte_level=True) != key("bpe", byte_level=True, pre_tokenizer="cl100k-regex")
    assert key("bpe") != key("wordpiece")
    # The same stages count the same words whichever trainer asks (the limits are equal today).
    assert MAX_DISTINCT_WORDS["bpe"] == MAX_DISTINCT_WORDS["wordpiece"]
    assert key("wordpiece", pre_tokenizer="whitespace") != key("bpe", pre_tokenizer="whitespace")  # BERT normalizer


def test_counting_keeps_the_word_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(MAX_DISTINCT_WORDS, "bpe", 3)
    counting = word_counting("bpe", options=TrainOptions())
    assert counting.count(["a b c\n", "a b\n"]) == {"a": 2, "b": 2, "c": 1}
    with pytest.raises(TokenizerError, match="more than 3 distinct words"):
        counting.count(["a b c d\n"])


def test_empty_counts_and_other_models_are_refused() -> None:
    with pytest.raises(TokenizerError, match="no words"):
        train_bpe_from_counts({}, options=TrainOptions())
    with pytest.raises(TokenizerError, match="no words"):
        train_bert_wordpiece_from_counts({}, options=TrainOptions())
    with pytest.raises(TokenizerError, match="not 'unigram'"):
        word_counting("unigram", options=TrainOptions())
