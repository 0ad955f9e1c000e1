"""The chunk fast path (tokenizer_core/fast/chain.py) on SentencePiece charsmap chains: a real nmt_nfkc
``Precompiled`` normalizer, T5 style (``Precompiled`` + ``WhitespaceSplit``/``Metaspace``, chunk rule
"words") and XLM-R style (``Precompiled`` + ``Replace(" {2,}", " ")`` + ``Metaspace``, rule "spaces"),
gives the general path's encoding field for field on hostile texts, and ``tokenizers``' ids and offsets.
The guard's cases are checked one by one: without the guard each gives another encoding."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._texts import real_lines
from tokenizer_core.fast.chain import LocalChainFastPath
from tokenizer_core.fast.locality import charsmap_rules
from tokenizer_core.io.importers import import_tokenizer
from tokenizer_core.pipeline import Tokenizer

spm = pytest.importorskip("sentencepiece")
tokenizers = pytest.importorskip("tokenizers")

_ALPHABET = list("aAbé\u0301中文!,.-") + [
    " ", "  ", "\t", "\n", "\r\n", "\r", "\x0b", "\x07", "\u00a0", "\u3000", "\u200b", "\u00ad", "\ufeff",
    "\u0600", "\u0903", "\u200d", "\U0001F468\u200d\U0001F469", "\U0001F1EB\U0001F1F7", "…", "ﬁ", "½", "①",
    "Ａ", "ｶﾞ", "\u309b", "▁", "the", " the", "ing", "  x"]
TEXTS = st.lists(st.sampled_from(_ALPHABET), max_size=30).map("".join)
STYLES = ["t5", "xlmr"]


def _hf_tokenizer(model_file: Path, style: str):  # noqa: ANN202
    """The tokenizer.json a converter writes for a SentencePiece Unigram: its pieces and scores,
    its nmt_nfkc charsmap as a ``Precompiled`` normalizer, and the chain of the style."""
    from sentencepiece import sentencepiece_model_pb2
    from tokenizers import Regex, models, normalizers, pre_tokenizers

    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model_file.read_bytes())
    tok = tokenizers.Tokenizer(models.Unigram([(p.piece, p.score) for p in proto.pieces], unk_id=0))
    charsmap = normalizers.Precompiled(proto.normalizer_spec.precompiled_charsmap)
    if style == "t5":
        tok.normalizer = charsmap
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace()])
    else:
        tok.normalizer = normalizers.Sequence([charsmap, normalizers.Replace(Regex(" {2,}"), " ")])
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
    return tok


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Tokenizer, object]]:
    folder = tmp_path_factory.mktemp("precompiled")
    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(real_lines(2000)) + "\nnaïve café ① Ａ … ﬁne 中文字\n" * 20, encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / "uni"), vocab_size=700,
                                   model_type="unigram", minloglevel=2)
    out = {}
    for style in STYLES:
        hf = _hf_tokenizer(folder / "uni.model", style)
        hf.save(str(folder / f"{style}.json"))
        out[style] = (import_tokenizer("hf", folder / f"{style}.json"), hf)
    return out


def _fast(tok: Tokenizer) -> LocalChainFastPath:
    return tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)


def _general(tok: Tokenizer, text: str):  # noqa: ANN202
    return tok._trace_text(text, split_special=True, sampling=None, sequence_id=0)[1]


def _fields(enc) -> dict:  # noqa: ANN001
    return {f.name: getattr(enc, f.name) for f in dataclasses.fields(enc)}


@pytest.mark.parametrize(("style", "rule"), [("t5", "words"), ("xlmr", "spaces")])
def test_the_fast_path_is_taken(built, style: str, rule: str) -> None:
    tok = built[style][0]
    fast = _fast(tok)
    assert isinstance(fast, LocalChainFastPath) and fast.chunk_rule == rule and fast.guard is not None
    for text in ("plain words here, and … more", "ﬁne café ① Ａ\u00a0", "  lead and trail  "):
        assert fast.encode(text, added=tok.added, split_special=True, sequence_id=0) is not None, text


def test_the_charsmap_keys_are_what_the_lookup_finds(built) -> None:
    charsmap = built["t5"][0].normalizer.charsmap
    rules = charsmap_rules(charsmap.blob)
    assert rules is not None and len(rules) > 1000 and rules["\ufb01"] == "fi" and rules["\x07"] == ""
    assert all(charsmap.first_match(key) == value for key, value in rules.items())


# Texts that the guard must send to the general path: the chunks alone give another encoding. " \u0340\u0301"
# is one cluster: the text looks its characters up one by one, the chunk "\u0340\u0301b" finds the key
# U+0340 for its whole first cluster (the acute is lost). A chunk starting with a removed control slips.
GUARDED = {
    "t5": ["a \u0340\u0301b", "a \u0341\u0302b c", "a \x07b c", "\x07a b", "a\t\x07b"],
    "xlmr": ["\x07a b", "a\u3000 b", "a\t b", "a \x07 b", "a\u3000\x07 b"],
}


@pytest.mark.parametrize("style", STYLES)
def test_the_guard_sends_what_crosses_a_chunk_to_the_general_path(built, style: str) -> None:
    tok = built[style][0]
    fast = _fast(tok)
    unguarded = copy.copy(fast)
    unguarded.guard = None
    unguarded._compiled = False  # the Python assembly: the kernel's table is shared with the guarded copy
    for text in GUARDED[style]:
        assert fast.guard.search(text), text
        assert fast.encode(text, added=tok.added, split_special=True, sequence_id=0) is None, text
        wrong = unguarded.encode(text, added=tok.added, split_special=True, sequence_id=0)
        assert _fields(wrong) != _fields(_general(tok, text)), text  # the guard is needed for this text
        assert _fields(tok.encode(text)) == _fields(_general(tok, text)), text


@pytest.mark.parametrize("style", STYLES)
@given(text=TEXTS)
@settings(max_examples=150, deadline=None)
def test_fast_equals_general(built, style: str, text: str) -> None:
    tok = built[style][0]
    assert _fields(tok.encode(text)) == _fields(_general(tok, text))


@pytest.mark.parametrize("style", STYLES)
@given(texts=st.lists(TEXTS, max_size=8))
@settings(max_examples=40, deadline=None)
def test_batches_equal_the_general_path_text_by_text(built, style: str, texts: list[str]) -> None:
    tok = built[style][0]
    rows = tok._encode_sequences(texts, threads=2)
    assert [_fields(r) for r in rows] == [_fields(_general(tok, t)) for t in texts]


@pytest.mark.parametrize("style", STYLES)
def test_ids_and_offsets_equal_tokenizers_on_real_lines(built, style: str) -> None:
    tok, hf = built[style]
    texts = [t for line in real_lines(300) for t in (line, "  " + line + "\t", line.replace(" ", "\u00a0 "))]
    texts += ["ﬁne \u3000café\r\nＡ ① ▁x  \t y", "\x07lead", "a \u0301b", "   "]
    ours = tok._encode_sequences(texts, threads=2)
    theirs = hf.encode_batch(texts, add_special_tokens=False)
    for text, a, b in zip(texts, ours, theirs):
        assert (a.ids, a.offsets) == (b.ids, b.offsets), text
    joined = "\n".join(texts)
    single, expected = tok.encode(joined, add_special_tokens=False), hf.encode(joined, add_special_tokens=False)
    assert (single.ids, single.offsets) == (expected.ids, expected.offsets)
