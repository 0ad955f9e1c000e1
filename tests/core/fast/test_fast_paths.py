"""The chunked fast path (tokenizer_core/fast/chunked.py) gives the general path's encoding, field for
field, on hostile texts: every kind of white space and control character, combining marks that
reorder, final sigma, CJK, lone surrogates, added tokens."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._texts import real_lines
from tokenizer_core.fast.chunked import ChunkedFastPath
from tokenizer_core.options import TrainOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.normalizers import NFKC, Lowercase
from tokenizer_core.text.pre_tokenizers import Metaspace, Whitespace, WhitespaceSplit, WordSplit
from tokenizer_core.training import train

_ALPHABET = list("aAbΣσςé\u0301\u0327\u0323中文!,.-") + [
    " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x85", "\u00a0", "\u2028", "\u3000", "\u200b", "\u00ad",
    "\x00", "\ufeff", "\U0001F600", "[SEP]", "[MASK]", "ΑΣ ", "hug", "##s"]
TEXTS = st.lists(st.sampled_from(_ALPHABET), max_size=40).map("".join)


def _lines() -> list[str]:
    return [line + "\n" for line in real_lines(400)] + ["ΑΣ σς Ωμέγα 中文字 ÉCOLE naïve\n"] * 20


@pytest.fixture(scope="module")
def tokenizers() -> dict[str, Tokenizer]:
    lines = _lines()
    bert = train("wordpiece", lines, options=TrainOptions(vocab_size=600, lowercase=True))
    cased = train("wordpiece", lines, options=TrainOptions(vocab_size=600))
    bpe = train("bpe", lines, options=TrainOptions(vocab_size=500, pre_tokenizer="whitespace"))
    word_split = train("bpe", lines, options=TrainOptions(vocab_size=500, pre_tokenizer="word-split", lowercase=True))
    uni = train("unigram", lines, options=TrainOptions(vocab_size=400, special_tokens=("<unk>",), unk_token="<unk>"))
    uni.pre_tokenizer, uni.normalizer = WhitespaceSplit(), Lowercase()  # a Unigram over plain words
    return {"bert-uncased": bert, "bert-cased": cased, "bpe-whitespace": bpe, "bpe-word-split": word_split,
            "unigram-words": uni}


def _general(tok: Tokenizer, text: str):  # noqa: ANN202
    return tok._trace_text(text, split_special=True, sampling=None, sequence_id=0)[1]


@pytest.mark.parametrize("name", ["bert-uncased", "bert-cased", "bpe-whitespace", "bpe-word-split", "unigram-words"])
def test_the_fast_path_is_taken(tokenizers, name) -> None:
    tok = tokenizers[name]
    assert isinstance(tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model), ChunkedFastPath)


def test_stages_that_look_across_spaces_are_not_chunked(tokenizers) -> None:
    tok = tokenizers["unigram-words"]
    for normalizer, pre in ((NFKC(), Whitespace()), (None, Metaspace()), (Lowercase(), WordSplit())):
        fast = ChunkedFastPath.build(normalizer=normalizer, pre_tokenizer=pre, model=tok.model)
        assert (fast is not None) == (type(normalizer) is Lowercase and type(pre) is WordSplit)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_fast_encodings_equal_the_general_path(tokenizers, text: str) -> None:
    for name, tok in tokenizers.items():
        fast, general = tok.encode_sequence(text), _general(tok, text)
        assert dataclasses.asdict(fast) == dataclasses.asdict(general), (name, text)


def test_real_lines_and_pairs_with_special_tokens(tokenizers) -> None:
    tok = tokenizers["bert-uncased"]
    lines = [line.rstrip("\n") for line in _lines()[:300]]
    for line in lines:
        assert dataclasses.asdict(tok.encode_sequence(line)) == dataclasses.asdict(_general(tok, line))
    batch = tok.encode_batch(lines[:50]).encodings
    assert [e.ids for e in batch] == [tok.encode(line).ids for line in lines[:50]]
    assert batch[0].tokens[0] == "[CLS]" and batch[0].tokens[-1] == "[SEP]"
    pair = tok.encode(lines[0], lines[1])
    assert pair.type_ids.count(1) == len(_general(tok, lines[1]).ids) + 1  # the second text and its [SEP]


def test_added_tokens_take_the_general_path(tokenizers) -> None:
    from tokenizer_core.text.added_vocabulary import AddedToken

    bert = tokenizers["bert-uncased"]
    for added in (AddedToken("hug me", normalized=True), AddedToken("<x y>", special=True, normalized=False)):
        tok = Tokenizer(bert.model, normalizer=bert.normalizer, pre_tokenizer=bert.pre_tokenizer,
                        added_tokens=[added])
        for text in ("Please HUG ME now", "Please HUG   ME now", "a <x y> b", "plain words, no added token"):
            assert dataclasses.asdict(tok.encode_sequence(text)) == dataclasses.asdict(_general(tok, text)), text
    tok = Tokenizer(bert.model, normalizer=bert.normalizer, pre_tokenizer=bert.pre_tokenizer,
                    added_tokens=[AddedToken("hug me", normalized=True)])
    assert [t for t in tok.encode_sequence("Please HUG ME now").tokens if " " in t] == ["hug me"]


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(TEXTS, max_size=12))
def test_batches_equal_the_general_path_text_by_text(tokenizers, texts: list[str]) -> None:
    """encode_batch assembles rows in the kernel's chunk table (on threads): each row is the text's own."""
    for name, tok in tokenizers.items():
        rows = tok._encode_sequences(texts, threads=2)
        assert [dataclasses.asdict(r) for r in rows] == [dataclasses.asdict(_general(tok, t)) for t in texts], name


def test_batches_with_added_tokens_and_long_chunks(tokenizers) -> None:
    """Rows holding an added token take the general path; a chunk too long for the table (over 1,024
    characters) is encoded by Python inside the kernel's row; word ids count on across it."""
    from tokenizer_core.text.added_vocabulary import AddedToken

    bert = tokenizers["bert-uncased"]
    tok = Tokenizer(bert.model, normalizer=bert.normalizer, pre_tokenizer=bert.pre_tokenizer,
                    added_tokens=[AddedToken("<x y>", special=True, normalized=False)])
    long_word = "hugs," * 300
    texts = ["a <x y> b", "plain words", f"before {long_word} after words", "", "<x y>", long_word]
    rows = tok._encode_sequences(texts * 3, threads=2)
    assert [dataclasses.asdict(r) for r in rows] == [dataclasses.asdict(_general(tok, t)) for t in texts * 3]
    assert rows[2].word_ids[-1] == _general(tok, texts[2]).word_ids[-1] > 300
