"""Padding single encodings and batches: settings, hand-computed results, tokenizer.json."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models

from tokenizer_core.batch.padding import PaddingParams, pad_encoding, pad_encodings
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding, Token


def enc(*ids: int) -> Encoding:
    return Encoding.from_tokens([Token(i, f"t{i}", (k, k + 1)) for k, i in enumerate(ids)],
                                word_ids=list(range(len(ids))))


def test_right_and_left_padding_by_hand() -> None:
    e = enc(5, 6)
    right = pad_encoding(e, 4, params=PaddingParams(pad_id=9, pad_token="<pad>", pad_type_id=2))
    assert right.ids == [5, 6, 9, 9]
    assert right.tokens == ["t5", "t6", "<pad>", "<pad>"]
    assert right.attention_mask == [1, 1, 0, 0]
    assert right.special_tokens_mask == [0, 0, 1, 1]
    assert right.type_ids == [0, 0, 2, 2]
    assert right.offsets == [(0, 1), (1, 2), (0, 0), (0, 0)]
    assert right.word_ids == [0, 1, None, None]
    assert right.sequence_ids == [0, 0, None, None]
    left = pad_encoding(e, 4, params=PaddingParams(side="left"))
    assert left.ids == [0, 0, 5, 6] and left.attention_mask == [0, 0, 1, 1] and left.word_ids == [None, None, 0, 1]
    assert e.ids == [5, 6]  # the input is not modified


def test_longer_encodings_are_left_alone_and_overflow_is_padded() -> None:
    e = enc(1, 2, 3)
    e.overflowing = [enc(4)]
    padded = pad_encoding(e, 2, params=PaddingParams())
    assert padded.ids == [1, 2, 3] and padded.overflowing[0].ids == [4, 0]


@pytest.mark.parametrize(
    "params,lengths,target",
    [
        (PaddingParams(), [3, 7, 5], 7),
        (PaddingParams(pad_to_multiple_of=4), [3, 7, 5], 8),
        (PaddingParams(pad_to_multiple_of=4), [8], 8),
        (PaddingParams(strategy="max_length", max_length=10), [3, 12], 10),
        (PaddingParams(strategy="max_length", max_length=10, pad_to_multiple_of=8), [3], 16),
        (PaddingParams(strategy="do_not_pad", pad_to_multiple_of=8), [3], None),
    ],
)
def test_target_length(params: PaddingParams, lengths: list[int], target: int) -> None:
    assert params.target_length(lengths) == target


def test_batch_padding() -> None:
    batch = pad_encodings([enc(1), enc(1, 2, 3), enc(1, 2)], params=PaddingParams(side="left", pad_to_multiple_of=2))
    assert [e.ids for e in batch] == [[0, 0, 0, 1], [0, 1, 2, 3], [0, 0, 1, 2]]
    assert pad_encodings([enc(1)], params=None)[0].ids == [1]
    assert pad_encodings([], params=PaddingParams()) == []


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"strategy": "longest_first"}, "unknown padding strategy"),
        ({"side": "up"}, "'right' or 'left'"),
        ({"strategy": "max_length"}, "needs max_length"),
        ({"pad_to_multiple_of": 0}, "pad_to_multiple_of"),
        ({"pad_id": -1}, "pad_id"),
        ({"pad_type_id": -1}, "pad_type_id"),
        ({"max_length": -3}, "max_length"),
    ],
)
def test_bad_settings(kwargs: dict, match: str) -> None:
    with pytest.raises(TokenizerError, match=match):
        PaddingParams(**kwargs)


@pytest.mark.parametrize(
    "params",
    [
        PaddingParams(),
        PaddingParams(side="left", pad_to_multiple_of=8, pad_id=3, pad_token="<pad>", pad_type_id=1),
        PaddingParams(strategy="max_length", max_length=32),
    ],
)
def test_tokenizer_json_matches_tokenizers(params: PaddingParams) -> None:
    tok = HFTokenizer(hf_models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.enable_padding(direction=params.side, pad_id=params.pad_id, pad_type_id=params.pad_type_id,
                       pad_token=params.pad_token, pad_to_multiple_of=params.pad_to_multiple_of,
                       length=params.max_length if params.strategy == "max_length" else None)
    assert params.to_hf() == json.loads(tok.to_str())["padding"]
    assert PaddingParams.from_hf(params.to_hf()) == params
    assert PaddingParams.from_dict(params.to_dict()) == params


def test_do_not_pad_round_trip() -> None:
    assert PaddingParams(strategy="do_not_pad").to_hf() is None
    assert PaddingParams.from_hf(None) == PaddingParams(strategy="do_not_pad")
