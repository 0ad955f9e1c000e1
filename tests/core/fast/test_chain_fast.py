"""The chunked fast path of local pre-tokenizer chains (tokenizer_core/fast/chain.py) gives the general
path's encoding, field for field, and tokenizers' own, on hostile texts; chains that may look across
a chunk boundary are refused (each refused chain here is shown to give a wrong encoding if chunked)."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
import tokenizers
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tokenizers import models, trainers
from tokenizers import pre_tokenizers as hf_pre

from tests._texts import real_lines
from tokenizer_core.fast.chain import LocalChainFastPath
from tokenizer_core.fast.chunked import ChunkedFastPath
from tokenizer_core.fast.split import SplitFastPath
from tokenizer_core.io.hf_components import pre_tokenizer_from_hf
from tokenizer_core.io.hf_json import tokenizer_from_hf
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.normalizers import (
    NFC,
    NFD,
    NFKC,
    NFKD,
    BertNormalizer,
    Lowercase,
    Prepend,
    Replace,
    Strip,
    StripAccents,
)
from tokenizer_core.text.normalizers import Sequence as NSequence
from tokenizer_core.text.pre_tokenizers import (
    BertPreTokenizer,
    ByteLevel,
    Metaspace,
    Punctuation,
    Regex,
    Sequence,
    Whitespace,
    WhitespaceSplit,
    WordSplit,
)
from tokenizer_core.text.splitting import BEHAVIORS, Digits, Split

# Digits of other scripts and numbers (٣ ½), punctuation of other scripts (， ¿), white space the chunk
# rules do not cut at (NBSP, ideographic space, vertical tab), literal "▁", characters whose lowercase
# is longer, combining marks, CJK (BertNormalizer pads it with spaces), a control character it drops.
_ALPHABET = list("aAb1٣½,-!，¿▁ΣİéṩǅZ中\x00\u0301") + [
    " ", "  ", "   ", "\t", "\n", "\r\n", "\x0b", "\u00a0", "\u3000", "▁▁", "a1,b", "hi", "ab2"]
# ...and for the normalizers: NFKC maps EN SPACE, DIAERESIS (" \u0308"), ACUTE, "ﬁ" and NBSP to text with
# spaces or letters; Hangul jamo compose; marks after a space or a tab; final sigma; "ab" (a Replace).
_ALPHABET += ["\u2002", "\u00a8", "\u00b4", "\ufb01", "\u1100", "\u1161", "\u11a8", "ΟΣ", " \u0308", "\t\u0301",
              "\u0344", "A\u030a", "ς"]
TEXTS = st.lists(st.sampled_from(_ALPHABET), max_size=16).map("".join)
_HOSTILE = ["", " ", "   ", "a", " a", "a ", "  a  b  ", "▁a ▁", " ▁▁ a▁b ", "1,2 ,3", "x\t\ty\n z", "\n a",
            "a-b -c- d", "٣½ ¿hola? ，", "Σ İ ǅ", "中文 字", "\x00 a\x00"]

_RUNS = [lambda: Digits(individual_digits=True), lambda: Digits(individual_digits=False)]
#: A run of one character long enough for many segmentations of (float-)equal score.
_LONG_RUN = re.compile(r"(.)\1{99,}", re.S)
_RUNS += [lambda b=b: Punctuation(behavior=b) for b in BEHAVIORS]
_RUNS += [lambda b=b, i=i: Split("-", behavior=b, invert=i) for b in BEHAVIORS for i in (False, True)]
_RUNS += [lambda b=b, i=i: Split(r"\d+|[,¿-]", is_regex=True, behavior=b, invert=i) for b in BEHAVIORS
          for i in (False, True)]
_WORDS_RE = r"\w+|[^\w\s]+"  # tokenizers' Whitespace, written as a Split
_DROPPERS = [Whitespace, WhitespaceSplit, WordSplit, BertPreTokenizer,
             lambda: Split(_WORDS_RE, is_regex=True, behavior="removed", invert=True),
             lambda: Split(r"\s+", is_regex=True, behavior="removed")]
_CUTTERS = [lambda s=s: Metaspace(prepend_scheme=s) for s in ("always", "first", "never")]
_CUTTERS += [lambda b=b: Split(" ", behavior=b) for b in ("removed", "isolated", "contiguous", "merged_with_next")]
_CUTTERS += [lambda: Split(" ", behavior="isolated", invert=True)]
_AFTER = [lambda s=s, p=p: Metaspace(prepend_scheme=s, split=p) for s in ("always", "first", "never")
          for p in (True, False)]
_AFTER += [lambda: ByteLevel(add_prefix_space=True), lambda: Split(r"\w+", is_regex=True), lambda: Regex(r"a+"),
           lambda: Punctuation(behavior="merged_with_next"), lambda: Digits(individual_digits=True)]


def _hf_corpus() -> list[str]:
    return real_lines(300) + ["٣½ ¿hola? ，", "Σ İ ǅ 中文 字 ▁▁ a▁b", "x\t\ty\n z 1,2 ,3 a-b -c- d"] * 3


def _train(model, trainer) -> tokenizers.Tokenizer:
    """A tokenizers model trained on the bench's chain (Digits + Punctuation + Metaspace)."""
    tok = tokenizers.Tokenizer(model)
    tok.pre_tokenizer = hf_pre.Sequence([hf_pre.Digits(individual_digits=True), hf_pre.Punctuation(),
                                         hf_pre.Metaspace()])
    tok.train_from_iterator(_hf_corpus(), trainer)
    return tok


