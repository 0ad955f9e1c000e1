"""Tokenization metrics on hand-computed examples."""

from __future__ import annotations

import pytest

from tokenizer_core.analysis.metrics import (
    compute_metrics,
    content_tokens,
    ratio,
)
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding, Token


def encoding(tokens: list[tuple[int, str]], *, special: list[int] | None = None, mask: list[int] | None = None) -> Encoding:
    n = len(tokens)
    return Encoding(
        ids=[i for i, _ in tokens],
        tokens=[t for _, t in tokens],
        offsets=[(0, 0)] * n,
        type_ids=[0] * n,
        attention_mask=mask or [1] * n,
        special_tokens_mask=special or [0] * n,
        word_ids=[None] * n,
        sequence_ids=[0] * n,
    )


def test_token_lists_hand_computed():
    texts = ["low lower", "newest"]  # 3 words, 9 + 6 = 15 chars, 15 bytes
    tokens = [["low", "low", "er"], ["new", "est"]]
    m = compute_metrics(tokens, texts, vocab_size=20)
    assert (m.texts, m.tokens, m.words, m.chars, m.bytes) == (2, 5, 3, 15, 15)
    assert m.fertility == pytest.approx(5 / 3)
    assert m.chars_per_token == 3.0
    assert m.bytes_per_token == 3.0
    assert m.unk_tokens == 0 and m.unk_rate == 0.0
    assert m.distinct_tokens == 4  # low, er, new, est
    assert m.vocab_usage == pytest.approx(4 / 20)


def test_bytes_differ_from_chars_for_non_ascii():
    m = compute_metrics([["日本", "語"]], ["日本語"])  # 3 chars, 9 UTF-8 bytes, 1 word
    assert (m.chars, m.bytes, m.words) == (3, 9, 1)
    assert m.chars_per_token == 1.5
    assert m.bytes_per_token == 4.5
    assert m.fertility == 2.0
    assert m.vocab_usage is None  # no vocabulary size given


def test_special_tokens_are_not_counted_but_unk_is():
    enc = encoding(
        [(101, "[CLS]"), (7, "hug"), (1, "[UNK]"), (102, "[SEP]"), (0, "[PAD]")],
        special=[1, 0, 0, 1, 1],
        mask=[1, 1, 1, 1, 0],
    )
    m = compute_metrics([enc], ["hug 🐶dog"], vocab_size=4, unk_token="[UNK]")
    assert m.tokens == 2
    assert m.words == 2  # hug, dog
    assert m.unk_tokens == 1 and m.unk_rate == 0.5
    assert m.distinct_tokens == 2 and m.vocab_usage == 0.5
    assert m.fertility == 1.0


def test_unk_by_id_and_distinct_by_id():
    a = Encoding.from_tokens([Token(3, "x", (0, 1)), Token(3, "x", (1, 2)), Token(9, "?", (2, 3))])
    m = compute_metrics([a], ["xx?"], unk_token=None, unk_id=9)
    assert (m.tokens, m.unk_tokens, m.distinct_tokens) == (3, 1, 2)


def test_zero_denominators_give_none():
    m = compute_metrics([[]], ["!!!"], vocab_size=0)
    assert m.tokens == 0 and m.words == 0
    assert m.fertility is None and m.chars_per_token is None and m.bytes_per_token is None
    assert m.unk_rate is None and m.vocab_usage is None
    empty = compute_metrics([], [])
    assert empty.texts == 0 and empty.fertility is None
    assert ratio(0, 5) == 0.0


def test_bad_inputs_are_explained():
    with pytest.raises(TokenizerError, match="one per text"):
        compute_metrics([["a"]], ["a", "b"])
    with pytest.raises(TokenizerError, match="single string"):
        compute_metrics([["a"]], "a")
    with pytest.raises(TokenizerError, match="list of tokens"):
        compute_metrics(["ab"], ["ab"])
    with pytest.raises(TokenizerError, match="vocab_size"):
        compute_metrics([["a"]], ["a"], vocab_size=-1)


def test_content_tokens():
    enc = encoding([(1, "[CLS]"), (5, "a")], special=[1, 0])
    assert content_tokens(enc) == [(5, "a")]
    assert content_tokens(("a", "b")) == [(None, "a"), (None, "b")]


def test_with_hugging_face_word_level_tokenizer():
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"hug": 0, "pug": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    texts = ["hug pug bun hug", "pun"]
    encoded = [tok.encode(t) for t in texts]
    # Hand-computed: hug pug [UNK] hug | [UNK]  -> 5 tokens, 2 unknown, 3 distinct of 3.
    by_string = compute_metrics([e.tokens for e in encoded], texts, vocab_size=tok.get_vocab_size())
    ours = [encoding(list(zip(e.ids, e.tokens)), special=e.special_tokens_mask) for e in encoded]
    by_id = compute_metrics(ours, texts, vocab_size=3, unk_id=2)
    for m in (by_string, by_id):
        assert (m.tokens, m.words, m.unk_tokens, m.distinct_tokens) == (5, 5, 2, 3)
        assert m.unk_rate == 0.4 and m.fertility == 1.0 and m.vocab_usage == 1.0
        assert m.chars_per_token == pytest.approx(18 / 5)
