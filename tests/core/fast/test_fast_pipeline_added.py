"""Byte-level BPE texts holding added tokens keep the kernel's packed columns
(``ByteLevelFastPath._packed`` in tokenizer_core/fast/byte_level.py): one kernel call per segment
between added tokens, the added tokens' rows in between, one :class:`PackedEncoding`. Every field
equals the general path's (``Tokenizer._trace_text``) and the list path's (the same fast path made to
build Python lists, and without the kernel): special and non-special tokens, tokens past the kernel's
token list or matched with the white space they strip, at the start, the end, side by side, repeated,
with ``split_special`` on and off, around unicode."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.fast.byte_level import ByteLevelFastPath
from tokenizer_core.fast.columns import ColumnBuilder
from tokenizer_core.fast.packed import PackedEncoding
from tokenizer_core.io.references import load_reference
from tokenizer_core.kernel.native import available
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.added_vocabulary import AddedToken
from tokenizer_core.text.byte_level import ByteLevel
from tokenizer_core.text.input_checks import guarded
from tokenizer_core.types import Encoding

pytestmark = pytest.mark.skipif(not available(), reason="the compiled kernel is not installed")

_FIELDS = [f.name for f in dataclasses.fields(Encoding)]

#: Added to GPT-2: past its 50,257 tokens (<|im_start|>), matched in the normalized text ("New World",
#: "hello": the latter a model token too), taking white space in (" pad", "hello"'s lstrip twin "<w>").
_EXTRA = [AddedToken("<|im_start|>", special=True), AddedToken("<|im_end|>", special=True),
          AddedToken("New World", normalized=True), AddedToken(" pad", lstrip=True, rstrip=True),
          AddedToken("hello", normalized=True), AddedToken("<w>", special=True, lstrip=True)]

_PARTS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "New World", " pad", "  pad  ", "hello", " hello",
          " <w>", "\t<w> ", "<s>", "</s>", "[INST]", "[/INST]", "a", " world", "'s", "123", " ", "  ", "\n",
          "\r\n", "é", "e\u0301", "中文", "😀", "👩‍👩‍👧", "\u00a0", "ß", "İ", ".,!?", "<|", "|>", "<", "\ud800", "\udfff"]

#: Texts holding added tokens where the cutting is delicate.
CASES = ["<s>", "<s>hello", "hello<s>", "<s><s>", "<s></s>[INST]", "a<s>b</s>c", "é<s>😀</s>中文",
         "<|endoftext|>", "x<|endoftext|><|im_start|>user\nhi<|im_end|>\n",
         "<|im_start|><|im_start|>", "a New World of pad  pad x", "New WorldNew World", "hello hello,hello",
         "pad", "  <w>  <w>", "<w>", "x <w> y\t<w>", "😀 <|im_start|> 中文 New World é <|endoftext|>",
         "<|endoftext|>" * 3, " ", "<", "no added token here"]


def _gpt2_with(pre_tokenizer: object = None) -> Tokenizer:
    """GPT-2 with more added tokens (a new Tokenizer: the shared reference is left as it is)."""
    ref = load_reference("gpt2")
    return Tokenizer(ref.model, pre_tokenizer=pre_tokenizer or ref.pre_tokenizer, decoder=ref.decoder,
                     added_tokens=[*(t for t, _ in ref.added.entries), *_EXTRA])


@pytest.fixture(scope="module")
def toks() -> dict[str, Tokenizer]:
    return {
        "tekken": load_reference("tekken"),
        "gpt2+": _gpt2_with(),
        # \b is outside the kernel's pattern subset: the regex module splits (SplitByRegex.encode).
        "gpt2+regex": _gpt2_with(ByteLevel(pattern=r"\b\p{L}+\b|\p{N}+|\s+|.")),
    }


def _fast(tok: Tokenizer) -> ByteLevelFastPath:
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    assert fast is not None and fast.kernel is not None
    return fast


def _fields(enc: Encoding) -> dict[str, object]:
    return {f: getattr(enc, f) for f in _FIELDS}


def _general(tok: Tokenizer, text: str, split_special: bool) -> Encoding:
    return guarded(tok._trace_text, text, split_special=split_special, sampling=None, sequence_id=1)[1]


def _lists(tok: Tokenizer, text: str, split_special: bool, *, kernel: bool) -> Encoding:
    """The list path: the fast path with the packed call refused, with the kernel's lists or without it."""
    fast = _fast(tok)
    real_packed, real_kernel = fast._packed, fast.kernel
    fast._packed = lambda *args: None  # an instance attribute hides the method
    if not kernel:
        fast.kernel = None
    try:
        enc = guarded(fast.encode, text, added=tok.added, split_special=split_special, sequence_id=1)
    finally:
        del fast._packed
        fast.kernel = real_kernel
    assert fast._packed == real_packed and type(enc) is Encoding
    return enc


def _check(tok: Tokenizer, text: str, split_special: bool = True) -> PackedEncoding:
    enc = tok.encode_sequence(text, sequence_id=1, split_special_tokens=split_special)
    assert type(enc) is PackedEncoding, text
    fields = _fields(enc)
    assert fields == _fields(_general(tok, text, split_special)), text
    assert fields == _fields(_lists(tok, text, split_special, kernel=True)), text
    assert fields == _fields(_lists(tok, text, split_special, kernel=False)), text
    return enc


