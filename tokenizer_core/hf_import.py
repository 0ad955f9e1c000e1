"""Read Hugging Face ``tokenizer.json`` files (local, or from the Hub when online) into our pipeline.

Each part of the file is rebuilt with our own components; a part we do not
implement is a :class:`~tokenizer_core.errors.FormatError` naming it, never a
silent difference. Models are converted by the model classes themselves: a
model class registered under the tokenizers name (``BPE``, ``WordPiece``,
``Unigram``, ``WordLevel``) provides ``from_hf(data)``.

>>> data = {"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1}, "unk_token": "[UNK]"},
...         "pre_tokenizer": {"type": "Whitespace"}, "added_tokens": []}
>>> tokenizer_from_hf(data).encode("hi there").tokens
['hi', '[UNK]']
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Union

from . import decoders as dec
from . import normalizers as norm
from . import pre_tokenizers as pre
from .errors import FormatError, TokenizerError
from .formats import register_importer
from .pipeline import Tokenizer, _read_json, _register_all
from .registry import _REGISTRY, malformed_as_format_error


def _unsupported(kind: str, data: dict[str, Any]) -> FormatError:
    return FormatError(f"this tokenizer.json uses a {kind} of type {data.get('type')!r}, which the playground "
                       f"does not implement yet")


def _pattern(data: dict[str, Any], kind: str) -> tuple[str, bool]:
    """``(pattern, is_regex)`` of a tokenizers pattern object ``{"String": s}`` / ``{"Regex": r}``."""
    pat = data.get("pattern") or {}
    if "Regex" in pat:
        return pat["Regex"], True
    if "String" in pat:
        return pat["String"], False
    raise FormatError(f"{kind} has no pattern")


def normalizer_from_hf(data: Optional[dict[str, Any]]) -> Any:
    """Our normalizer for a tokenizers normalizer object."""
    if data is None:
        return None
    t = data.get("type")
    simple = {"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD,
              "Lowercase": norm.Lowercase, "StripAccents": norm.StripAccents}
    if t in simple:
        return simple[t]()
    if t == "BertNormalizer":
        return norm.BertNormalizer.from_dict(data)
    if t == "Sequence":
        parts = [normalizer_from_hf(d) for d in data.get("normalizers", [])]
        return norm.Sequence([p for p in parts if p is not None])
    if t == "Replace":
        pattern, is_regex = _pattern(data, "Replace normalizer")
        if is_regex:
            raise _unsupported("normalizer (regex Replace)", data)
        return norm.Replace(pattern, data.get("content", ""))
    raise _unsupported("normalizer", data)


def pre_tokenizer_from_hf(data: Optional[dict[str, Any]]) -> Any:
    """Our pre-tokenizer for a tokenizers pre-tokenizer object."""
    if data is None:
        return None
    t = data.get("type")
    simple = {"Whitespace": pre.Whitespace, "WhitespaceSplit": pre.WhitespaceSplit,
              "BertPreTokenizer": pre.BertPreTokenizer}
    if t in simple:
        return simple[t]()
    if t == "Punctuation":
        if data.get("behavior", "Isolated").lower() != "isolated":
            raise _unsupported("Punctuation behaviour", {"type": data.get("behavior")})
        return pre.Punctuation()
    if t == "ByteLevel":
        return pre.ByteLevel(add_prefix_space=data.get("add_prefix_space", True), use_regex=data.get("use_regex", True))
    if t == "Metaspace":
        scheme = data.get("prepend_scheme") or ("always" if data.get("add_prefix_space", True) else "never")
        return pre.Metaspace(replacement=data.get("replacement", "▁"), prepend_scheme=scheme,
                             split=data.get("split", True))
    if t == "Split":
        pattern, is_regex = _pattern(data, "Split pre-tokenizer")
        behavior = str(data.get("behavior", "Isolated")).lower()
        invert = bool(data.get("invert", False))
        if behavior == "removed" and invert and pattern == pre.WordSplit.pattern:
            return pre.WordSplit()
        if behavior == "isolated" and not invert:
            import regex

            return pre.Regex(pattern if is_regex else regex.escape(pattern))
        raise _unsupported(f"Split pre-tokenizer with behavior {behavior!r}", data)
    if t == "Sequence":
        parts = [pre_tokenizer_from_hf(d) for d in data.get("pretokenizers", [])]
        # Split(pattern) followed by a regex-free ByteLevel is how a custom byte-level split is written.
        if (len(parts) == 2 and isinstance(parts[0], pre.Regex) and isinstance(parts[1], pre.ByteLevel)
                and not parts[1].use_regex and not parts[1].add_prefix_space):
            return pre.ByteLevel(pattern=parts[0].pattern)
        return pre.Sequence(parts)
    raise _unsupported("pre-tokenizer", data)


def decoder_from_hf(data: Optional[dict[str, Any]]) -> Any:
    """Our decoder for a tokenizers decoder object."""
    if data is None:
        return None
    t = data.get("type")
    if t == "ByteLevel":
        return dec.ByteLevelDecoder()
    if t == "Metaspace":
        scheme = data.get("prepend_scheme") or ("always" if data.get("add_prefix_space", True) else "never")
        return dec.MetaspaceDecoder(replacement=data.get("replacement", "▁"), prepend_scheme=scheme)
    if t == "WordPiece":
        return dec.WordPieceDecoder(prefix=data.get("prefix", "##"), cleanup=data.get("cleanup", True))
    if t == "BPEDecoder":
        return dec.BPESuffixDecoder(suffix=data.get("suffix", "</w>"))
    if t == "Fuse":
        return dec.JoinDecoder("")
    if t == "ByteFallback":
        return dec.ByteFallbackDecoder()
    if t == "Sequence":
        return dec.SequenceDecoder([decoder_from_hf(d) for d in data.get("decoders", [])])
    raise _unsupported("decoder", data)


def model_from_hf(data: dict[str, Any]) -> Any:
    """Our model for a tokenizers model object (via the model class's ``from_hf``)."""
    _register_all()
    if not isinstance(data, dict):
        raise FormatError("tokenizer.json has no model object")
    t = data.get("type")
    if t is None:  # very old files leave out the type; guess from the fields
        t = "BPE" if "merges" in data else "WordPiece" if "continuing_subword_prefix" in data else \
            "Unigram" if isinstance(data.get("vocab"), list) else "WordLevel"
    cls = _REGISTRY.get(("model", t))
    if cls is None or not hasattr(cls, "from_hf"):
        raise _unsupported("model", {"type": t})
    try:
        return cls.from_hf(data)
    except FormatError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise FormatError(f"malformed {t} model in tokenizer.json: {err}") from err


def post_processor_from_hf(data: Optional[dict[str, Any]]) -> Any:
    """Our post-processor for a tokenizers post-processor object (the JSON forms are the same)."""
    if data is None:
        return None
    _register_all()
    from .registry import build

    try:
        return build("post_processor", data)
    except FormatError as err:
        if "unknown post_processor type" in str(err):
            raise _unsupported("post-processor", data) from err
        raise


def tokenizer_from_hf(data: Any) -> Tokenizer:
    """A :class:`Tokenizer` equivalent to a parsed ``tokenizer.json``."""
    if not isinstance(data, dict) or "model" not in data:
        raise FormatError("not a tokenizers tokenizer.json (no \"model\" object)")
    with malformed_as_format_error("tokenizer.json"):
        model = model_from_hf(data["model"])
        specials = [a["content"] for a in data.get("added_tokens") or [] if isinstance(a, dict) and "content" in a]
        if not all(isinstance(t, str) and t for t in specials):
            raise FormatError("every added token needs a non-empty string \"content\"")
        missing = [s for s in specials if model.token_to_id(s) is None]
    if missing:
        raise FormatError(f"added tokens {missing[:5]} are not in the model's vocabulary; "
                          "the playground needs added tokens to be part of the vocabulary")
    with malformed_as_format_error("tokenizer.json"):
        tok = Tokenizer(
            model,
            normalizer=normalizer_from_hf(data.get("normalizer")),
            pre_tokenizer=pre_tokenizer_from_hf(data.get("pre_tokenizer")),
            post_processor=post_processor_from_hf(data.get("post_processor")),
            decoder=decoder_from_hf(data.get("decoder")),
            special_tokens=specials,
            metadata={"source": "tokenizer.json"},
        )
    tok.self_check()
    return tok


@register_importer("hf")
def load_hf_file(path: Union[str, Path]) -> Tokenizer:
    """Read a local ``tokenizer.json``."""
    tok = tokenizer_from_hf(_read_json(path))
    tok.metadata["source"] = str(path)
    return tok


def load_from_hub(repo_id: str, *, revision: Optional[str] = None, cache_dir: Optional[str] = None) -> Tokenizer:
    """Download ``tokenizer.json`` of a Hub repository (e.g. ``"bert-base-uncased"``) and read it.

    Needs network access to the Hub (or the file already in the local Hub cache). When the
    Hub cannot be reached, raises a :class:`TokenizerError` that says so.
    """
    repo_id = repo_id.strip()
    if not repo_id or any(c.isspace() for c in repo_id) or repo_id.count("/") > 1:
        raise TokenizerError(f"{repo_id!r} is not a Hub repository name; use the form 'owner/name' or 'name'")
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import (
            EntryNotFoundError,
            HfHubHTTPError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
        )
    except ImportError as err:  # pragma: no cover - huggingface_hub is a requirement
        raise TokenizerError("loading from the Hub needs the huggingface_hub package: pip install huggingface_hub") from err
    # Without a network the client retries for ~20 s; find out at once and use the cache only.
    online = not hub_offline() and hub_reachable()
    try:
        path = hf_hub_download(repo_id, "tokenizer.json", revision=revision, cache_dir=cache_dir,
                               etag_timeout=5, local_files_only=not online)
    except LocalEntryNotFoundError as err:  # a subclass of EntryNotFoundError: test it first
        raise TokenizerError(
            f"cannot reach the Hugging Face Hub to download {repo_id!r}, and it is not in the local cache; "
            "check the network connection (or HF_HUB_OFFLINE) and try again"
        ) from err
    except RepositoryNotFoundError as err:
        raise TokenizerError(f"the Hub has no repository {repo_id!r} (or it is private)") from err
    except EntryNotFoundError as err:
        raise TokenizerError(f"{repo_id!r} has no tokenizer.json (older models ship only vocab files)") from err
    except (HfHubHTTPError, OSError) as err:
        raise TokenizerError(f"could not download {repo_id!r} from the Hub: {err}") from err
    tok = load_hf_file(path)
    tok.metadata["source"] = f"hub:{repo_id}" + (f"@{revision}" if revision else "")
    return tok


def hub_reachable(*, timeout: float = 3.0) -> bool:
    """True when a TCP connection to the Hub endpoint (``HF_ENDPOINT`` or huggingface.co) opens quickly."""
    import socket
    from urllib.parse import urlparse

    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    host = url.hostname or "huggingface.co"
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def hub_offline() -> bool:
    """True when the Hub is switched off by the environment (``HF_HUB_OFFLINE=1``)."""
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes")