@pytest.fixture(scope="module")
def trained() -> dict[str, tokenizers.Tokenizer]:
    return {
        "bpe": _train(models.BPE(), trainers.BpeTrainer(vocab_size=400, show_progress=False)),
        "wordpiece": _train(models.WordPiece(unk_token="[UNK]"),
                            trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[UNK]"], show_progress=False)),
        "unigram": _train(models.Unigram(), trainers.UnigramTrainer(vocab_size=300, unk_token="<unk>",
                                                                    special_tokens=["<unk>"], show_progress=False)),
    }


@pytest.fixture(scope="module")
def ours(trained) -> dict[str, Tokenizer]:
    return {name: tokenizer_from_hf(json.loads(hf.to_str())) for name, hf in trained.items()}


def _general(tok: Tokenizer, text: str):  # noqa: ANN202
    return tok._trace_text(text, split_special=True, sampling=None, sequence_id=0, rng=None)[1]


def _fast(fast: LocalChainFastPath, tok: Tokenizer, text: str):  # noqa: ANN202
    return fast.encode(text, added=tok.added, split_special=True, sequence_id=0)


def _same(fast: LocalChainFastPath, tok: Tokenizer, texts: list[str]) -> None:
    for text in texts:
        assert dataclasses.asdict(_fast(fast, tok, text)) == dataclasses.asdict(_general(tok, text)), text


# Normalizers proven chunk-local (tokenizer_core/fast/locality.py); the second list may write spaces.
_KEEP_SPACES = [None, Lowercase(), NFC(), NFD(), StripAccents(), Replace("ab", "x▁"),
                NSequence([NFD(), StripAccents(), Lowercase()])]
_MAKE_SPACES = [NFKC(), NFKD(), NSequence([NFKC(), Lowercase()]), NSequence([NFKD(), StripAccents()])]


@st.composite
def _chains(draw: st.DrawFn) -> tuple[object, object, str]:
    """A chain the module docstring proves local: run splitters, a cutter, anything; a normalizer;
    the chunk rule it must get."""
    before = [draw(st.sampled_from(_RUNS))() for _ in range(draw(st.integers(0, 2)))]
    dropper = draw(st.booleans())
    cut = draw(st.sampled_from(_DROPPERS if dropper else _CUTTERS))()
    after = [draw(st.sampled_from(_AFTER))() for _ in range(draw(st.integers(0, 2)))]
    stages = [*before, cut, *after]
    pre = stages[0] if len(stages) == 1 and draw(st.booleans()) else Sequence(stages)
    weak = type(cut) is Split and cut.behavior == "contiguous"  # a run of spaces kept whole
    normalizer = draw(st.sampled_from(_KEEP_SPACES + ([BertNormalizer()] if dropper else [])
                                      + ([] if weak and not dropper else _MAKE_SPACES)))
    return pre, normalizer, "words" if dropper else "spaces"


@settings(max_examples=120, deadline=None)
@given(chain=_chains(), name=st.sampled_from(["bpe", "wordpiece", "unigram"]),
       texts=st.lists(TEXTS, min_size=1, max_size=3))
def test_local_chains_equal_the_general_path(ours, chain, name: str, texts: list[str]) -> None:
    pre, normalizer, rule = chain
    model = ours[name].model
    tok = Tokenizer(model, normalizer=normalizer, pre_tokenizer=pre)
    fast = LocalChainFastPath.build(normalizer=normalizer, pre_tokenizer=pre, model=model)
    assert fast is not None and fast.chunk_rule == rule and fast.count_words
    _same(fast, tok, texts + texts[::-1])  # again, from the cache, and with first chunks met elsewhere


@pytest.mark.parametrize("scheme", ["always", "first", "never"])
@pytest.mark.parametrize("dropper", [False, True])
def test_hostile_texts_and_the_first_chunk(ours, scheme: str, dropper: bool) -> None:
    """Metaspace after the cut (words: a chunk's "▁" depends on whether it begins the text, so
    "a a" must not reuse the first chunk's entry) and as the cutter (spaces)."""
    pre = Sequence([WhitespaceSplit(), Metaspace(prepend_scheme=scheme)] if dropper else
                   [Digits(individual_digits=True), Punctuation(), Metaspace(prepend_scheme=scheme)])
    model = ours["bpe"].model
    tok = Tokenizer(model, pre_tokenizer=pre)
    fast = LocalChainFastPath.build(normalizer=None, pre_tokenizer=pre, model=model)
    assert fast.chunk_rule == ("words" if dropper else "spaces")
    _same(fast, tok, ["a a a", " a a", "a\na a", *_HOSTILE, "a a a"])
    first = _fast(fast, tok, "is is" if dropper else "is,is")
    assert first.tokens.count("▁is") == {"always": 2, "first": 1, "never": 0}[scheme]
    assert first.word_ids[-1] == (1 if dropper else 2)


def test_entries_for_a_compiled_driver(ours) -> None:
    """entry(): offsets relative to the chunk, word ids relative to its first piece, first chunks apart."""
    model = ours["bpe"].model
    words = LocalChainFastPath.build(normalizer=None, pre_tokenizer=Sequence([WhitespaceSplit(), Metaspace(
        prepend_scheme="first")]), model=model)
    lead, later = words.entry("is", first=True)[1], words.entry("is", first=False)[1]
    assert words.first_apart and lead[0].startswith("▁") and not any("▁" in t for t in later)
    bench = LocalChainFastPath.build(normalizer=None, pre_tokenizer=Sequence([
        Digits(individual_digits=True), Punctuation(), Metaspace()]), model=model)
    ids, tokens, starts, ends, word_ids, pieces = bench.entry(" x1,", first=False)
    assert (starts[0], ends[-1], word_ids[0], word_ids[-1], pieces) == (0, 4, 0, 2, 3)
    assert bench.entry(" x1,", first=True) is bench.entry(" x1,", first=False)  # one cache: no "first" stage


def test_the_chunk_rule_follows_the_boundary_characters(ours) -> None:
    """A literal split holding a tab may cross a "words" boundary but not a "spaces" one."""
    model = ours["bpe"].model
    for pattern, rule in (("a\tb", "spaces"), ("-", "words"), ("a\nb", "spaces")):
        pre = Sequence([Split(pattern, behavior="removed"), WhitespaceSplit()])
        fast = LocalChainFastPath.build(normalizer=None, pre_tokenizer=pre, model=model)
        assert fast.chunk_rule == rule
        _same(fast, Tokenizer(model, pre_tokenizer=pre), ["xa\tby a\nb -a- ", "a\tb a\tb"])


# Refused, each with a text that a chunked encoding would get wrong under either chunk rule.
_NOT_LOCAL = [
    (Metaspace(split=False), "a b"),  # one piece: the model merges across the space
    (Sequence([Digits(individual_digits=True), Punctuation()]), "a b"),  # spaces stay inside pieces
    (Sequence([Metaspace(split=False), WhitespaceSplit()]), "a b"),  # no white space left to cut at
    (Split(r"\w\s+\w", is_regex=True, behavior="isolated"), "a b"),  # a match crosses a space
    (ByteLevel(add_prefix_space=False), "a\t  b"),  # \s+(?!\S) takes "\t " across the boundary
    (Sequence([Split(" ", behavior="merged_with_previous"), Metaspace(split=False)]), "a b"),
    (Sequence([Split("a b", behavior="removed"), WhitespaceSplit()]), "a b"),
    (Sequence([Split(" ", behavior="merged_with_next", invert=True), Metaspace(split=False)]), "a b"),
    (Sequence([Punctuation(behavior="merged_with_next"), Metaspace(split=False)]), "a ,b"),
    (Sequence([Split("\t", behavior="removed"), Metaspace(split=False)]), "a b"),
]


@pytest.mark.parametrize("pre, text", _NOT_LOCAL, ids=lambda v: repr(v)[:50])
def test_chains_that_look_across_a_boundary_are_refused(ours, pre, text: str) -> None:
    model = ours["bpe"].model
    assert LocalChainFastPath.build(normalizer=None, pre_tokenizer=pre, model=model) is None
    tok = Tokenizer(model, pre_tokenizer=pre)
    for rule in ("words", "spaces"):  # forced: wrong somewhere
        forced = LocalChainFastPath(None, pre, model, chunk_rule=rule, first_apart=True)
        assert dataclasses.asdict(_fast(forced, tok, text)) != dataclasses.asdict(_general(tok, text)), rule


def test_other_stages_are_refused(ours) -> None:
    bench = Sequence([Digits(individual_digits=True), Punctuation(), Metaspace()])
    model = ours["bpe"].model
    from tokenizer_core.classic.word import WordLevel

    assert LocalChainFastPath.build(normalizer=Prepend("▁"), pre_tokenizer=bench, model=model) is None
    assert LocalChainFastPath.build(normalizer=BertNormalizer(), pre_tokenizer=bench, model=model) is None
    assert LocalChainFastPath.build(normalizer=None, pre_tokenizer=bench, model=WordLevel({"[UNK]": 0})) is None
    assert LocalChainFastPath.build(normalizer=None, pre_tokenizer=None, model=model) is None


def test_nested_sequences(ours) -> None:
    """Judged flat; refused with a "first" Metaspace (a nested Sequence asks whether an inner piece
    begins the text by the inner piece's own start)."""
    model = ours["unigram"].model
    pre = Sequence([Digits(), Sequence([Punctuation(), Sequence([Metaspace(prepend_scheme="never")])])])
    fast = LocalChainFastPath.build(normalizer=None, pre_tokenizer=pre, model=model)
    assert fast.chunk_rule == "spaces"
    _same(fast, Tokenizer(model, pre_tokenizer=pre), _HOSTILE)
    nested_first = Sequence([Punctuation(), Sequence([Metaspace(prepend_scheme="first")])])
    assert LocalChainFastPath.build(normalizer=None, pre_tokenizer=nested_first, model=model) is None


def test_added_tokens_take_the_general_path(ours) -> None:
    from tokenizer_core.text.added_vocabulary import AddedToken

    base = ours["bpe"]
    tok = Tokenizer(base.model, pre_tokenizer=base.pre_tokenizer, added_tokens=[AddedToken("<x y>", special=True)])
    fast = LocalChainFastPath.build(normalizer=None, pre_tokenizer=base.pre_tokenizer, model=base.model)
    assert _fast(fast, tok, "a <x y> b") is None and _fast(fast, tok, "a b") is not None


_HF_CHAINS = [  # tokenizers' pre-tokenizers; the first is the bench's chain
    hf_pre.Sequence([hf_pre.Digits(individual_digits=True), hf_pre.Punctuation(), hf_pre.Metaspace()]),
    hf_pre.Sequence([hf_pre.Digits(), hf_pre.Punctuation("merged_with_next"), hf_pre.Metaspace(prepend_scheme="first")]),
    hf_pre.Sequence([hf_pre.Punctuation("contiguous"), hf_pre.Metaspace(prepend_scheme="never")]),
    hf_pre.Sequence([hf_pre.WhitespaceSplit(), hf_pre.Metaspace(prepend_scheme="first", split=False)]),
    hf_pre.Sequence([hf_pre.Digits(individual_digits=True), hf_pre.Whitespace()]),
    hf_pre.Sequence([hf_pre.CharDelimiterSplit(" "), hf_pre.Metaspace(prepend_scheme="always")]),
    hf_pre.Metaspace(prepend_scheme="first"),
]


@pytest.mark.parametrize("k", range(len(_HF_CHAINS)))
def test_equal_to_tokenizers(trained, ours, k: int) -> None:
    lines = [line for line in real_lines(120) if line] + _HOSTILE[1:]  # tokenizers cannot encode ""
    texts = lines + [" ".join(lines[:60]), "\n".join(lines)]
    for name, hf in trained.items():
        hf = tokenizers.Tokenizer.from_str(hf.to_str())
        hf.pre_tokenizer = _HF_CHAINS[k]
        pre = pre_tokenizer_from_hf(json.loads(_HF_CHAINS[k].__getstate__()))
        tok = Tokenizer(ours[name].model, pre_tokenizer=pre)
        fast = LocalChainFastPath.build(normalizer=None, pre_tokenizer=pre, model=tok.model)
        assert fast is not None, pre
        for text in texts:
            if name == "unigram" and _LONG_RUN.search(text):
                continue  # a float tie tokenizers breaks its own way: test_unigram_float_tie_on_a_long_run
            enc, want = _fast(fast, tok, text), hf.encode(text, add_special_tokens=False)
            assert (enc.ids, enc.tokens, enc.offsets, enc.word_ids) == (
                want.ids, want.tokens, [tuple(o) for o in want.offsets], want.word_ids), (name, text)


@settings(max_examples=40, deadline=None)
@given(text=TEXTS)
@example(text=" ▁ a\t\t1,٣ ")
def test_the_bench_chain_equals_tokenizers_on_hostile_text(trained, ours, text: str) -> None:
    for name, hf in trained.items():
        tok = ours[name]
        fast = LocalChainFastPath.build(normalizer=None, pre_tokenizer=tok.pre_tokenizer, model=tok.model)
        enc = _fast(fast, tok, text)
        want = hf.encode(text, add_special_tokens=False)
        assert (enc.ids, enc.tokens, enc.offsets, enc.word_ids) == (
            want.ids, want.tokens, [tuple(o) for o in want.offsets], want.word_ids), (name, text)


@settings(max_examples=40, deadline=None)
@given(chain=_chains(), name=st.sampled_from(["bpe", "wordpiece", "unigram"]),
       texts=st.lists(TEXTS, max_size=8))
def test_batches_through_the_pipeline_equal_the_general_path(ours, chain, name: str, texts: list[str]) -> None:
    """A tokenizer with a local chain takes this fast path (FastPathSlot), and its batches, assembled
    by the kernel's chunk table on threads, are each text's general-path encoding."""
    pre, normalizer, _ = chain
    tok = Tokenizer(ours[name].model, normalizer=normalizer, pre_tokenizer=pre)
    # (a single plain splitter is the older chunked path's: the same cut, the same table)
    assert isinstance(tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model), (LocalChainFastPath, ChunkedFastPath))
    rows = tok._encode_sequences(texts + texts[::-1], threads=2)
    assert [dataclasses.asdict(r) for r in rows] == [dataclasses.asdict(_general(tok, t)) for t in texts + texts[::-1]]


