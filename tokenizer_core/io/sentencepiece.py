"""Import a SentencePiece ``.model`` file (Unigram or BPE) as our :class:`~tokenizer_core.pipeline.Tokenizer`.

The file is decoded by :mod:`~tokenizer_core.io.sentencepiece_proto` and rebuilt from the
parts that behave exactly like ``sentencepiece``:

* normalizer: :class:`~tokenizer_core.unigram.sentencepiece_normalizer.SentencePieceNormalizer`
  with the file's own precompiled rule table (``nmt_nfkc``, ``nfkc``, ``identity``,
  ``*_cf``, custom tables), ``add_dummy_prefix``, ``remove_extra_whitespaces``,
  ``escape_whitespaces``, ``treat_whitespace_as_suffix`` and the user-defined symbols;
* no pre-tokenizer: like ``sentencepiece``, the model segments the whole normalized text;
* model: :class:`~tokenizer_core.unigram.sentencepiece_unigram.SentencePieceUnigram` or
  :class:`~tokenizer_core.bpe.sentencepiece_bpe.SentencePieceBPE` with every piece's id,
  score and type (byte fallback works with whichever byte pieces the file has);
* decoder: :class:`~tokenizer_core.unigram.sentencepiece_decoder.SentencePieceDecoder`.

Control pieces (``<s>``, ``</s>``) are not special tokens of the tokenizer: ``sentencepiece``
never matches them in text (typing "<s>" gives the pieces of "<", "s", ">"), and decodes
them to nothing. They are listed in the tokenizer's metadata. A ``denormalizer_spec``
(a rule table applied when decoding, which models almost never have) is refused.

Registered as ``import --format sentencepiece``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from tokenizer_core.errors import FormatError
from tokenizer_core.io.sentencepiece_proto import (
    BPE,
    BYTE,
    CONTROL,
    MODEL_TYPE_NAMES,
    PIECE_TYPE_NAMES,
    UNIGRAM,
    UNKNOWN,
    USER_DEFINED,
    ModelSpec,
    parse_model_proto,
)
from tokenizer_core.unigram.sentencepiece_decoder import byte_of

if TYPE_CHECKING:
    from tokenizer_core.pipeline import Tokenizer


def read_model_spec(path: Union[str, Path]) -> ModelSpec:
    """The decoded ``.model`` file at ``path``; unreadable or malformed files raise FormatError."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise FormatError(f"cannot read {path}: {err.strerror or err}") from err
    return parse_model_proto(data, str(path))


def _check(spec: ModelSpec, name: str) -> None:
    if spec.model_type not in (UNIGRAM, BPE):
        kind = MODEL_TYPE_NAMES.get(spec.model_type, f"type-{spec.model_type}")
        raise FormatError(f"{name} is a SentencePiece {kind} model; only Unigram and BPE models can be imported")
    seen: set[str] = set()
    for p in spec.pieces:
        if p.piece in seen:
            raise FormatError(f"{name} is not a valid SentencePiece model: piece {p.piece!r} appears twice")
        seen.add(p.piece)
        if p.type == BYTE and byte_of(p.piece) is None:
            raise FormatError(f"{name} is not a valid SentencePiece model: byte piece {p.piece!r} is not "
                              "written <0xXX>")
    unknown = [p.piece for p in spec.pieces if p.type == UNKNOWN]
    if len(unknown) != 1:
        raise FormatError(f"{name} is not a valid SentencePiece model: it needs exactly one unknown piece "
                          f"(<unk>), found {len(unknown)}")
    if spec.denormalizer_charsmap:
        raise FormatError(f"{name} has a denormalization table (denormalizer_spec), which is not supported")


def sentencepiece_tokenizer(spec: ModelSpec, *, name: str = "the model") -> "Tokenizer":
    """Our tokenizer for a decoded ``.model`` file (see the module docstring)."""
    from tokenizer_core.bpe.sentencepiece_bpe import SentencePieceBPE
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.unigram.sentencepiece_decoder import SentencePieceDecoder
    from tokenizer_core.unigram.sentencepiece_normalizer import SentencePieceNormalizer
    from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram

    _check(spec, name)
    vocab = [(p.piece, p.score, PIECE_TYPE_NAMES[p.type]) for p in spec.pieces]
    model: Any
    with _as_format_error(name):
        if spec.model_type == BPE:
            model = SentencePieceBPE(vocab, byte_fallback=spec.byte_fallback)
        else:
            model = SentencePieceUnigram(vocab, byte_fallback=spec.byte_fallback)
        normalizer = SentencePieceNormalizer(
            charsmap=spec.precompiled_charsmap, name=spec.normalizer_name,
            add_dummy_prefix=spec.add_dummy_prefix, remove_extra_whitespaces=spec.remove_extra_whitespaces,
            escape_whitespaces=spec.escape_whitespaces, treat_whitespace_as_suffix=spec.treat_whitespace_as_suffix,
            user_defined_symbols=[p.piece for p in spec.pieces if p.type == USER_DEFINED])
        normalizer.normalize_str("Probe: ﬁ ①")  # a broken rule table shows up here, not in a lesson
    decoder = SentencePieceDecoder(
        control_tokens=[p.piece for p in spec.pieces if p.type == CONTROL],
        unk_token=next(p.piece for p in spec.pieces if p.type == UNKNOWN), unk_surface=spec.unk_surface,
        byte_tokens=[p.piece for p in spec.pieces if p.type == BYTE], add_dummy_prefix=spec.add_dummy_prefix,
        remove_extra_whitespaces=spec.remove_extra_whitespaces, escape_whitespaces=spec.escape_whitespaces)
    metadata = {
        "source": "sentencepiece",
        "sentencepiece_model_type": MODEL_TYPE_NAMES[spec.model_type],
        "sentencepiece_normalizer": spec.normalizer_name or "(unnamed rule table)",
        "control_tokens": [p.piece for p in spec.pieces if p.type == CONTROL],
        "unk_token": decoder.unk_token,
    }
    return Tokenizer(model, normalizer=normalizer, decoder=decoder, metadata=metadata)


@contextmanager
def _as_format_error(name: str) -> Iterator[None]:
    """Report a model the encoders refuse as a malformed file, naming it."""
    try:
        yield
    except FormatError as err:  # the encoders' own checks never know the file's name
        raise FormatError(f"{name}: {err}", part=name) from err
    except ValueError as err:  # TokenizerError from the encoders' checks
        raise FormatError(f"{name} is not a valid SentencePiece model: {err}") from err


def import_sentencepiece_model(path: Union[str, Path]) -> "Tokenizer":
    """Our tokenizer for the SentencePiece Unigram or BPE ``.model`` file at ``path``.

    >>> import_sentencepiece_model("missing.model")
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.FormatError: cannot read missing.model: No such file or directory
    """
    return sentencepiece_tokenizer(read_model_spec(path), name=str(path))
