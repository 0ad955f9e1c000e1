"""Byte-level BPE behind any split pattern: the kernel's matcher walks a compiled pattern (``PROGRAM``)
or, for a pattern outside that subset, the regex module finds the pieces and the kernel merges them
(``Encoder.encode_split``); an NFC normalizer (Qwen's) is skipped for texts already in NFC. Every
encoding equals the general path's, field for field: o200k, Llama 3, Qwen, Tekken, a pattern that
leaves gaps and one with ``\b``, on hostile texts."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.bpe.kernel import SplitByRegex, kernel_encoder
from tokenizer_core.fast.byte_level import ByteLevelFastPath
from tokenizer_core.io.references import load_reference
from tokenizer_core.kernel.native import available
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.byte_level import ByteLevel
from tokenizer_core.text.pre_tokenizers import Sequence
from tokenizer_core.text.splitting import Split

pytestmark = pytest.mark.skipif(not available(), reason="the compiled kernel is not built")

NAMES = ["o200k_base", "llama3", "qwen", "tekken"]
_PARTS = ["a", "Hello", " world", "'s", "'LL", "123456", "١٢٣", " ", "  ", "\t", "\n", "\r\n", "\n\n ", "é",
          "e\u0301", "Å", "ﬁ", "中文", "日本語", "😀", "👩‍👩‍👧", "\ud800", "<|endoftext|>", "<s>", "[INST]",
          "ǅ", "ß", "İ", "\u00a0", "\u2028", ".,;!?", "$%&", "__init__", "x" * 40]
TEXTS = st.lists(st.sampled_from(_PARTS), max_size=25).map("".join)


@pytest.fixture(scope="module")
def refs() -> dict[str, Tokenizer]:
    out = {name: load_reference(name) for name in NAMES}
    gpt2 = load_reference("gpt2")
    # A pattern leaving gaps (only digits and letter runs match): the gaps are pieces too.
    out["gappy"] = Tokenizer(gpt2.model, pre_tokenizer=ByteLevel(pattern=r"\p{L}+|\d{1,2}"))
    # \b is outside the matcher's subset: the regex module splits, the kernel merges.
    out["word-boundary"] = Tokenizer(gpt2.model, pre_tokenizer=ByteLevel(pattern=r"\b\p{L}+\b|\p{N}+|\s+|."))
    # A tokenizer.json's Sequence of Splits before ByteLevel (digits, CJK runs, the words), a literal
    # Split, and ByteLevel's own regex as one more level: the kernel chains the compiled patterns.
    out["chain"] = Tokenizer(gpt2.model, pre_tokenizer=Sequence([
        Split(r"\p{N}{1,3}", is_regex=True), Split(r"[一-龥\u3040-ゟ゠-ヿ]+", is_regex=True),
        Split(r"[\r\n]+|[^\r\n\p{L}\p{N}]?\p{L}+|\s+(?!\S)|\s+|[^\s\p{L}\p{N}]+", is_regex=True),
        ByteLevel(add_prefix_space=False, use_regex=False)]))
    out["chain-literal"] = Tokenizer(gpt2.model, pre_tokenizer=Sequence([
        Split("'s", is_regex=False), Split(r"\d", is_regex=True), ByteLevel(add_prefix_space=False)]))
    return out


def _general(tok: Tokenizer, text: str):  # noqa: ANN202
    """The general path, behind the same input checks as every encoding call (a lone surrogate
    reads as U+FFFD)."""
    from tokenizer_core.text.input_checks import guarded

    return guarded(tok._trace_text, text, split_special=True, sampling=None, sequence_id=0)[1]


@pytest.mark.parametrize("name", [*NAMES, "gappy", "word-boundary", "chain", "chain-literal"])
def test_the_kernel_takes_every_pattern(refs, name) -> None:
    tok = refs[name]
    encoder = kernel_encoder(tok.pre_tokenizer, tok.model)
    assert isinstance(encoder, SplitByRegex) == (name == "word-boundary") and encoder is not None


@settings(max_examples=150, deadline=None)
@given(text=TEXTS)
def test_fast_encodings_equal_the_general_path(refs, text: str) -> None:
    for name, tok in refs.items():
        assert dataclasses.asdict(tok.encode_sequence(text)) == dataclasses.asdict(_general(tok, text)), (name, text)


def test_chains_the_kernel_cannot_run_take_the_general_path(refs) -> None:
    gpt2 = refs["gappy"].model
    for pre in (Sequence([Split(r"a$", is_regex=True), ByteLevel(use_regex=False)]),  # $ under MULTILINE
                Sequence([Split(r"\d", is_regex=True, behavior="removed"), ByteLevel(use_regex=False)]),
                Sequence([Split(r"\d", is_regex=True), ByteLevel(add_prefix_space=True, use_regex=False)])):
        tok = Tokenizer(gpt2, pre_tokenizer=pre)
        # (a chunk-local chain may still take tokenizer_core.fast.chain's path, which is not the kernel's)
        assert kernel_encoder(pre, gpt2) is None and not isinstance(tok._fast.get(None, pre, gpt2), ByteLevelFastPath)
        for text in ("a1 b\na", "1 2 x", " 1 a\t 3"):
            assert tok.encode(text) == _general(tok, text)


def test_batches_and_long_texts(refs) -> None:
    lines = ["Hello world, it's 2026!", "e\u0301cole et ﬁlms", "中文 😀 123456789", "", "  spaced\tout\n"] * 3
    for name, tok in refs.items():
        batch = tok.encode_batch(lines).encodings
        assert [e.ids for e in batch] == [tok.encode(line).ids for line in lines], name
        # Past the length at which the kernel lets go of the GIL (RELEASE_GIL_CHARS, 2,048 characters in
        # kernels/src/encoder_type.h), twice over. (It was 400 copies, 86,000 characters: under the
        # sanitizers the general path's answer for them took 25 s and checked nothing more.)
        long = " ".join(lines) * 24
        assert len(long) >= 2 * 2048
        assert tok.encode_sequence(long).ids == _general(tok, long).ids, name


def test_a_batch_with_special_tokens_in_some_texts_keeps_the_kernel_for_the_others(monkeypatch) -> None:
    tok = load_reference("tekken")
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    seen: list[int] = []

    class Spy:  # the kernel, counting the texts each batch call is given
        def __init__(self, real) -> None:  # noqa: ANN001
            self.real = real

        def __getattr__(self, name: str):  # noqa: ANN204
            return getattr(self.real, name)

        def encode_batch(self, texts, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN201
            seen.append(len(texts))
            return self.real.encode_batch(texts, *args, **kwargs)

    monkeypatch.setattr(fast, "kernel", Spy(fast.kernel))
    texts = ["plain text", "states_<s>[<t>] = {", "", "more  words\n", "</s>x", "é ü 😀"] * 2
    batch = tok.encode_batch(texts).encodings
    assert seen == [8]  # the four texts with "<s>" or "</s>" go one by one, the other eight in one call
    assert [dataclasses.asdict(e) for e in batch] == [dataclasses.asdict(tok.encode(t)) for t in texts]