@pytest.mark.parametrize("name", ["tekken", "gpt2+", "gpt2+regex"])
@pytest.mark.parametrize("split_special", [True, False])
def test_texts_with_added_tokens_equal_the_general_and_list_paths(toks, name, split_special) -> None:
    for text in CASES:
        _check(toks[name], text, split_special)


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(st.sampled_from(_PARTS), min_size=1, max_size=16), split_special=st.booleans())
def test_any_mix_of_added_tokens_and_text(toks, parts, split_special) -> None:
    for name in ("tekken", "gpt2+"):
        _check(toks[name], "".join(parts), split_special)


def test_each_segment_is_one_packed_kernel_call(toks, monkeypatch) -> None:
    fast = _fast(toks["tekken"])
    calls: list[tuple[str, int, int, bool]] = []

    class Spy:  # the kernel, recording each encode call
        def __init__(self, real: object) -> None:
            self.real = real

        def __getattr__(self, name: str) -> object:
            return getattr(self.real, name)

        def encode(self, text: str, base: int, word: int, *, packed: bool = False, threads: int = 1) -> object:
            calls.append((text, base, word, packed))
            assert threads >= 1
            return self.real.encode(text, base, word, packed=packed, threads=threads)

    monkeypatch.setattr(fast, "kernel", Spy(fast.kernel))
    enc = toks["tekken"].encode_sequence("ab cd<s>é f</s></s>x")
    assert type(enc) is PackedEncoding
    # word ids go on after each added token; offsets start at each segment's place in the text
    assert calls == [("ab cd", 0, 0, True), ("é f", 8, 3, True), ("x", 19, 7, True)]
    assert enc.word_ids == list(range(8))
    assert enc.offsets == [(0, 2), (2, 5), (5, 8), (8, 9), (9, 11), (11, 15), (15, 19), (19, 20)]


def test_added_tokens_past_the_kernels_list_or_with_white_space_keep_their_text(toks) -> None:
    tok = toks["gpt2+"]
    strs = _fast(tok).kernel.encode("", 0, 0, packed=True)[2]
    im_start, hello = tok.token_to_id("<|im_start|>"), tok.token_to_id("hello")
    assert im_start >= len(strs) and strs[hello] == "hello"
    enc = _check(tok, "<|im_start|>a pad  hello <w>")
    assert enc.tokens == ["<|im_start|>", "a", " pad  ", "hello", " <w>"]
    assert enc.ids[0] == im_start and enc.ids[3] == hello


def test_only_added_tokens(toks) -> None:
    enc = _check(toks["tekken"], "<s>[INST]</s>")
    assert enc.tokens == ["<s>", "[INST]", "</s>"] and enc.offsets == [(0, 3), (3, 9), (9, 13)]


def test_copies_pickles_and_mutations_read_as_plain_encodings(toks) -> None:
    enc = toks["gpt2+"].encode_sequence("hi <|im_start|> pad x")
    plain = _lists(toks["gpt2+"], "hi <|im_start|> pad x", True, kernel=True)
    plain.sequence_ids = plain.type_ids = [0] * len(plain.ids)
    assert type(enc) is PackedEncoding and enc == plain
    assert pickle.loads(pickle.dumps(enc)) == plain and dataclasses.replace(enc) == plain
    enc = toks["gpt2+"].encode_sequence("hi <|im_start|> pad x")
    enc.ids.insert(0, 0)  # the caller's list changes; the tokens still come from the encoding's columns
    assert enc.tokens == ["hi", "Ġ", "<|im_start|>", " pad ", "x"]


def test_a_long_text_with_one_special_token(toks) -> None:
    # The benchmark's case: past the length at which the kernel lets go of the GIL, "<s>" once.
    tok = toks["tekken"]
    line = "The quick brown fox, 1234 jumps — über den faulen Hund. 中文 😀\n"
    text = line * 2000 + "<s>" + line * 2000
    enc = tok.encode_sequence(text, sequence_id=1)
    assert type(enc) is PackedEncoding
    assert _fields(enc) == _fields(_lists(tok, text, True, kernel=True))
    assert enc.ids == tok.encode_sequence(line * 2000).ids + [1] + tok.encode_sequence(line * 2000).ids


def test_batches_with_added_tokens_give_packed_encodings(toks) -> None:
    tok = toks["tekken"]
    texts = ["plain", "a<s>b", "</s>", "é [INST] x"]
    batch = tok.encode_batch(texts).encodings
    assert all(type(e) is PackedEncoding for e in batch)
    assert [_fields(e) for e in batch] == [_fields(_general(tok, t, True)) | {"type_ids": [0] * len(e),
                                                                           "sequence_ids": [0] * len(e)}
                                           for t, e in zip(texts, batch)]


def test_an_id_past_the_int32_column_takes_the_list_path(toks, monkeypatch) -> None:
    monkeypatch.setattr(ColumnBuilder, "id_max", 0)  # every added id "too large"
    tok = toks["tekken"]
    enc = tok.encode_sequence("a<s>b", sequence_id=1)
    assert type(enc) is Encoding and _fields(enc) == _fields(_general(tok, "a<s>b", True))
    assert type(tok.encode_sequence("<unk>a")) is PackedEncoding  # id 0 still fits
