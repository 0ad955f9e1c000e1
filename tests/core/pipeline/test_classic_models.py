"""Vocabulary, word-level, character-level and byte-level models: golden cases and round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenizer_core.classic.byte import ByteModel
from tokenizer_core.classic.char import CharLevel
from tokenizer_core.classic.vocabulary import Vocabulary
from tokenizer_core.classic.word import WordLevel
from tokenizer_core.errors import TokenizerError, UnknownTokenError
from tokenizer_core.training import TrainOptions, train

SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
HF_COURSE = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def _lines(counts: dict[str, int]) -> list[str]:
    return [f"{w}\n" for w, n in counts.items() for _ in range(n)]


def test_vocabulary_ids_for_sennrich_counts():
    v = Vocabulary.build(SENNRICH)
    assert [v.id_to_token(i) for i in range(len(v))] == [
        "[PAD]", "[UNK]", "[BOS]", "[EOS]", "newest", "low", "widest", "lower"]


def test_vocabulary_ties_break_alphabetically():
    v = Vocabulary.build(HF_COURSE)
    # hugs and pug both occur 5 times: alphabetical order decides.
    assert v.tokens()[4:] == ["pun", "hug", "hugs", "pug", "bun"]


def test_vocabulary_min_frequency_and_max_size():
    v = Vocabulary.build(HF_COURSE, min_frequency=5, max_size=6)
    assert v.tokens() == ["[PAD]", "[UNK]", "[BOS]", "[EOS]", "pun", "hug"]
    with pytest.raises(TokenizerError, match="cannot hold"):
        Vocabulary.build(HF_COURSE, max_size=2)


def test_custom_special_tokens():
    v = Vocabulary.build({"a": 1}, special_tokens=["<unk>", "<s>"], unk_token="<unk>")
    assert v.token_to_id("<unk>") == 0 and v.token_to_id("a") == 2
    with pytest.raises(TokenizerError, match="not among the special tokens"):
        Vocabulary.build({"a": 1}, special_tokens=["<s>"], unk_token="<unk>")


def test_word_level_trained_on_sennrich_marks_oov_as_unk():
    tok = train("word", _lines(SENNRICH), options=TrainOptions())
    enc = tok.encode("low lowest newest")
    assert enc.tokens == ["low", "[UNK]", "newest"]
    assert enc.ids == [5, 1, 4]
    assert enc.offsets == [(0, 3), (4, 10), (11, 17)]


def test_word_level_uses_punctuation_aware_split():
    tok = train("word", ["GPT-4 costs $0.01/token.\n"], options=TrainOptions())
    assert tok.encode("GPT-4 costs $0.01/token.").tokens == [
        "GPT", "-", "4", "costs", "$", "0", ".", "01", "/", "token", "."]


def test_word_level_lowercase_and_vocab_size():
    tok = train("word", ["The the THE cat\n"], options=TrainOptions(lowercase=True, vocab_size=5))
    assert tok.vocab_size == 5
    assert tok.encode("THE Cat").tokens == ["the", "[UNK]"]


def test_char_level_unseen_characters_become_unk():
    tok = train("char", ["abc abc\n"], options=TrainOptions())
    enc = tok.encode("cab!")
    assert enc.tokens == ["c", "a", "b", "[UNK]"]
    assert enc.offsets == [(0, 1), (1, 2), (2, 3), (3, 4)]


@given(st.text(max_size=50))
def test_char_level_round_trip_on_any_text(text):
    tok = train("char", [text or "x"], options=TrainOptions())
    if text:
        assert tok.decode(tok.encode(text).ids) == text


@given(st.text(max_size=50))
def test_byte_level_round_trip_and_offsets_on_any_text(text):
    tok = train("byte", [], options=TrainOptions())
    enc = tok.encode(text)
    assert len(enc) == len(text.encode("utf-8"))
    assert tok.decode(enc.ids) == text
    for tid, (s, e) in zip(enc.ids, enc.offsets):
        assert 0 <= s < e <= len(text)
        assert tid - 4 in text[s:e].encode("utf-8")


def test_byte_model_has_256_bytes_after_specials():
    m = ByteModel()
    assert m.vocab_size == 260
    assert m.id_to_token(4 + 32) == "Ġ"


def test_models_refuse_broken_vocabularies():
    with pytest.raises(TokenizerError, match="missing"):
        WordLevel({"a": 0}, unk_token="[UNK]")
    with pytest.raises(TokenizerError, match="without gaps"):
        CharLevel({"[UNK]": 0, "a": 5})


def test_unknown_text_without_unknown_token_is_its_own_error_type():
    with pytest.raises(UnknownTokenError, match="no unknown token"):
        WordLevel({"a": 0}, unk_token=None).tokenize("b")
    assert [t.text for t in WordLevel({"a": 0}, unk_token=None).tokenize("a")] == ["a"]


def test_empty_corpus_is_a_clear_error():
    with pytest.raises(TokenizerError, match="no words"):
        train("word", ["   \n"], options=TrainOptions())
    with pytest.raises(TokenizerError, match="unknown model"):
        train("nope", ["a"], options=TrainOptions())


def test_bad_options_are_refused():
    with pytest.raises(TokenizerError, match="positive"):
        TrainOptions(vocab_size=0)
    with pytest.raises(TokenizerError, match="absurdly"):
        TrainOptions(vocab_size=10**12)
