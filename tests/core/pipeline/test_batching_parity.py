"""Parity of truncation, post-processing and padding with Hugging Face ``tokenizers``.

Both sides get identical model tokens: a ``tokenizers`` WordLevel + Whitespace
tokenizer without any post-processing produces them, we turn them into our
``Encoding`` and finish them with :func:`finish_encoding` / :func:`make_batch`,
and compare with the same ``tokenizers`` tokenizer configured with
``TemplateProcessing``/``BertProcessing``/``RobertaProcessing``,
``enable_truncation`` and ``enable_padding``. Every field that ``tokenizers``
exposes (ids, tokens, type ids, offsets, masks, word ids) is compared, overflow
windows included, recursively. (``sequence_ids`` are left out on purpose:
``tokenizers`` loses them in overflow windows, we keep them.)

A last test runs the whole path through our own pipeline (WordLevel model,
Whitespace pre-tokenizer) against ``tokenizers`` end to end.
"""

from __future__ import annotations

import itertools
import os
from typing import Any, Optional

import pytest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models
from tokenizers import pre_tokenizers as hf_pre
from tokenizers import processors as hf_proc

from tests._texts import real_lines
from tokenizer_core.batch.batching import PaddingParams, TruncationParams, finish_encoding, make_batch
from tokenizer_core.batch.processors import BertProcessing, RobertaProcessing, TemplateProcessing
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding

os.environ.setdefault("RUST_BACKTRACE", "0")  # tokenizers panics on some settings; keep the log short

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "<s>", "</s>", "<|bos|>"]


def _sentences() -> list[str]:
    lines = [" ".join(line.split()) for line in real_lines(1200)]
    return [line for line in lines if 3 <= len(line.split()) <= 24]


SENTENCES = _sentences()


def _vocab() -> dict[str, int]:
    vocab = {t: i for i, t in enumerate(SPECIALS)}
    # Leave some words out so that [UNK] shows up too.
    words = sorted({w for s in SENTENCES for w in hf_pre.Whitespace().pre_tokenize_str(s) for w in [w[0]]})
    for k, w in enumerate(words):
        if k % 7 != 3:
            vocab.setdefault(w, len(vocab))
    return vocab


VOCAB = _vocab()
ID = VOCAB.__getitem__

# Our post-processor and the matching tokenizers one, per name.
PROCESSORS: dict[str, tuple[Any, Any]] = {
    "none": (None, None),
    "bert": (
        BertProcessing(sep=("[SEP]", ID("[SEP]")), cls=("[CLS]", ID("[CLS]"))),
        hf_proc.BertProcessing(("[SEP]", ID("[SEP]")), ("[CLS]", ID("[CLS]"))),
    ),
    "bert_template": (
        TemplateProcessing.bert(vocab=VOCAB),
        hf_proc.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", ID("[CLS]")), ("[SEP]", ID("[SEP]"))],
        ),
    ),
    "roberta": (
        RobertaProcessing(sep=("</s>", ID("</s>")), cls=("<s>", ID("<s>"))),
        hf_proc.RobertaProcessing(("</s>", ID("</s>")), ("<s>", ID("<s>"))),
    ),
    "gpt_template": (
        TemplateProcessing.gpt(bos="<|bos|>", eos="</s>", vocab=VOCAB),
        hf_proc.TemplateProcessing(
            single="<|bos|> $A </s>",
            pair="<|bos|> $A </s> <|bos|>:1 $B:1 </s>:1",
            special_tokens=[("<|bos|>", ID("<|bos|>")), ("</s>", ID("</s>"))],
        ),
    ),
    # A user-defined template with unusual type ids and a multi-token special.
    "user_template": (
        TemplateProcessing(
            single="$A:2 [SEP]:3",
            pair="[CLS]:1 $B:1 [SEP] $A:2 <s>",
            special_tokens=[("[CLS]", ID("[CLS]")), ("[SEP]", ID("[SEP]")),
                            {"id": "<s>", "ids": [ID("<s>"), ID("</s>")], "tokens": ["<s>", "</s>"]}],
        ),
        hf_proc.TemplateProcessing(
            single="$A:2 [SEP]:3",
            pair="[CLS]:1 $B:1 [SEP] $A:2 <s>",
            special_tokens=[("[CLS]", ID("[CLS]")), ("[SEP]", ID("[SEP]")),
                            {"id": "<s>", "ids": [ID("<s>"), ID("</s>")], "tokens": ["<s>", "</s>"]}],
        ),
    ),
}