def test_the_bench_chains_batches_equal_tokenizers(trained, ours) -> None:
    lines = [line for line in real_lines(200) if line] + _HOSTILE[1:]
    for name, hf in trained.items():
        got = ours[name].encode_batch(lines, add_special_tokens=False).encodings
        want = hf.encode_batch(lines, add_special_tokens=False)
        assert [(e.ids, e.offsets, e.word_ids) for e in got] == [
            (w.ids, [tuple(o) for o in w.offsets], w.word_ids) for w in want], name


# Refused normalizer and split chains, each with a text a chunked encoding gets wrong under either rule.
_NOT_LOCAL_NORMALIZED = [
    (NFKC(), Split(" ", behavior="contiguous"), "a\u00a0 b"),  # "a " + " b": the run of spaces is cut
    (NFKD(), Sequence([Split(" ", behavior="contiguous"), Digits()]), "a\u2002 b"),
    # a literal Replace writing a space: "a", "  ", "b" whole; chunked, "a " + " b" cuts the run in two
    (Replace("x", " "), Split(" ", behavior="contiguous"), "ax b"),
    (Replace("x", "y "), Split(" ", behavior="contiguous"), "ax b"),
    (Prepend("▁"), Metaspace(prepend_scheme="never"), "a b"),  # each chunk would get its "▁"
    (Strip(), Metaspace(prepend_scheme="never"), "a b"),  # each chunk's spaces would go
    (None, Sequence([Split(r"\w+(?= )", is_regex=True, behavior="removed"), WhitespaceSplit()]), "a b"),
    (None, Sequence([Split(r"a\s", is_regex=True, behavior="removed"), WhitespaceSplit()]), "a b"),
    (None, Split(r"\s+", is_regex=True, behavior="isolated"), "a \t b"),
    # not guarded (only the plain isolated split is): a gap of white space crosses
    (None, Split(r"\w+|[^\w\s]+", is_regex=True, behavior="isolated", invert=True), "a\t b"),
]


