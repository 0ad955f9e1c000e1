"""Mistral's Tekken tokenizer files (``tekken*.json``), read into our byte-level BPE.

A Tekken file is tiktoken's format in JSON::

    {"config": {"pattern": "...", "default_vocab_size": 131072,
                "default_num_special_tokens": 1000, "version": "v3", ...},
     "vocab": [{"rank": 0, "token_bytes": "AA==", "token_str": "\\u0000"}, ...],
     "special_tokens": [{"rank": 0, "token_str": "<unk>", "is_control": true}, ...]}

and ``mistral_common`` defines how it becomes ids:

* the first ``default_num_special_tokens`` ids are special tokens: the file's
  ``special_tokens`` list, or (files of version v7 and older that have none) the fixed
  list ``<unk> <s> </s> [INST] [/INST] ...`` below, then fillers ``<SPECIAL_n>`` up to
  that count;
* the first ``default_vocab_size - default_num_special_tokens`` ranks of ``vocab`` are the
  regular tokens, each with id ``rank + default_num_special_tokens`` (later ranks are cut);
* text is split with ``config.pattern`` and merged by rank, as tiktoken does. Special-token
  strings in the text are matched by our pipeline, as ``tokenizers`` does with added tokens;
  ``mistral_common`` itself encodes them as plain text (``encode_sequence(...,
  split_special_tokens=False)`` gives its ids).

Registered as ``import --format tekken``.

>>> DEFAULT_SPECIAL_TOKENS[:4]
('<unk>', '<s>', '</s>', '[INST]')
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from tokenizer_core.errors import FormatError

if TYPE_CHECKING:
    from tokenizer_core.pipeline import Tokenizer

#: The special tokens of Tekken files that list none (``Tekkenizer.DEPRECATED_SPECIAL_TOKENS``).
DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]",
    "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
)
FILLER_TEMPLATE = "<SPECIAL_{id}>"
#: Versions after this one must list their special tokens.
_LAST_VERSION_WITH_DEFAULTS = 7


@dataclass(frozen=True)
class TekkenFile:
    """What a Tekken file defines: regular tokens (bytes -> id), specials (string -> id), the split."""

    ranks: dict[bytes, int]
    special_tokens: dict[str, int]
    pattern: str
    version: str
    num_special_tokens: int
    vocab_size: int


def _version_number(version: Any) -> int:
    if isinstance(version, str) and version[:1] == "v" and version[1:].isdigit():
        return int(version[1:])
    raise FormatError(f"config.version must look like 'v3' or 'v7', got {version!r}")


def _int_field(config: dict[str, Any], key: str) -> int:
    value = config.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise FormatError(f"config.{key} must be a whole number >= 0, got {value!r}")
    return value


def _specials(data: dict[str, Any], version: str, count: int) -> list[str]:
    listed = data.get("special_tokens")
    if listed is None:
        if _version_number(version) > _LAST_VERSION_WITH_DEFAULTS:
            raise FormatError(f"a Tekken file of version {version} must list its special_tokens")
        names = list(DEFAULT_SPECIAL_TOKENS)
    else:
        if not isinstance(listed, list):
            raise FormatError("special_tokens must be a list of {rank, token_str} objects")
        names = []
        for i, entry in enumerate(listed):
            if not isinstance(entry, dict) or not isinstance(entry.get("token_str"), str) or entry.get("rank") != i:
                raise FormatError(f"special_tokens[{i}] must be an object with rank {i} and a token_str")
            names.append(entry["token_str"])
    if len(names) > count:
        raise FormatError(f"{len(names)} special tokens listed but default_num_special_tokens is {count}")
    names += [FILLER_TEMPLATE.format(id=i) for i in range(len(names), count)]
    if len(set(names)) != len(names):
        raise FormatError("special token strings must be unique")
    return names


def parse_tekken(data: Any) -> TekkenFile:
    """The tokens, specials and split pattern that a parsed Tekken JSON object defines."""
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict) or not isinstance(data.get("vocab"), list):
        raise FormatError('a Tekken file is a JSON object with "config" and a "vocab" list')
    config = data["config"]
    pattern = config.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise FormatError("config.pattern must be the split regex")
    version = config.get("version")
    _version_number(version)
    num_special = _int_field(config, "default_num_special_tokens")
    vocab_size = _int_field(config, "default_vocab_size")
    inner = vocab_size - num_special
    vocab = data["vocab"]
    if inner < 256 or inner > len(vocab):
        raise FormatError(f"default_vocab_size {vocab_size} - {num_special} special tokens must leave "
                          f"between 256 and {len(vocab)} (the vocab's length) regular tokens")
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab[:inner]):
        if not isinstance(entry, dict) or entry.get("rank") != i or not isinstance(entry.get("token_bytes"), str):
            raise FormatError(f"vocab[{i}] must be an object with rank {i} and base64 token_bytes")
        try:
            token = base64.b64decode(entry["token_bytes"], validate=True)
        except (binascii.Error, ValueError) as err:
            raise FormatError(f"vocab[{i}]: token_bytes is not base64 ({err})") from err
        if (i < 256 and token != bytes([i])) or not token or token in ranks:
            raise FormatError(f"vocab[{i}]: the first 256 tokens must be the single bytes, and tokens unique")
        ranks[token] = i + num_special
    specials = _specials(data, version, num_special)
    return TekkenFile(ranks, {name: i for i, name in enumerate(specials)}, pattern, version, num_special, vocab_size)


def read_tekken(path: Union[str, Path]) -> TekkenFile:
    """Read and check a ``tekken*.json`` file."""
    p = Path(path)
    try:
        data = json.loads(p.read_bytes())
    except OSError as err:
        raise FormatError(f"cannot read {p}: {err.strerror or err}") from err
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise FormatError(f"{p} is not valid JSON: {err}") from err
    except RecursionError:
        raise FormatError(f"{p} nests JSON arrays or objects too deeply to be a Tekken file") from None
    try:
        return parse_tekken(data)
    except FormatError as err:
        raise FormatError(f"{p}: {err}") from err


def tekken_tokenizer(tekken: TekkenFile) -> "Tokenizer":
    """Our tokenizer for a Tekken file: regular ids ``rank + num_special_tokens``, specials below."""
    from tokenizer_core.io.bpe_files import tiktoken_tokenizer

    tok = tiktoken_tokenizer(tekken.ranks, pattern=tekken.pattern, special_tokens=tekken.special_tokens)
    tok.metadata.update(source="tekken file", tekken_version=tekken.version)
    return tok


def import_tekken(path: str) -> "Tokenizer":
    """Import a Mistral ``tekken*.json`` file."""
    tok = tekken_tokenizer(read_tekken(path))
    tok.metadata["source"] = str(Path(path))
    return tok
