"""Read a SentencePiece ``.model`` file: a ``ModelProto`` protocol buffer, decoded here by hand.

Only the fields that decide how text becomes ids are kept (the published
``sentencepiece_model.proto`` numbers them; ``tests/core/io/test_sentencepiece_matrix.py`` checks
ours against the ``sentencepiece`` package's own schema). Reading the wire format directly
needs neither ``protobuf`` nor ``sentencepiece``, and lets every defect of a damaged file
end in a :class:`~tokenizer_core.errors.FormatError` that says what is wrong.

>>> unk = bytes([0x0A, 0x09, 0x0A, 0x05]) + b"<unk>" + bytes([0x18, 0x02])  # "<unk>", type UNKNOWN
>>> a = bytes([0x0A, 0x03, 0x0A, 0x01]) + b"a"                        # "a", type NORMAL
>>> spec = parse_model_proto(unk + a, "demo.model")
>>> [(p.piece, p.type) for p in spec.pieces], spec.model_type, spec.add_dummy_prefix
([('<unk>', 2), ('a', 1)], 1, True)
>>> parse_model_proto(unk + a[:-1], "demo.model")
Traceback (most recent call last):
...
tokenizer_core.errors.FormatError: demo.model is not a SentencePiece .model file (a field runs past the end of its message)
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Union

from tokenizer_core.errors import FormatError

# Enum values of sentencepiece_model.proto.
UNIGRAM, BPE, WORD, CHAR = 1, 2, 3, 4
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
MODEL_TYPE_NAMES = {UNIGRAM: "unigram", BPE: "bpe", WORD: "word", CHAR: "char"}
PIECE_TYPE_NAMES = {NORMAL: "normal", UNKNOWN: "unknown", CONTROL: "control", USER_DEFINED: "user_defined",
                    UNUSED: "unused", BYTE: "byte"}

_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5
_FLOAT = struct.Struct("<f")


@dataclass(frozen=True, slots=True)
class PieceEntry:
    """One vocabulary entry: its text, score (a 32-bit float) and type (``NORMAL`` ... ``BYTE``)."""

    piece: str
    score: float
    type: int = NORMAL


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """What a ``.model`` file says about encoding and decoding (defaults are the proto's)."""

    pieces: tuple[PieceEntry, ...]
    model_type: int = UNIGRAM
    byte_fallback: bool = False
    split_by_whitespace: bool = True
    treat_whitespace_as_suffix: bool = False
    unk_surface: str = " \u2047 "
    normalizer_name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True
    denormalizer_charsmap: bytes = field(default=b"", repr=False)


class _Malformed(Exception):
    """A defect found while decoding; ``parse_model_proto`` names the file around it."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise _Malformed("a number is cut off at the end of the data")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise _Malformed("a number is longer than 10 bytes")


def _fields(data: bytes) -> Iterator[tuple[int, int, Union[int, bytes]]]:
    """``(field number, wire type, value)`` for each field of one message."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Malformed("a field has number 0")
        value: Union[int, bytes]
        if wire == _VARINT:
            value, pos = _varint(data, pos)
        elif wire in (_FIXED64, _FIXED32, _BYTES):
            if wire == _BYTES:
                size, pos = _varint(data, pos)
            else:
                size = 8 if wire == _FIXED64 else 4
            if pos + size > len(data):
                raise _Malformed("a field runs past the end of its message")
            value, pos = data[pos:pos + size], pos + size
        else:  # 3/4 are the long-deprecated groups, 6/7 do not exist
            raise _Malformed(f"field {number} has wire type {wire}, which .model files never use")
        yield number, wire, value


def _expect(number: int, wire: int, want: int, what: str) -> None:
    if wire != want:
        raise _Malformed(f"{what} (field {number}) has the wrong wire type {wire}")


def _text(value: Union[int, bytes], what: str) -> str:
    assert isinstance(value, bytes)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _Malformed(f"{what} is not valid UTF-8 ({err.reason})") from None


def _piece(data: bytes) -> PieceEntry:
    piece, score, kind = None, 0.0, NORMAL
    for number, wire, value in _fields(data):
        if number == 1:
            _expect(number, wire, _BYTES, "a piece's text")
            piece = _text(value, "a piece's text")
        elif number == 2:
            _expect(number, wire, _FIXED32, "a piece's score")
            assert isinstance(value, bytes)
            score = _FLOAT.unpack(value)[0]
        elif number == 3:
            _expect(number, wire, _VARINT, "a piece's type")
            assert isinstance(value, int)
            kind = value
    if not piece:
        raise _Malformed("a piece has no text")
    if kind not in PIECE_TYPE_NAMES:
        raise _Malformed(f"piece {piece!r} has unknown type {kind}")
    if not math.isfinite(score):
        raise _Malformed(f"piece {piece!r} has score {score}")
    return PieceEntry(piece, score, kind)


# field number -> (ModelSpec attribute, wire type, kind) for the two spec messages
_TRAINER_FIELDS = {3: ("model_type", _VARINT, int), 35: ("byte_fallback", _VARINT, bool),
                   22: ("split_by_whitespace", _VARINT, bool), 24: ("treat_whitespace_as_suffix", _VARINT, bool),
                   44: ("unk_surface", _BYTES, str)}
_NORMALIZER_FIELDS = {1: ("normalizer_name", _BYTES, str), 2: ("precompiled_charsmap", _BYTES, bytes),
                      3: ("add_dummy_prefix", _VARINT, bool), 4: ("remove_extra_whitespaces", _VARINT, bool),
                      5: ("escape_whitespaces", _VARINT, bool)}


def _spec_fields(data: bytes, table: dict[int, tuple[str, int, type]], what: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for number, wire, value in _fields(data):
        entry = table.get(number)
        if entry is None:  # training settings that do not change encoding
            continue
        name, want, kind = entry
        _expect(number, wire, want, f"{what} {name}")
        if kind is str:
            out[name] = _text(value, f"{what} {name}")
        elif kind is bool:
            out[name] = bool(value)
        else:
            out[name] = value
    return out


def parse_model_proto(data: bytes, name: str) -> ModelSpec:
    """Decode the bytes of a ``.model`` file named ``name`` (used in error messages)."""
    pieces: list[PieceEntry] = []
    settings: dict[str, object] = {}
    try:
        for number, wire, value in _fields(data):
            if number in (1, 2, 3, 5):
                _expect(number, wire, _BYTES, "a model section")
                assert isinstance(value, bytes)
            if number == 1:
                pieces.append(_piece(value))  # type: ignore[arg-type]
            elif number == 2:
                settings.update(_spec_fields(value, _TRAINER_FIELDS, "trainer"))  # type: ignore[arg-type]
            elif number == 3:
                settings.update(_spec_fields(value, _NORMALIZER_FIELDS, "normalizer"))  # type: ignore[arg-type]
            elif number == 5:
                denorm = _spec_fields(value, _NORMALIZER_FIELDS, "denormalizer")  # type: ignore[arg-type]
                settings["denormalizer_charsmap"] = denorm.get("precompiled_charsmap", b"")
    except _Malformed as err:
        raise FormatError(f"{name} is not a SentencePiece .model file ({err})") from None
    if not pieces:
        raise FormatError(f"{name} is not a SentencePiece .model file (it has no pieces)")
    return ModelSpec(pieces=tuple(pieces), **settings)  # type: ignore[arg-type]