@pytest.mark.parametrize("normalizer, pre, text", _NOT_LOCAL_NORMALIZED, ids=lambda v: repr(v)[:40])
def test_normalized_chains_that_look_across_are_refused(ours, normalizer, pre, text: str) -> None:
    model = ours["unigram"].model  # its "<unk>" shows a piece of spaces the BPE would skip
    assert LocalChainFastPath.build(normalizer=normalizer, pre_tokenizer=pre, model=model) is None
    tok = Tokenizer(model, normalizer=normalizer, pre_tokenizer=pre)
    for rule in ("words", "spaces"):
        forced = LocalChainFastPath(normalizer, pre, model, chunk_rule=rule, first_apart=True)
        assert dataclasses.asdict(_fast(forced, tok, text)) != dataclasses.asdict(_general(tok, text)), rule


_GUARDED = [Split(_WORDS_RE, is_regex=True, behavior="isolated"),
            Sequence([Digits(individual_digits=True), Split(_WORDS_RE, is_regex=True), Metaspace(split=False)]),
            Split(r"\p{L}+|\p{N}", is_regex=True)]


@settings(max_examples=60, deadline=None)
@given(k=st.sampled_from(range(len(_GUARDED))), name=st.sampled_from(["bpe", "wordpiece", "unigram"]),
       texts=st.lists(TEXTS, min_size=1, max_size=4))
