"""Hand-computed batches: truncation with stride, special tokens, padding, masks, arrays."""

from __future__ import annotations

import numpy as np
import pytest

from tokenizer_core.batch.batching import (
    BatchEncoding,
    PaddingParams,
    TruncationParams,
    batch_to_json,
    finish_encoding,
    make_batch,
)
from tokenizer_core.batch.processors import TemplateProcessing
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding, Token

CLS, SEP = 2, 3
BERT = TemplateProcessing.bert(cls=("[CLS]", CLS), sep=("[SEP]", SEP))


def seq(*ids: int, sequence_id: int = 0) -> Encoding:
    """Model tokens with ids ``ids``; token k covers characters 2k..2k+1."""
    tokens = [Token(i, f"t{i}", (2 * k, 2 * k + 1)) for k, i in enumerate(ids)]
    return Encoding.from_tokens(tokens, word_ids=list(range(len(ids))), sequence_id=sequence_id)


def tree(enc: Encoding) -> list:
    return [enc.ids, [tree(o) for o in enc.overflowing]]


A = seq(10, 11, 12, 13, 14, 15, 16)
B = seq(20, 21, 22, 23, sequence_id=1)


def test_pair_truncation_with_stride_by_hand() -> None:
    # max_length 10 leaves 7 tokens after [CLS] A [SEP] B [SEP]; longest_first
    # gives A 4 and B 3. Windows of A (stride 1): 10-13, 13-16; of B: 20-22, 22-23.
    enc = finish_encoding(A, B, post_processor=BERT, truncation=TruncationParams(max_length=10, stride=1))
    assert enc.ids == [CLS, 10, 11, 12, 13, SEP, 20, 21, 22, SEP]
    assert enc.type_ids == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
    assert enc.special_tokens_mask == [1, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    a1b0 = [CLS, 13, 14, 15, 16, SEP, 20, 21, 22, SEP]
    a1b1 = [CLS, 13, 14, 15, 16, SEP, 22, 23, SEP]
    a0b1 = [CLS, 10, 11, 12, 13, SEP, 22, 23, SEP]
    # Every window of A meets every window of B (tokenizers' nesting included).
    assert tree(enc)[1] == [[a1b0, [[a1b1, []]]], [a1b1, []], [a0b1, [[a1b1, []]]]]
    assert enc.overflowing[1].type_ids == [0, 0, 0, 0, 0, 0, 1, 1, 1]
    assert enc.overflowing[1].word_ids == [None, 3, 4, 5, 6, None, 2, 3, None]


def test_single_text_left_truncation_by_hand() -> None:
    enc = finish_encoding(A, post_processor=BERT, truncation=TruncationParams(max_length=5, stride=1, side="left"))
    assert tree(enc) == [[CLS, 14, 15, 16, SEP], [[[CLS, 12, 13, 14, SEP], []], [[CLS, 10, 11, 12, SEP], []]]]
    assert enc.offsets == [(0, 0), (8, 9), (10, 11), (12, 13), (0, 0)]


def test_only_second_and_no_post_processor() -> None:
    enc = finish_encoding(A, B, truncation=TruncationParams(strategy="only_second", max_length=9))
    assert enc.ids == [10, 11, 12, 13, 14, 15, 16, 20, 21]
    assert enc.type_ids == [0] * 7 + [1, 1]
    assert enc.sequence_ids == [0] * 7 + [1, 1]
    assert [o.ids for o in enc.overflowing] == [[10, 11, 12, 13, 14, 15, 16, 22, 23]]


def test_special_tokens_count_against_max_length() -> None:
    enc = finish_encoding(A, post_processor=BERT, add_special_tokens=False, truncation=TruncationParams(max_length=5))
    assert enc.ids == [10, 11, 12, 13, 14]
    assert len(finish_encoding(A, post_processor=BERT, truncation=TruncationParams(max_length=5))) == 5


def test_impossible_settings_are_clear_errors() -> None:
    with pytest.raises(TokenizerError, match="smaller than the 3 special tokens"):
        finish_encoding(A, B, post_processor=BERT, truncation=TruncationParams(max_length=2))
    with pytest.raises(TokenizerError, match="stride=3 must be smaller than the 3 tokens"):
        finish_encoding(A, post_processor=BERT, truncation=TruncationParams(max_length=5, stride=3))
    with pytest.raises(TokenizerError, match="needs a second text"):
        finish_encoding(A, post_processor=BERT, truncation=TruncationParams(strategy="only_second", max_length=5))
    with pytest.raises(TokenizerError, match="raise max_length or use 'longest_first'"):
        finish_encoding(B, A, post_processor=BERT, truncation=TruncationParams(strategy="only_first", max_length=9))


def test_inputs_are_not_modified() -> None:
    a, b = seq(1, 2, 3), seq(4, 5)
    finish_encoding(a, b, post_processor=BERT, truncation=TruncationParams(max_length=7, stride=1))
    assert a.ids == [1, 2, 3] and a.overflowing == [] and b.type_ids == [0, 0]


def _batch(padding: PaddingParams | None, *, return_overflowing: bool = False) -> BatchEncoding:
    long_ = finish_encoding(A, post_processor=BERT, truncation=TruncationParams(max_length=6, stride=2))
    short = finish_encoding(seq(30), post_processor=BERT)
    return make_batch([long_, short], padding=padding, return_overflowing=return_overflowing)


def test_right_padding_batch_by_hand() -> None:
    batch = _batch(PaddingParams())
    assert batch.input_ids == [[CLS, 10, 11, 12, 13, SEP], [CLS, 30, SEP, 0, 0, 0]]
    assert batch.attention_mask == [[1] * 6, [1, 1, 1, 0, 0, 0]]
    assert batch.token_type_ids == [[0] * 6, [0] * 6]
    assert batch.special_tokens_mask == [[1, 0, 0, 0, 0, 1], [1, 0, 1, 1, 1, 1]]
    assert batch.lengths == [6, 3]
    assert batch.tokens[1] == ["[CLS]", "t30", "[SEP]", "[PAD]", "[PAD]", "[PAD]"]
    assert batch.offsets[1] == [(0, 0), (0, 1), (0, 0), (0, 0), (0, 0), (0, 0)]
    # Overflow windows are padded to the batch length too.
    assert [o.ids for o in batch.encodings[0].overflowing] == [[CLS, 12, 13, 14, 15, SEP], [CLS, 14, 15, 16, SEP, 0]]


def test_left_padding_to_a_multiple_by_hand() -> None:
    batch = _batch(PaddingParams(side="left", pad_to_multiple_of=4, pad_id=9, pad_type_id=1))
    assert batch.input_ids == [[9, 9, CLS, 10, 11, 12, 13, SEP], [9, 9, 9, 9, 9, CLS, 30, SEP]]
    assert batch.attention_mask[1] == [0, 0, 0, 0, 0, 1, 1, 1]
    assert batch.token_type_ids[1] == [1, 1, 1, 1, 1, 0, 0, 0]
    assert batch.word_ids[1] == [None] * 5 + [None, 0, None]
    assert batch.padded_length == 8


def test_fixed_length_padding_and_no_padding() -> None:
    assert _batch(PaddingParams(strategy="max_length", max_length=7)).padded_length == 7
    unpadded = _batch(None)
    assert unpadded.input_ids[1] == [CLS, 30, SEP] and not unpadded.is_rectangular


def test_overflow_rows_and_sample_mapping() -> None:
    batch = _batch(PaddingParams(), return_overflowing=True)
    assert batch.overflow_to_sample_mapping == [0, 0, 0, 1]
    assert len(batch) == 4
    assert batch.input_ids[1] == [CLS, 12, 13, 14, 15, SEP]
    assert _batch(PaddingParams()).overflow_to_sample_mapping == [0, 1]


def test_numpy_arrays() -> None:
    arrays = _batch(PaddingParams(), return_overflowing=True).to_numpy()
    assert arrays["input_ids"].shape == (4, 6) and arrays["input_ids"].dtype == np.int64
    assert arrays["offsets"].shape == (4, 6, 2)
    assert arrays["attention_mask"][3].tolist() == [1, 1, 1, 0, 0, 0]
    assert arrays["lengths"].tolist() == [6, 6, 5, 3]
    assert arrays["overflow_to_sample_mapping"].tolist() == [0, 0, 0, 1]
    with pytest.raises(TokenizerError, match="padding='longest'"):
        _batch(None).to_numpy()
    empty = make_batch([]).to_numpy()
    assert empty["input_ids"].shape == (0, 0)


def test_pandas_grid() -> None:
    batch = _batch(PaddingParams(side="left"))
    grid = batch.to_pandas("attention_mask")
    assert grid.shape == (2, 6) and grid.index.name == "sequence" and grid.columns.name == "position"
    assert grid.values.tolist() == [[1] * 6, [0, 0, 0, 1, 1, 1]]
    assert str(grid.dtypes.iloc[0]) == "int64"
    assert batch.to_pandas("tokens").iloc[1, 0] == "[PAD]"
    ragged = _batch(None).to_pandas()
    assert ragged.iloc[1].tolist() == [CLS, 30, SEP, None, None, None]
    long_ = batch.to_long_pandas()
    assert len(long_) == 12 and long_.loc[(long_.sequence == 1) & (long_.position == 4), "token"].item() == "t30"
    with pytest.raises(TokenizerError, match="unknown field"):
        batch.to_pandas("colour")


def test_attention_masks_2d_by_hand() -> None:
    batch = _batch(PaddingParams(strategy="max_length", max_length=4, side="left"), return_overflowing=False)
    # Row 1 is [PAD] [CLS] t30 [SEP]: nobody may look at position 0.
    assert batch.attention_mask_2d(1).tolist() == [[0, 1, 1, 1]] * 4
    assert batch.attention_mask_2d(1, causal=True).tolist() == [
        [0, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 1, 1, 0],
        [0, 1, 1, 1],
    ]
    right = _batch(PaddingParams(strategy="max_length", max_length=4))
    assert right.attention_mask_2d(1, mask_queries=True).tolist() == [
        [1, 1, 1, 0],
        [1, 1, 1, 0],
        [1, 1, 1, 0],
        [0, 0, 0, 0],
    ]
    assert right.attention_mask_2d(0).shape == (6, 6)  # longer than max_length: not padded
    with pytest.raises(TokenizerError, match="row 5"):
        right.attention_mask_2d(5)


def test_waste_of_the_batch() -> None:
    waste = _batch(PaddingParams(pad_to_multiple_of=4)).waste()
    assert (waste.total_positions, waste.real_tokens, waste.padded_positions) == (16, 9, 7)
    assert waste.wasted_attention_cells == 2 * 64 - (36 + 9)


def test_json_for_the_command_line() -> None:
    data = batch_to_json(_batch(PaddingParams()))
    assert data["input_ids"][1] == [CLS, 30, SEP, 0, 0, 0]
    assert data["offsets"][1][1] == [0, 1]
    assert [o["ids"] for o in data["overflowing"][0]] == [[CLS, 12, 13, 14, 15, SEP], [CLS, 14, 15, 16, SEP, 0]]
    assert data["padding"]["strategy"] == "longest"
    assert batch_to_json(_batch(None))["padding"] is None


def test_batch_keys_like_transformers() -> None:
    batch = _batch(PaddingParams())
    assert batch["input_ids"] == batch.input_ids
    assert "attention_mask" in batch.keys()
    with pytest.raises(KeyError):
        batch["pixel_values"]


def test_through_the_pipeline() -> None:
    from tokenizer_core.classic.word import WordLevel
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.text.pre_tokenizers import Whitespace

    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "the": 4, "cat": 5, "sat": 6}
    tok = Tokenizer(WordLevel(vocab, unk_token="[UNK]"), pre_tokenizer=Whitespace(),
                    post_processor=TemplateProcessing.bert(vocab=vocab), special_tokens=["[PAD]", "[CLS]", "[SEP]"])
    batch = tok.encode_batch(["the cat sat", "cat"], pairs=["sat", "the dog"], padding=PaddingParams(side="left"))
    assert batch.input_ids == [[2, 4, 5, 6, 3, 6, 3], [0, 2, 5, 3, 4, 1, 3]]
    assert batch.token_type_ids == [[0, 0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 1, 1, 1]]
    assert batch.offsets[1][5] == (4, 7)  # "dog" in the second text
