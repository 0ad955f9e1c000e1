"""Regex splits before a model that is not byte-level (tokenizer_core/fast/split.py): the kernel's
matcher cuts the pieces, its chunk table keeps each distinct piece's tokens, and every text and batch
equals the general path and ``tokenizers``."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._texts import real_lines
from tokenizer_core.fast.split import SplitFastPath
from tokenizer_core.io.hf_json import pre_tokenizer_from_hf, tokenizer_from_hf
from tokenizer_core.kernel import native
from tokenizer_core.pipeline import Tokenizer

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.skipif(not native.available(), reason="the split runs in the kernel")
from tokenizers import Regex, models, trainers  # noqa: E402
from tokenizers import pre_tokenizers as hf_pre  # noqa: E402

_GPT2ISH = r"'s|'t|'re| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
#: tokenizers' pre-tokenizers this path takes: one Split, or a Sequence of Splits (isolated, not inverted).
SPLITS = [
    hf_pre.Split(Regex(r"\w+|[^\w\s]+"), "isolated"),
    hf_pre.Split(Regex(_GPT2ISH), "isolated"),
    hf_pre.Split(Regex(r"\d"), "isolated"),
    hf_pre.Split(" ", "isolated"),
    hf_pre.Sequence([hf_pre.Split(Regex(r"\p{N}{1,3}"), "isolated"), hf_pre.Split(Regex(r"[^\s\p{L}]+"), "isolated")]),
]
TEXTS = st.lists(st.sampled_from(["a", "ab", "The", " ", "  ", "\n", "\t", "é", "中文", "😀", "12", "3456", "'s",
                                  ",", "!?", "\u0301", "x y", "\r\n"]), max_size=25).map("".join)


def _general(tok: Tokenizer, text: str):  # noqa: ANN202
    return tok._trace_text(text, split_special=True, sampling=None, sequence_id=0)[1]


@pytest.fixture(scope="module")
def trained() -> dict[tuple[int, str], tuple[object, Tokenizer]]:
    lines = real_lines(300)
    out = {}
    for k, pre in enumerate(SPLITS):
        for kind, model, trainer in (
                ("bpe", models.BPE(unk_token="[UNK]"), trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"],
                                                                           show_progress=False)),
                ("wordpiece", models.WordPiece(unk_token="[UNK]"),
                 trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[UNK]"], show_progress=False)),
                ("unigram", models.Unigram(), trainers.UnigramTrainer(vocab_size=200, special_tokens=["<unk>"],
                                                                      unk_token="<unk>", show_progress=False))):
            if k not in (0, 4) and kind != "bpe":
                continue  # every pattern with BPE; the models with two of them
            hf = tokenizers.Tokenizer(model)
            hf.pre_tokenizer = pre
            hf.train_from_iterator(lines, trainer)
            out[k, kind] = hf, tokenizer_from_hf(json.loads(hf.to_str()))
    return out


def test_the_fast_path_is_taken(trained) -> None:
    for (k, kind), (_, tok) in trained.items():
        assert isinstance(tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model), SplitFastPath), (k, kind)


@settings(max_examples=50, deadline=None)
@given(texts=st.lists(TEXTS, max_size=6))
def test_texts_and_batches_equal_the_general_path(trained, texts: list[str]) -> None:
    for key, (_, tok) in trained.items():
        general = [dataclasses.asdict(_general(tok, t)) for t in texts]
        assert [dataclasses.asdict(tok.encode(t)) for t in texts] == general, key
        assert [dataclasses.asdict(e) for e in tok._encode_sequences(texts, threads=2)] == general, key


def test_equal_to_tokenizers(trained) -> None:
    # (not lines with a ZWJ: the regex module's \w takes U+200D and Oniguruma's does not, in the
    # general path too; tokenizer_core/text/patterns.py)
    lines = [line for line in real_lines(150) if line and "\u200d" not in line]
    lines += ["  lead and trail  ", "a\tb\n c", "x" * 1500 + " y 12345"]
    for key, (hf, tok) in trained.items():
        want = hf.encode_batch(lines, add_special_tokens=False)
        got = tok.encode_batch(lines, add_special_tokens=False).encodings
        assert [(e.ids, e.offsets, e.word_ids) for e in got] == [
            (w.ids, [tuple(o) for o in w.offsets], w.word_ids) for w in want], key
        assert tok.encode("\n".join(lines)).ids == hf.encode("\n".join(lines), add_special_tokens=False).ids, key


def test_pieces_too_long_for_the_table(trained) -> None:
    """A piece over 1,024 characters is encoded by Python inside the kernel's row (one Split: the row
    goes on after it); in a chain of Splits the text takes the general path. Either way: the same."""
    for key, (_, tok) in trained.items():
        for text in ("ab " + "x" * 1500 + " cd 12", "1" * 2000, "é" * 1100 + "!" + " " * 1030):
            assert tok.encode(text) == _general(tok, text), key


def test_other_stages_are_refused(trained) -> None:
    _, tok = trained[0, "bpe"]
    for hf in (hf_pre.Split(Regex(r"\w+"), "removed"), hf_pre.Split(Regex(r"\w+"), "isolated", invert=True),
               hf_pre.Sequence([hf_pre.Split(Regex(r"\d"), "isolated"), hf_pre.Metaspace()]),
               hf_pre.Split(Regex(r"(?<=a)b"), "isolated"),  # a look-behind: not in the kernel's matcher
               hf_pre.Split(Regex(r"^\w+|\s+$"), "isolated")):  # anchors under MULTILINE: not either
        pre = pre_tokenizer_from_hf(json.loads(hf.__getstate__()))
        assert SplitFastPath.build(normalizer=None, pre_tokenizer=pre, model=tok.model) is None, hf
    assert SplitFastPath.build(normalizer=tok.normalizer or object(), pre_tokenizer=tok.pre_tokenizer,
                               model=tok.model) is None
