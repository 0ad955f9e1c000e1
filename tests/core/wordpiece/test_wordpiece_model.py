"""WordPiece encoder: the course's encodings, parity with tokenizers' WordPiece model, traces, files."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models

from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.registry import build
from tokenizer_core.wordpiece.model import WordPiece, read_vocab_txt

# The course's vocabulary after its three merges ("##gs", "hu", "hug"), plus [UNK].
COURSE_VOCAB = ["[UNK]", "b", "h", "p", "##g", "##n", "##s", "##u", "##gs", "hu", "hug"]


def toks(model: WordPiece, word: str) -> list[str]:
    return [t.text for t in model.tokenize(word)]


def test_course_encodings():
    wp = WordPiece({t: i for i, t in enumerate(COURSE_VOCAB)})
    assert toks(wp, "hugs") == ["hug", "##s"]
    assert toks(wp, "bugs") == ["b", "##u", "##gs"]
    assert toks(wp, "mug") == ["[UNK]"]
    assert toks(wp, "bum") == ["[UNK]"]  # "b", "##u" match but "##m" does not: the whole word is unknown


def test_course_implementation_encodings():
    """The course's tokenize() after training to 70 tokens on its four sentences."""
    from tokenizer_core.text.pre_tokenizers import BertPreTokenizer
    from tokenizer_core.wordpiece.trainer import train_wordpiece

    corpus = [
        "This is the Hugging Face Course.",
        "This chapter is about tokenization.",
        "This section shows several tokenizer algorithms.",
        "Hopefully, you will be able to understand how they are trained and generate tokens.",
    ]
    pre = BertPreTokenizer()
    vocab = train_wordpiece(Counter(w for line in corpus for w in pre.words(line)), vocab_size=70).vocab
    wp = WordPiece(vocab)
    assert toks(wp, "Hugging") == ["Hugg", "##i", "##n", "##g"]
    assert toks(wp, "HOgging") == ["[UNK]"]
    text = "This is the Hugging Face course!"
    assert [t for w in pre.words(text) for t in toks(wp, w)] == [
        "Th", "##i", "##s", "is", "th", "##e", "Hugg", "##i", "##n", "##g", "Fac", "##e", "c", "##o", "##u", "##r",
        "##s", "##e", "[UNK]",
    ]


def test_offsets_are_character_positions_in_the_piece():
    wp = WordPiece({"[UNK]": 0, "é": 1, "##t": 2, "##é": 3})
    assert [(t.text, t.offsets, t.id) for t in wp.tokenize("été")] == [
        ("é", (0, 1), 1), ("##t", (1, 2), 2), ("##é", (2, 3), 3)]


def test_too_long_words_become_unk():
    wp = WordPiece({"[UNK]": 0, "a": 1, "##a": 2}, max_input_chars_per_word=4)
    assert toks(wp, "aaaa") == ["a", "##a", "##a", "##a"]
    assert [(t.text, t.offsets) for t in wp.tokenize("aaaaa")] == [("[UNK]", (0, 5))]
    assert wp.trace("aaaaa").unk_reason.startswith("the word has 5 characters")


def test_trace_lists_the_longest_match_attempts():
    wp = WordPiece({t: i for i, t in enumerate(COURSE_VOCAB)})
    t = wp.trace("hugs")
    assert [(a.candidate, a.start, a.end, a.found) for a in t.attempts] == [
        ("hugs", 0, 4, False), ("hug", 0, 3, True), ("##s", 3, 4, True)]
    assert [x.text for x in t.tokens] == ["hug", "##s"] and t.unk_reason is None
    t = wp.trace("bum")
    assert [a.candidate for a in t.attempts] == ["bum", "bu", "b", "##um", "##u", "##m"]
    assert [x.text for x in t.tokens] == ["[UNK]"]
    assert t.unk_reason == "no vocabulary entry matches '##m' at position 2"


def test_empty_piece_gives_no_tokens():
    wp = WordPiece({"[UNK]": 0})
    assert wp.tokenize("") == [] and wp.trace("").tokens == ()


