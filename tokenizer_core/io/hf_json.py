"""Read Hugging Face ``tokenizer.json`` files (local, or from the Hub when online) into our pipeline.

Each part of the file is rebuilt with our own components (see
:mod:`~tokenizer_core.io.hf_components`); a part we do not implement is a
:class:`~tokenizer_core.errors.FormatError` naming it, never a silent difference.
Models are converted by the model classes themselves: a model class registered under
the tokenizers name (``BPE``, ``WordPiece``, ``Unigram``, ``WordLevel``) provides
``from_hf(data)``. The ``added_tokens`` keep their flags and get the ids ``tokenizers``
gives them (see :mod:`~tokenizer_core.text.added_vocabulary`).

>>> data = {"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1}, "unk_token": "[UNK]"},
...         "pre_tokenizer": {"type": "Whitespace"}, "added_tokens": []}
>>> tokenizer_from_hf(data).encode("hi there").tokens
['hi', '[UNK]']
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional, Union

from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.io.hf_components import (
    decoder_from_hf,
    model_from_hf,
    normalizer_from_hf,
    post_processor_from_hf,
    pre_tokenizer_from_hf,
)
from tokenizer_core.jsonfile import read_json_file
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.registry import malformed_as_format_error
from tokenizer_core.text.added_vocabulary import AddedToken

# Re-exported: the component converters used to live here.
__all__ = ["decoder_from_hf", "hub_offline", "hub_reachable", "load_from_hub", "load_hf_file", "model_from_hf",
           "normalizer_from_hf", "post_processor_from_hf", "pre_tokenizer_from_hf", "tokenizer_from_hf"]


def added_tokens_from_hf(data: Any) -> list[AddedToken]:
    """The ``added_tokens`` list, in file order (the order decides the ids of new tokens)."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise FormatError("\"added_tokens\" must be a list of objects")
    with malformed_as_format_error("added token in tokenizer.json"):
        return [AddedToken.from_dict(a) for a in data]


def tokenizer_from_hf(data: Any) -> Tokenizer:
    """A :class:`Tokenizer` equivalent to a parsed ``tokenizer.json``."""
    if not isinstance(data, dict) or "model" not in data:
        raise FormatError("not a tokenizers tokenizer.json (no \"model\" object)")
    added = added_tokens_from_hf(data.get("added_tokens"))
    with malformed_as_format_error("tokenizer.json"):
        tok = Tokenizer(
            model_from_hf(data["model"]),
            normalizer=normalizer_from_hf(data.get("normalizer")),
            pre_tokenizer=pre_tokenizer_from_hf(data.get("pre_tokenizer")),
            post_processor=post_processor_from_hf(data.get("post_processor")),
            decoder=decoder_from_hf(data.get("decoder")),
            added_tokens=added,
            metadata={"source": "tokenizer.json"},
        )
    tok.self_check()
    return tok


def load_hf_file(path: Union[str, Path]) -> Tokenizer:
    """Read a local ``tokenizer.json``."""
    tok = tokenizer_from_hf(read_json_file(path))
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
    config = _hub_model_config(hf_hub_download, repo_id, revision=revision, cache_dir=cache_dir, online=online)
    if config:
        tok.metadata["tokenizer_config"] = config
    return tok


def _hub_model_config(download: Any, repo_id: str, *, revision: Optional[str], cache_dir: Optional[str],
                      online: bool) -> dict[str, Any]:
    """The repository's tokenizer_config.json and chat_template.jinja, as an upload beside the file
    keeps them (its name, chat template and special tokens); {} when it has neither. Both are optional:
    a missing or unreadable one is left out, never an error for the tokenizer itself."""
    from tokenizer_core.io.model_config import MAX_TEMPLATE_BYTES, kept_config

    def text_of(filename: str) -> Optional[str]:
        try:
            found = Path(download(repo_id, filename, revision=revision, cache_dir=cache_dir, etag_timeout=5,
                                  local_files_only=not online))
            if found.stat().st_size > MAX_TEMPLATE_BYTES * 4:  # a config holds a template and some names
                return None
            return found.read_text(encoding="utf-8-sig")
        except Exception:  # noqa: BLE001 - absent, private, offline or not text: the tokenizer loads without it
            return None

    raw, template = text_of("tokenizer_config.json"), text_of("chat_template.jinja")
    try:
        config = json.loads(raw) if raw else {}
    except (json.JSONDecodeError, RecursionError):
        config = {}
    if not isinstance(config, dict):
        config = {}
    return kept_config(config, template=template) if config or template else {}


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
