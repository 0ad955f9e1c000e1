"""Import a SentencePiece Unigram ``.model`` file as our :class:`~tokenizer_core.pipeline.Tokenizer`.

The file is read with the ``sentencepiece`` package's ``ModelProto``: every piece
keeps its id and score; ``<unk>`` becomes the unknown token; control pieces
(``<s>``, ``</s>``) become special tokens; byte pieces (``<0x41>``) serve byte
fallback. The normalizer and pre-tokenizer follow the file's settings:
``nmt_nfkc``/``nfkc`` become NFKC (SentencePiece's ``nmt_nfkc`` adds a few
mappings of control and space characters on top, which is the one place the two
can differ), ``*_cf`` adds lowercasing, ``add_dummy_prefix`` puts "▁" before the
text and ``remove_extra_whitespaces`` splits on runs of whitespace.

Registered as ``import --format sentencepiece``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from .errors import FormatError, TokenizerError
from .formats import register_importer

if TYPE_CHECKING:
    from .pipeline import Tokenizer

# sentencepiece_model.proto enums
_UNIGRAM = 1
_NORMAL, _UNKNOWN, _CONTROL, _USER_DEFINED, _UNUSED, _BYTE = 1, 2, 3, 4, 5, 6
_MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}


def _model_proto(path: Union[str, Path]) -> Any:
    try:
        from sentencepiece import sentencepiece_model_pb2
    except ImportError as err:  # pragma: no cover - the package is a test dependency
        raise TokenizerError("reading .model files needs the sentencepiece package: pip install sentencepiece") from err
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise FormatError(f"cannot read {path}: {err.strerror or err}") from err
    proto = sentencepiece_model_pb2.ModelProto()
    try:
        proto.ParseFromString(data)
    except Exception as err:  # protobuf raises its own DecodeError type
        raise FormatError(f"{path} is not a SentencePiece .model file ({err})") from err
    if not proto.pieces:
        raise FormatError(f"{path} is not a SentencePiece .model file (it has no pieces)")
    return proto


def import_sentencepiece_model(path: Union[str, Path]) -> "Tokenizer":
    """Our Unigram tokenizer for a SentencePiece Unigram model file."""
    from .decoders import ByteFallbackDecoder, MetaspaceDecoder, SequenceDecoder
    from .models.unigram import Unigram
    from .normalizers import NFKC, Lowercase
    from .normalizers import Sequence as NormalizerSequence
    from .pipeline import Tokenizer
    from .pre_tokenizers import Metaspace, WhitespaceSplit
    from .pre_tokenizers import Sequence as PreTokenizerSequence

    proto = _model_proto(path)
    spec, norm = proto.trainer_spec, proto.normalizer_spec
    model_type = spec.model_type if spec.HasField("model_type") else _UNIGRAM
    if model_type != _UNIGRAM:
        raise FormatError(
            f"{path} is a SentencePiece {_MODEL_TYPES.get(model_type, model_type)} model; "
            "only Unigram models can be imported here"
        )
    if spec.treat_whitespace_as_suffix:
        raise FormatError(f"{path} puts '▁' at the end of words (treat_whitespace_as_suffix), which is not supported")

    vocab = [(p.piece, float(p.score)) for p in proto.pieces]
    unk_ids = [i for i, p in enumerate(proto.pieces) if p.type == _UNKNOWN]
    control = [p.piece for p in proto.pieces if p.type in (_CONTROL, _UNKNOWN)]
    unused = [p.piece for p in proto.pieces if p.type == _UNUSED]
    model = Unigram(vocab, unk_id=unk_ids[0] if unk_ids else None, byte_fallback=bool(spec.byte_fallback),
                    special_tokens=control + unused)

    name = norm.name or "nmt_nfkc"
    normalizer: Any
    if name in ("nmt_nfkc", "nfkc"):
        normalizer = NFKC()
    elif name in ("nmt_nfkc_cf", "nfkc_cf"):
        normalizer = NormalizerSequence([NFKC(), Lowercase()])
    elif name == "identity":
        normalizer = None
    else:  # custom rule tables: NFKC is the closest standard form
        normalizer = NFKC()
    add_prefix = norm.add_dummy_prefix if norm.HasField("add_dummy_prefix") else True
    remove_extra = norm.remove_extra_whitespaces if norm.HasField("remove_extra_whitespaces") else True
    split = spec.split_by_whitespace if spec.HasField("split_by_whitespace") else True
    scheme = "always" if add_prefix else "never"
    meta = Metaspace(prepend_scheme=scheme, split=split)
    pre: Any = PreTokenizerSequence([WhitespaceSplit(), meta]) if remove_extra and split else meta
    decoder: Any = MetaspaceDecoder(prepend_scheme=scheme, split=split)
    if spec.byte_fallback:
        decoder = SequenceDecoder([ByteFallbackDecoder(), decoder])
    return Tokenizer(model, normalizer=normalizer, pre_tokenizer=pre, decoder=decoder, special_tokens=control,
                     metadata={"source": "sentencepiece", "sentencepiece_normalizer": name})


@register_importer("sentencepiece")
def _import(path: str) -> "Tokenizer":
    return import_sentencepiece_model(path)