@example(k=0, name="bpe", texts=["a\t b", "a b", "a\u00a0 b\n", "\n a", " \t"])
def test_isolated_regex_splits_are_guarded(ours, k: int, name: str, texts: list[str]) -> None:
    """An isolated split whose gaps (white space here) could run across a "spaces" boundary: the texts
    where one does ("a\\t b") take the general path; the others, single or in batches, equal it."""
    pre, model = _GUARDED[k], ours[name].model
    tok = Tokenizer(model, pre_tokenizer=pre)
    # (the pipeline gives Split-only chains to tokenizer_core/fast/split.py, which needs no guard: this
    # path is checked on its own)
    fast = LocalChainFastPath.build(normalizer=None, pre_tokenizer=pre, model=model)
    assert isinstance(fast, LocalChainFastPath) and fast.chunk_rule == "spaces" and fast.guard is not None
    for text in texts:
        enc = _fast(fast, tok, text)
        assert (enc is None) == bool(fast.guard.search(text)), text
        assert enc is None or dataclasses.asdict(enc) == dataclasses.asdict(_general(tok, text)), text
    rows = tok._encode_sequences(texts, threads=2)
    assert [dataclasses.asdict(r) for r in rows] == [dataclasses.asdict(_general(tok, t)) for t in texts]
    unguarded = LocalChainFastPath(None, pre, model, chunk_rule="spaces", first_apart=False)
    if k == 0:  # the guard is needed: without it a gap crosses
        assert dataclasses.asdict(_fast(unguarded, tok, "a\t b")) != dataclasses.asdict(_general(tok, "a\t b"))
    assert LocalChainFastPath.build(normalizer=Lowercase(), pre_tokenizer=pre, model=model) is None


