"""The tokenizer's file forms: the package's own versioned JSON and Hugging Face's ``tokenizer.json``.

:class:`~tokenizer_core.pipeline.Tokenizer` keeps ``to_dict``/``from_dict``/``to_hf_json`` as its
methods; the documents are written and checked here.

>>> read_header({"format": FORMAT_NAME, "version": 1, "model": {}})
([], None, {})
>>> read_header({"format": FORMAT_NAME, "version": 99, "model": {}})
Traceback (most recent call last):
...
tokenizer_core.errors.FormatError: tokenizer file version 99 is newer than this program understands (1); upgrade
"""

from __future__ import annotations

from typing import Any, Optional

from tokenizer_core.errors import FormatError

FORMAT_NAME = "tokenizer-playground"
FORMAT_VERSION = 1

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "hf_document", "own_document", "read_header"]


def _stage(component: Any, method: str) -> Optional[dict[str, Any]]:
    return None if component is None else getattr(component, method)()


def own_document(tok: Any) -> dict[str, Any]:
    """The package's own versioned JSON form of a tokenizer."""
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "special_tokens": list(tok.special_tokens),
        "added_tokens": [t.to_dict() for t, _ in tok.added.entries],
        "normalizer": _stage(tok.normalizer, "to_dict"),
        "pre_tokenizer": _stage(tok.pre_tokenizer, "to_dict"),
        "model": tok.model.to_dict(),
        "post_processor": _stage(tok.post_processor, "to_dict"),
        "decoder": _stage(tok.decoder, "to_dict"),
        "metadata": tok.metadata,
    }


def hf_document(tok: Any) -> dict[str, Any]:
    """A Hugging Face ``tokenizer.json`` document for a tokenizer."""
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": tok.added.to_hf(),
        "normalizer": _stage(tok.normalizer, "to_hf"),
        "pre_tokenizer": _stage(tok.pre_tokenizer, "to_hf"),
        "post_processor": _stage(tok.post_processor, "to_hf"),
        "decoder": _stage(tok.decoder, "to_hf"),
        "model": tok.model.to_hf(),
    }


def read_header(data: Any) -> tuple[list[str], Optional[list[Any]], dict[str, Any]]:
    """The checked parts of an own-format document other than its stages: special tokens, added
    tokens (None in files from before they were saved) and metadata; FormatError when malformed."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise FormatError(f"not a {FORMAT_NAME} tokenizer file (missing \"format\": \"{FORMAT_NAME}\")")
    version = data.get("version")
    if not isinstance(version, int):
        raise FormatError("tokenizer file has no integer \"version\" field")
    if version > FORMAT_VERSION:
        raise FormatError(
            f"tokenizer file version {version} is newer than this program understands ({FORMAT_VERSION}); upgrade"
        )
    if "model" not in data:
        raise FormatError("tokenizer file has no \"model\"")
    specials = data.get("special_tokens", [])
    if not isinstance(specials, list) or not all(isinstance(t, str) for t in specials):
        raise FormatError("\"special_tokens\" must be a list of strings")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise FormatError("\"metadata\" must be an object")
    added = data.get("added_tokens")  # with their flags (files from before hold special_tokens only)
    if added is not None and not isinstance(added, list):
        raise FormatError("\"added_tokens\" must be a list of objects")
    return specials, added, metadata