def _hf(post_processor: Any = None) -> HFTokenizer:
    tok = HFTokenizer(hf_models.WordLevel(VOCAB, unk_token="[UNK]"))
    tok.pre_tokenizer = hf_pre.Whitespace()
    if post_processor is not None:
        tok.post_processor = post_processor
    return tok


RAW = _hf()


def model_tokens(text: str, sequence_id: int = 0) -> Encoding:
    """Model tokens of ``text`` from tokenizers, as our Encoding (no specials)."""
    e = RAW.encode(text, add_special_tokens=False)
    n = len(e.ids)
    return Encoding(
        ids=list(e.ids), tokens=list(e.tokens), offsets=[tuple(o) for o in e.offsets],
        type_ids=[sequence_id] * n, attention_mask=[1] * n, special_tokens_mask=[0] * n,
        word_ids=list(e.word_ids), sequence_ids=[sequence_id] * n,
    )


def view(e: Any) -> dict[str, Any]:
    """Every compared field of a tokenizers or our encoding, overflow included."""
    return {
        "ids": list(e.ids),
        "tokens": list(e.tokens),
        "type_ids": list(e.type_ids),
        "offsets": [tuple(o) for o in e.offsets],
        "attention_mask": list(e.attention_mask),
        "special_tokens_mask": list(e.special_tokens_mask),
        "word_ids": list(e.word_ids),
        "overflowing": [view(o) for o in e.overflowing],
    }


def hf_truncation_kwargs(t: TruncationParams) -> dict[str, Any]:
    return {"max_length": t.max_length, "stride": t.stride, "strategy": t.strategy, "direction": t.side}


def hf_padding_kwargs(p: PaddingParams) -> dict[str, Any]:
    return {
        "direction": p.side, "pad_id": p.pad_id, "pad_type_id": p.pad_type_id, "pad_token": p.pad_token,
        "length": p.max_length if p.strategy == "max_length" else None,
        "pad_to_multiple_of": p.pad_to_multiple_of,
    }


def reference(name: str, texts: list[str], pairs: Optional[list[str]], truncation: Optional[TruncationParams],
              padding: Optional[PaddingParams], add_special_tokens: bool = True) -> Any:
    """tokenizers' encodings, or the exception class it raised."""
    tok = _hf(PROCESSORS[name][1])
    if truncation is not None:
        tok.enable_truncation(**hf_truncation_kwargs(truncation))
    if padding is not None:
        tok.enable_padding(**hf_padding_kwargs(padding))
    inputs = texts if pairs is None else list(zip(texts, pairs))
    try:
        return [view(e) for e in tok.encode_batch(inputs, add_special_tokens=add_special_tokens)]
    except BaseException as err:  # tokenizers raises Exception or a pyo3 PanicException
        if isinstance(err, (KeyboardInterrupt, SystemExit)):
            raise
        return type(err)


def ours(name: str, texts: list[str], pairs: Optional[list[str]], truncation: Optional[TruncationParams],
         padding: Optional[PaddingParams], add_special_tokens: bool = True) -> Any:
    processor = PROCESSORS[name][0]
    try:
        encs = [
            finish_encoding(model_tokens(t), None if pairs is None else model_tokens(pairs[i], 1),
                            post_processor=processor, add_special_tokens=add_special_tokens, truncation=truncation)
            for i, t in enumerate(texts)
        ]
    except TokenizerError as err:
        return type(err)
    return [view(e) for e in make_batch(encs, padding=padding).encodings]


def check(name: str, texts: list[str], pairs: Optional[list[str]], truncation: Optional[TruncationParams],
          padding: Optional[PaddingParams], add_special_tokens: bool = True) -> None:
    expected = reference(name, texts, pairs, truncation, padding, add_special_tokens)
    got = ours(name, texts, pairs, truncation, padding, add_special_tokens)
    if isinstance(expected, type):
        assert got is TokenizerError, f"tokenizers raised {expected.__name__}, we returned {got!r:.200}"
    else:
        assert got == expected


BATCH = SENTENCES[10:16]
PAIRS = SENTENCES[40:46]
# (strategy, side, stride); max_length depends on single texts or pairs so that
# most settings succeed (the failures are checked too: both sides must refuse).
TRUNCATIONS = [None] + list(
    itertools.product(["longest_first", "only_first", "only_second"], ["right", "left"], [0, 3])
)


def truncation_for(setting: Optional[tuple[str, str, int]], with_pairs: bool) -> Optional[TruncationParams]:
    if setting is None:
        return None
    strategy, side, stride = setting
    max_length = (26 if stride else 20) if with_pairs else (10 if stride else 9)
    return TruncationParams(strategy=strategy, max_length=max_length, stride=stride, side=side)