@pytest.fixture(scope="module")
def trained_other() -> dict[str, tokenizers.Tokenizer]:
    """tokenizers' NFKC + Metaspace + Unigram and Split(words, isolated) + BPE, trained here."""
    from tokenizers import Regex as HfRegex
    from tokenizers import normalizers as hf_norm

    corpus = _hf_corpus() + ["ﬁne a\u00a0b c\u2002d \u00a8e Ｆｕｌｌ\u3000ｗｉｄｔｈ 한국어 ΟΔΟΣ"] * 3
    uni = tokenizers.Tokenizer(models.Unigram())
    uni.normalizer = hf_norm.NFKC()
    uni.pre_tokenizer = hf_pre.Metaspace()
    uni.train_from_iterator(corpus, trainers.UnigramTrainer(vocab_size=300, unk_token="<unk>",
                                                           special_tokens=["<unk>"], show_progress=False))
    bpe = tokenizers.Tokenizer(models.BPE())
    bpe.pre_tokenizer = hf_pre.Split(HfRegex(r"\w+|[^\w\s]+"), "isolated")
    bpe.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, show_progress=False))
    return {"nfkc_unigram": uni, "split_bpe": bpe}


_HF_HOSTILE = ["a\u00a0 b", " \u0308x ¨ \u00a8\u00a8", "ﬁ ﬁ\u3000ﬁ", "가 \u1100\u1161 \u11a8", "ΟΣ Σ ς", "a\r\nb\r\n",
               "\t\u0301 a", " \t\n ", "▁ ▁▁a", "x\u2002\u2002 y", "a\t b"]