# -- parity with tokenizers' WordPiece model ------------------------------------------------------

pieces = st.text(alphabet="abcé中", min_size=1, max_size=3)


@settings(max_examples=120, deadline=None)
@given(st.sets(pieces, max_size=12), st.sets(pieces, max_size=12),
       st.lists(st.text(alphabet="abcé中d", min_size=1, max_size=12), min_size=1, max_size=8),
       st.integers(3, 12))
def test_matches_tokenizers_wordpiece(starts, conts, words, max_chars):
    tokens = ["[UNK]"] + sorted(starts) + sorted("##" + c for c in conts)
    vocab = {t: i for i, t in enumerate(tokens)}
    ours = WordPiece(vocab, max_input_chars_per_word=max_chars)
    ref = HFTokenizer(hf_models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=max_chars))
    for word in words:
        enc = ref.encode(word, add_special_tokens=False)
        got = ours.tokenize(word)
        assert [t.text for t in got] == enc.tokens
        assert [t.id for t in got] == enc.ids
        assert [t.offsets for t in got] == enc.offsets
        assert ours.trace(word).tokens == tuple(got)


def test_vocab_txt_reads_like_tokenizers(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes("[UNK]\r\nhug\n##s \nhug\n\n中\n".encode())
    assert read_vocab_txt(path) == hf_models.WordPiece.read_file(str(path))


@pytest.mark.parametrize("content, fragment", [
    (b"", "empty"), (b"\xff\xfeab", "not UTF-8"), (b"a\x00b", "binary"),
])
def test_bad_vocab_files_are_explained(tmp_path, content, fragment):
    path = tmp_path / "vocab.txt"
    path.write_bytes(content)
    with pytest.raises(FormatError, match=fragment):
        read_vocab_txt(path)


def test_missing_vocab_file(tmp_path):
    with pytest.raises(FormatError, match="cannot read"):
        read_vocab_txt(tmp_path / "nope.txt")


@pytest.mark.parametrize("vocab, kwargs, fragment", [
    ({"a": 0}, {}, "unknown token"),
    ({"[UNK]": 0, "a": 0}, {}, "share id"),
    ({"[UNK]": -1}, {}, "token ids must be whole numbers >= 0"),
    ({"[UNK]": 0}, {"max_input_chars_per_word": 0}, "max_input_chars_per_word"),
    ({"[UNK]": 0}, {"special_tokens": ("[CLS]",)}, "not in the vocabulary"),
])
def test_bad_models_are_explained(vocab, kwargs, fragment):
    with pytest.raises(TokenizerError, match=fragment):
        WordPiece(vocab, **kwargs)


def test_round_trips_through_own_format_and_hf_json():
    vocab = {t: i for i, t in enumerate(COURSE_VOCAB)}
    wp = WordPiece(vocab, max_input_chars_per_word=7, special_tokens=("[UNK]",))
    again = build("model", json.loads(json.dumps(wp.to_dict())))
    assert isinstance(again, WordPiece) and again.to_dict() == wp.to_dict()
    ref = HFTokenizer.from_str(json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": None, "post_processor": None, "decoder": None, "model": wp.to_hf(),
    }))
    for word in ["hugs", "bugs", "mug", "hugshugs"]:
        assert ref.encode(word).tokens == toks(wp, word)
    assert WordPiece.from_hf(wp.to_hf()).get_vocab() == vocab
    with pytest.raises(FormatError):
        WordPiece.from_hf({"type": "BPE"})


def test_vocabulary_lookups():
    wp = WordPiece({t: i for i, t in enumerate(COURSE_VOCAB)})
    assert wp.vocab_size == len(COURSE_VOCAB)
    assert wp.token_to_id("hug") == 10 and wp.id_to_token(10) == "hug"
    assert wp.token_to_id("zzz") is None and wp.id_to_token(99) is None
    got = wp.get_vocab()
    got["x"] = 1
    assert wp.token_to_id("x") is None  # get_vocab returns a copy