PADDINGS = [
    None,
    PaddingParams(),
    PaddingParams(side="left", pad_to_multiple_of=8, pad_id=ID("[PAD]"), pad_type_id=3),
    PaddingParams(strategy="max_length", max_length=20, side="left", pad_token="<pad>", pad_id=0),
]


@pytest.mark.parametrize("name", list(PROCESSORS))
@pytest.mark.parametrize("setting", TRUNCATIONS, ids=lambda t: "none" if t is None else "-".join(map(str, t)))
@pytest.mark.parametrize("with_pairs", [False, True], ids=["single", "pair"])
def test_truncation_and_processors_match_tokenizers(name: str, setting: Optional[tuple[str, str, int]],
                                                    with_pairs: bool) -> None:
    check(name, BATCH, PAIRS if with_pairs else None, truncation_for(setting, with_pairs), PADDINGS[1])


@pytest.mark.parametrize("name", ["none", "bert", "roberta", "user_template"])
@pytest.mark.parametrize("padding", PADDINGS, ids=["no-pad", "longest-right", "left-multiple8", "fixed20-left"])
@pytest.mark.parametrize("with_pairs", [False, True], ids=["single", "pair"])
def test_padding_matches_tokenizers(name: str, padding: Optional[PaddingParams], with_pairs: bool) -> None:
    truncation = TruncationParams(max_length=16, stride=2, side="left")
    check(name, BATCH, PAIRS if with_pairs else None, truncation, padding)
    check(name, BATCH, PAIRS if with_pairs else None, None, padding)


@pytest.mark.parametrize("name", list(PROCESSORS))
def test_without_special_tokens_matches_tokenizers(name: str) -> None:
    truncation = TruncationParams(max_length=10, stride=1)
    check(name, BATCH, PAIRS, truncation, PADDINGS[2], add_special_tokens=False)
    check(name, BATCH, None, None, PADDINGS[1], add_special_tokens=False)


@pytest.mark.parametrize("name", ["bert", "roberta", "none"])
def test_errors_where_tokenizers_fails(name: str) -> None:
    long_text, short_text = SENTENCES[0] + " " + SENTENCES[1], "just two"
    # only_second without a pair, when something has to be cut.
    check(name, [long_text], None, TruncationParams(strategy="only_second", max_length=8), None)
    # The text to cut is too short to remove the whole excess.
    check(name, [short_text], [long_text], TruncationParams(strategy="only_first", max_length=9), None)
    # A window that cannot move forward (stride not below the window length).
    check(name, [long_text], [long_text], TruncationParams(max_length=12, stride=4), None)


def test_empty_texts_and_truncation_to_nothing() -> None:
    # With max_length equal to the special tokens, everything overflows.
    check("bert", ["", "one two three"], ["four five", ""], TruncationParams(max_length=3), PADDINGS[1])
    check("bert", ["one two three"], None, TruncationParams(max_length=2), None)
    check("roberta", [""], [""], TruncationParams(max_length=4), PADDINGS[2])


def test_every_real_sentence_pair_matches_tokenizers() -> None:
    texts, pairs = SENTENCES[:120], SENTENCES[120:240]
    for name in ("bert", "roberta"):
        check(name, texts, pairs, TruncationParams(max_length=24, stride=4), PADDINGS[1])
        check(name, texts, None, TruncationParams(max_length=12, stride=5, side="left"), PADDINGS[2])


# ------------------------------------------------------------ whole pipeline


def test_our_pipeline_end_to_end_matches_tokenizers() -> None:
    from tokenizer_core.classic.word import WordLevel
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.text.pre_tokenizers import Whitespace

    processor, hf_processor = PROCESSORS["bert"]
    tok = Tokenizer(WordLevel(VOCAB, unk_token="[UNK]"), pre_tokenizer=Whitespace(),
                    post_processor=processor, special_tokens=SPECIALS)
    hf = _hf(hf_processor)
    hf.add_special_tokens(SPECIALS)
    truncation = TruncationParams(max_length=16, stride=3)
    padding = PaddingParams(side="left", pad_to_multiple_of=4)
    hf.enable_truncation(**hf_truncation_kwargs(truncation))
    hf.enable_padding(**hf_padding_kwargs(padding))
    texts, pairs = SENTENCES[300:308], SENTENCES[308:316]
    got = tok.encode_batch(texts, pairs=pairs, truncation=truncation, padding=padding)
    expected = hf.encode_batch(list(zip(texts, pairs)))
    assert [view(e) for e in got.encodings] == [view(e) for e in expected]
    assert got.input_ids == [e.ids for e in expected]
    assert got.attention_mask == [e.attention_mask for e in expected]