@pytest.mark.parametrize("name", ["nfkc_unigram", "split_bpe"])
def test_normalized_and_regex_chains_equal_tokenizers(trained_other, name: str) -> None:
    hf = trained_other[name]
    tok = tokenizer_from_hf(json.loads(hf.to_str()))
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    # (Split-only chains: split_fast with the kernel, this path without it)
    assert isinstance(fast, (SplitFastPath, LocalChainFastPath) if name == "split_bpe" else LocalChainFastPath)
    # (ZWJ: our \w takes it, Oniguruma's does not, on the general path too: tokenizer_core/text/patterns.py)
    lines = [line for line in real_lines(150) if line and "\u200d" not in line] + _HF_HOSTILE
    texts = lines + [" ".join(lines[:60]), "\n".join(lines)]
    want = hf.encode_batch(texts, add_special_tokens=False)
    got = tok.encode_batch(texts, add_special_tokens=False).encodings
    single = [tok.encode(t, add_special_tokens=False) for t in texts]
    for text, w, g, s in zip(texts, want, got, single):
        expected = (w.ids, [tuple(o) for o in w.offsets], w.word_ids)
        assert (g.ids, g.offsets, g.word_ids) == expected == (s.ids, s.offsets, s.word_ids), (name, text)


@pytest.mark.xfail(strict=True, reason="known: on a 300-character run of 'a' after unknown characters, two "
                   "segmentations of equal score in exact arithmetic differ in their last float bit, and "
                   "tokenizers keeps the other one; our Python and C paths agree with each other and with the "
                   "encode_optimized rule as written (the saved model is one the nondeterministic trainer made)")
def test_unigram_float_tie_on_a_long_run():
    from pathlib import Path

    text = Path(__file__).with_name("data").joinpath("unigram_float_tie.json").read_text(encoding="utf-8")
    hf = tokenizers.Tokenizer.from_str(text)
    hf.pre_tokenizer = None
    ours = tokenizer_from_hf(json.loads(text))
    joined = "\n".join([line for line in real_lines(120) if line] + _HOSTILE[1:])
    line = next(p for p, _ in _HF_CHAINS[0].pre_tokenize_str(joined) if "a" * 100 in p)
    want = hf.encode(line, add_special_tokens=False).tokens
    assert [t.text for t in ours.model.tokenize(line)] == want
