"""The parts of a Hugging Face ``tokenizer.json`` rebuilt with our components, one converter per kind.

Each converter takes the JSON object of one part and returns our equivalent; a part we do
not implement, or malformed data, is a :class:`~tokenizer_core.errors.FormatError` that
names the part and its type, never a silent difference.

>>> normalizer_from_hf({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
...     {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}).normalize_str("a b")
'▁a▁b'
>>> pre_tokenizer_from_hf({"type": "Digits", "individual_digits": True}).words("a12")
['a', '1', '2']
>>> decoder_from_hf({"type": "Strip", "content": " ", "start": 1, "stop": 0}).decode([" hi"])
'hi'
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

from tokenizer_core.errors import FormatError, UnsupportedError
from tokenizer_core.registry import REGISTRY, build, malformed_as_format_error
from tokenizer_core.text import decoders as dec
from tokenizer_core.text import normalizers as norm
from tokenizer_core.text import pre_tokenizers as pre
from tokenizer_core.text.edit_decoders import ReplaceDecoder, StripDecoder
from tokenizer_core.text.patterns import has_line_anchors, python_pattern
from tokenizer_core.text.precompiled import Precompiled
from tokenizer_core.text.splitting import Digits, Split, pattern_of


def unsupported(kind: str, data: Any) -> UnsupportedError:
    """The error for a part the playground does not implement."""
    kind_type = data.get("type") if isinstance(data, dict) else None
    return UnsupportedError(f"this tokenizer.json uses a {kind} of type {kind_type!r}, which the playground "
                       f"does not implement yet")


@contextmanager
def _part(kind: str, type_name: str) -> Iterator[None]:
    """Errors while building one part become FormatErrors that name the part and its type."""
    what = f"{kind} of type {type_name!r}"
    try:
        with malformed_as_format_error(what):
            yield
    except UnsupportedError:
        raise  # it names its own part, which may sit inside this one
    except FormatError as err:
        if err.part == what:
            raise
        raise FormatError(f"malformed {what}: {err}", part=what) from err


def _type_of(data: Any, kind: str) -> str:
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise FormatError(f"malformed {kind} in tokenizer.json: expected an object with a \"type\", got {data!r:.80}")
    return data["type"]


def _list(data: dict[str, Any], key: str, kind: str) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise FormatError(f"malformed {kind} of type 'Sequence': \"{key}\" must be a list",
                          part=f"{kind} of type 'Sequence'")
    return value


def _scheme(data: dict[str, Any]) -> str:
    # Files written before prepend_scheme existed say add_prefix_space instead.
    scheme = data.get("prepend_scheme")
    if scheme is None:
        return "always" if data.get("add_prefix_space", True) else "never"
    return str(scheme).lower()


# ------------------------------------------------------------------ normalizers
_SIMPLE_NORMALIZERS = {"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD,
                       "Lowercase": norm.Lowercase, "StripAccents": norm.StripAccents}


def normalizer_from_hf(data: Optional[dict[str, Any]]) -> Any:
    """Our normalizer for a tokenizers normalizer object."""
    if data is None:
        return None
    t = _type_of(data, "normalizer")
    with _part("normalizer", t):
        if t in _SIMPLE_NORMALIZERS:
            return _SIMPLE_NORMALIZERS[t]()
        if t == "BertNormalizer":
            return norm.BertNormalizer.from_dict(data)
        if t == "Sequence":
            parts = [normalizer_from_hf(d) for d in _list(data, "normalizers", "normalizer")]
            return norm.Sequence([n for n in parts if n is not None])
        if t == "Replace":
            return norm.Replace.from_dict(data)
        if t == "Prepend":
            return norm.Prepend(data["prepend"])
        if t == "Strip":
            return norm.Strip.from_dict(data)
        if t == "Precompiled":
            return Precompiled.from_dict(data)
    raise unsupported("normalizer", data)


# --------------------------------------------------------------- pre-tokenizers
_SIMPLE_PRE = {"Whitespace": pre.Whitespace, "WhitespaceSplit": pre.WhitespaceSplit,
               "BertPreTokenizer": pre.BertPreTokenizer}


def _byte_level_pattern(split: Any, byte_level: Any) -> Optional[str]:
    """The pattern when Split(regex, isolated) + ByteLevel(no regex, no prefix) is one of our
    ByteLevel pre-tokenizers with that pattern (Llama 3, Qwen...), else None."""
    if not (isinstance(split, Split) and isinstance(byte_level, pre.ByteLevel)):
        return None
    if byte_level.use_regex or byte_level.add_prefix_space or split.invert or split.behavior != "isolated":
        return None
    # Only a pattern that Python's regex reads exactly as Oniguruma does (no line anchors).
    p = split.pattern if split.is_regex else None
    if p is None or python_pattern(p) != p or has_line_anchors(p):
        return None
    return p


def pre_tokenizer_from_hf(data: Optional[dict[str, Any]]) -> Any:
    """Our pre-tokenizer for a tokenizers pre-tokenizer object."""
    if data is None:
        return None
    t = _type_of(data, "pre-tokenizer")
    with _part("pre-tokenizer", t):
        if t in _SIMPLE_PRE:
            return _SIMPLE_PRE[t]()
        if t == "Punctuation":
            return pre.Punctuation(behavior=data.get("behavior", "Isolated"))
        if t == "ByteLevel":
            return pre.ByteLevel(add_prefix_space=bool(data.get("add_prefix_space", True)),
                                 use_regex=bool(data.get("use_regex", True)))
        if t == "Metaspace":
            return pre.Metaspace(replacement=data.get("replacement", "▁"), prepend_scheme=_scheme(data),
                                 split=bool(data.get("split", True)))
        if t == "Split":
            pattern, is_regex = pattern_of(data, "Split pre-tokenizer")
            invert = bool(data.get("invert", False))
            if is_regex and invert and pattern == pre.WordSplit.pattern and str(data.get("behavior")).lower() == "removed":
                return pre.WordSplit()  # our own pre-tokenizer, written this way
            return Split.from_dict(data)
        if t == "Digits":
            return Digits.from_dict(data)
        if t == "CharDelimiterSplit":
            return Split(data["delimiter"], behavior="removed")
        if t == "Sequence":
            parts = [p for p in (pre_tokenizer_from_hf(d) for d in _list(data, "pretokenizers", "pre-tokenizer"))
                     if p is not None]
            if not parts:
                return None  # an empty sequence changes nothing: one piece per text, as no pre-tokenizer
            if len(parts) == 2:
                pattern = _byte_level_pattern(*parts)
                if pattern is not None:
                    return pre.ByteLevel(pattern=pattern)
            return pre.Sequence(parts)
    raise unsupported("pre-tokenizer", data)


# --------------------------------------------------------------------- decoders
def decoder_from_hf(data: Optional[dict[str, Any]]) -> Any:
    """Our decoder for a tokenizers decoder object."""
    if data is None:
        return None
    t = _type_of(data, "decoder")
    with _part("decoder", t):
        if t == "ByteLevel":
            return dec.ByteLevelDecoder()
        if t == "Metaspace":
            return dec.MetaspaceDecoder(replacement=data.get("replacement", "▁"), prepend_scheme=_scheme(data),
                                        split=bool(data.get("split", True)))
        if t == "WordPiece":
            return dec.WordPieceDecoder(prefix=data.get("prefix", "##"), cleanup=bool(data.get("cleanup", True)))
        if t == "BPEDecoder":
            return dec.BPESuffixDecoder(suffix=data.get("suffix", "</w>"))
        if t == "Fuse":
            return dec.JoinDecoder("")
        if t == "ByteFallback":
            return dec.ByteFallbackDecoder()
        if t == "Strip":
            return StripDecoder.from_dict(data)
        if t == "Replace":
            return ReplaceDecoder.from_dict(data)
        if t == "Sequence":
            parts = [decoder_from_hf(d) for d in _list(data, "decoders", "decoder")]
            return dec.SequenceDecoder([d for d in parts if d is not None])
    raise unsupported("decoder", data)


# ----------------------------------------------------------- models, processors
def model_from_hf(data: Any) -> Any:
    """Our model for a tokenizers model object (via the model class's ``from_hf``)."""
    if not isinstance(data, dict):
        raise FormatError("tokenizer.json has no model object")
    t = data.get("type")
    if t is None:  # very old files leave out the type; guess from the fields
        t = "BPE" if "merges" in data else "WordPiece" if "continuing_subword_prefix" in data else \
            "Unigram" if isinstance(data.get("vocab"), list) else "WordLevel"
    cls = REGISTRY.get(("model", t)) if isinstance(t, str) else None
    if cls is None or not hasattr(cls, "from_hf"):
        raise unsupported("model", {"type": t})
    if t == "BPE" and data.get("dropout") not in (None, 0, 0.0):
        raise FormatError(f"this BPE model has dropout {data.get('dropout')!r}: tokenizers then picks a random "
                          "segmentation on every call; the playground imports deterministic models only "
                          "(set \"dropout\": null, and sample with the encode options instead)")
    with malformed_as_format_error(f"{t} model in tokenizer.json"):
        return cls.from_hf(data)


def post_processor_from_hf(data: Optional[dict[str, Any]]) -> Any:
    """Our post-processor for a tokenizers post-processor object (the JSON forms are the same)."""
    if data is None:
        return None
    t = _type_of(data, "post-processor")
    if ("post_processor", t) not in REGISTRY:
        raise unsupported("post-processor", data)
    return build("post_processor", data)
