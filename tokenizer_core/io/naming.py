"""Names for imported tokenizers, read from their files: people tell Gemma 3 from gpt-oss on a
shelf, not five rows of "tokenizer.json".

The name is the model's (a ``tokenizer_config.json``'s ``name_or_path``, else its class without
the ``Tokenizer``/``Fast`` suffixes, else the uploaded file's name when it is not a generic one),
then the kind of model and its vocabulary size.

>>> imported_name(["gemma-3.json"], model_type="BPE", vocab_size=262_145)
'gemma-3 · BPE 262,145'
>>> imported_name(["tokenizer.json", "tokenizer_config.json"], model_type="BPE", vocab_size=151_669,
...               config={"tokenizer_class": "Qwen2TokenizerFast"})
'Qwen2 · BPE 151,669'
>>> imported_name(["tokenizer.json"], model_type="Unigram", vocab_size=32_000)
'tokenizer.json · Unigram 32,000'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any, Optional

#: File names that say nothing about the model (every tokenizer.json is called that).
GENERIC_FILES = frozenset({"tokenizer.json", "tokenizer.model", "vocab.txt", "vocab.json", "encoder.json",
                           "vocab.bpe", "merges.txt", "spiece.model", "sentencepiece.bpe.model",
                           "tokenizer_config.json"})
#: Classes every kind of model uses (they name no model).
GENERIC_CLASSES = frozenset({"PreTrainedTokenizerFast", "PreTrainedTokenizer", "TokenizersBackend"})
MAX_NAME = 60


def family(files: Sequence[str], config: Optional[Mapping[str, Any]] = None) -> Optional[str]:
    """The model's own name, from its config or its file names; None when they name no model."""
    config = config or {}
    for key in ("name_or_path", "_name_or_path"):
        value = config.get(key)
        if isinstance(value, str) and value.strip():
            return PurePath(value.strip()).name or value.strip()
    cls = config.get("tokenizer_class")
    if isinstance(cls, str) and cls.strip() and cls not in GENERIC_CLASSES:
        short = cls.strip()
        for suffix in ("Fast", "Tokenizer"):
            short = short[: -len(suffix)] if short.endswith(suffix) and len(short) > len(suffix) else short
        return short
    specific = [PurePath(f).name for f in files if PurePath(f).name.lower() not in GENERIC_FILES]
    if specific:
        stem = PurePath(specific[0]).stem
        return stem[:-len(".tokenizer")] if stem.endswith(".tokenizer") else stem
    return None


def imported_name(files: Sequence[str], *, model_type: str, vocab_size: int,
                  config: Optional[Mapping[str, Any]] = None) -> str:
    """The shelf name of an imported tokenizer (at most :data:`MAX_NAME` characters)."""
    head = family(files, config) or (PurePath(files[0]).name if files else "imported")
    tail = f" · {model_type} {vocab_size:,}"
    return head[: MAX_NAME - len(tail)].rstrip() + tail
