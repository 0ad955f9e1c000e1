"""Import tokenizer files given as (name, bytes) pairs, as from an upload box: guess the format,
then read them with the importer of that format.

Formats are told by file name first (``.model``, ``.tiktoken``, ``vocab.txt``, ``vocab.bpe``),
then by content (a ``tokenizer.json`` has a ``"model"`` object; our own files say
``"format": "tokenizer-playground"``; GPT-2's ``encoder.json`` maps strings to ids).

>>> detect_format("tokenizer.json", b'{"model": {"type": "BPE"}}')
'hf'
>>> detect_format("spm.model", b"\\x0a\\x0b")
'sentencepiece'
>>> detect_format("notes.pdf", b"%PDF-1.7")
Traceback (most recent call last):
...
tokenizer_core.errors.FormatError: notes.pdf: not a tokenizer file this app reads (tokenizer.json, a SentencePiece .model, vocab.txt, .tiktoken, a Tekken JSON, GPT-2's encoder.json + vocab.bpe, or a file saved here)
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from itertools import islice
from pathlib import Path
from typing import Any, Optional

from tokenizer_core.errors import FormatError
from tokenizer_core.io.hf_json import tokenizer_from_hf
from tokenizer_core.io.importers import IMPORTERS
from tokenizer_core.io.model_config import MAX_TEMPLATE_BYTES, kept_config
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.pipeline_files import FORMAT_NAME
from tokenizer_core.types import ProgressCallback

#: The largest tokenizer file read from an upload (the biggest real ones are ~20 MB).
MAX_UPLOAD_BYTES = 100_000_000
_KNOWN = ("tokenizer.json, a SentencePiece .model, vocab.txt, .tiktoken, a Tekken JSON, GPT-2's encoder.json + vocab.bpe, "
          "or a file saved here")


def detect_format(name: str, data: bytes) -> str:
    """The importer name for one file (``gpt2`` needs its second file: see :func:`import_files`)."""
    return sniff(name, data)[0]


def sniff(name: str, data: bytes) -> tuple[str, Any]:
    """The importer name for one file, and its parsed JSON when it is JSON (read once: a 30 MB
    tokenizer.json takes a second to parse), else None."""
    lower = name.lower()
    if lower.endswith(".jinja"):  # a chat_template.jinja beside the tokenizer (transformers saves it so)
        try:
            return "chat_template", data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise FormatError(f"{name}: a chat template must be UTF-8 text ({err})") from None
    if lower.endswith(".model"):
        return "sentencepiece", None
    if lower.endswith(".tiktoken"):
        return "tiktoken", None
    if lower.endswith(".bpe") or lower.endswith("merges.txt"):
        return "gpt2", None
    if lower.endswith(".txt"):
        return "bert-vocab", None
    if lower.endswith(".json") or data[:1] in (b"{", b"["):
        content = _json(name, data)
        if isinstance(content, dict):
            if content.get("format") == FORMAT_NAME:
                return "own", content
            if isinstance(content.get("model"), dict):
                return "hf", content
            if isinstance(content.get("config"), dict) and "pattern" in content["config"] \
                    and isinstance(content.get("vocab"), list):
                return "tekken", content  # Mistral's tekken*.json
            if is_tokenizer_config(content):
                return "config", content
            if content and all(isinstance(k, str) and isinstance(v, int) for k, v in islice(content.items(), 100)):
                return "gpt2", content
    raise FormatError(f"{name}: not a tokenizer file this app reads ({_KNOWN})")


def _json(name: str, data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8-sig"))  # a byte order mark is not part of the JSON
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise FormatError(f"{name}: not valid JSON ({err})") from err
    except RecursionError:  # thousands of nested brackets
        raise FormatError(f"{name}: its JSON nests arrays or objects too deeply to be a tokenizer file") from None


def is_tokenizer_config(content: dict[str, Any]) -> bool:
    """Whether a parsed JSON object is a transformers ``tokenizer_config.json`` (it names the
    tokenizer's class or its special tokens, and has no model of its own).

    >>> is_tokenizer_config({"tokenizer_class": "GemmaTokenizer"}), is_tokenizer_config({"a": 1})
    (True, False)
    """
    return "model" not in content and any(k in content for k in _CONFIG_KEYS)


#: Keys only a tokenizer_config.json has (one is enough to tell it from the other JSON files).
_CONFIG_KEYS = ("tokenizer_class", "added_tokens_decoder", "chat_template", "model_max_length")
def import_files(files: Sequence[tuple[str, bytes]], *, lowercase: bool = True,
                 progress: Optional[ProgressCallback] = None) -> Tokenizer:
    """A tokenizer from uploaded files: one file, or GPT-2's ``encoder.json`` and ``vocab.bpe``;
    a ``tokenizer_config.json`` and a ``chat_template.jinja`` may come beside it (its class, name, chat
    template and special tokens are kept in the tokenizer's ``metadata["tokenizer_config"]``, which
    names it on the shelf and gives the Chat page its template).

    ``lowercase`` applies to a BERT ``vocab.txt`` (uncased models lowercase their input).
    ``progress(done, total, what)`` is called between the stages (reading, building, checking).
    """
    report = progress or (lambda done, total, what: None)
    if not files:
        raise FormatError("no file given; upload a tokenizer file")
    for name, data in files:
        if len(data) > MAX_UPLOAD_BYTES:
            raise FormatError(f"{name} is {len(data) / 1e6:,.0f} MB; tokenizer files of up to "
                              f"{MAX_UPLOAD_BYTES / 1e6:,.0f} MB are read")
        if not data:
            raise FormatError(f"{name} is empty")
    report(0, 3, "Reading the files")
    sniffed = [(name, data, *sniff(name, data)) for name, data in files]
    configs = [content for _, _, fmt, content in sniffed if fmt == "config"]
    templates = [(name, content) for name, _, fmt, content in sniffed if fmt == "chat_template"]
    sniffed = [entry for entry in sniffed if entry[2] not in ("config", "chat_template")]
    if len(configs) > 1 or len(templates) > 1 or not sniffed:
        raise FormatError("upload one tokenizer file, with at most one tokenizer_config.json and one "
                          "chat_template.jinja beside it")
    for name, text in templates:
        if len(text.encode("utf-8")) > MAX_TEMPLATE_BYTES:
            raise FormatError(f"{name}: a chat template of {len(text):,} characters; at most "
                              f"{MAX_TEMPLATE_BYTES:,} bytes are read")
    formats = [fmt for _, _, fmt, _ in sniffed]
    if len(sniffed) > 1 and set(formats) != {"gpt2"}:
        raise FormatError("upload one tokenizer file at a time (two files only for GPT-2's encoder.json + vocab.bpe)")
    report(1, 3, "Building the model")
    name, _, fmt, content = sniffed[0]
    if fmt == "hf":  # parsed once: the model is built from what sniff read
        tok = tokenizer_from_hf(content)
        tok.metadata["source"] = Path(name).name
    else:
        tok = _import_from_files([(n, d) for n, d, _, _ in sniffed], fmt, lowercase=lowercase)
    report(3, 3, "Done")
    if configs or templates:
        tok.metadata["tokenizer_config"] = kept_config(configs[0] if configs else {},
                                                       template=templates[0][1] if templates else None)
    return tok


def _import_from_files(files: Sequence[tuple[str, bytes]], fmt: str, *, lowercase: bool) -> Tokenizer:
    """The importer of ``fmt`` run on the files written to a temporary folder (importers read paths)."""
    if fmt == "bert-vocab" and not lowercase:
        fmt = "bert-vocab-cased"
    with tempfile.TemporaryDirectory(prefix="tp-upload-") as folder:
        paths = []
        for name, data in files:
            base = Path(name).name  # never a path the uploader chose
            if fmt == "gpt2" and len(files) > 1:  # the importer looks for GPT-2's own file names
                base = "encoder.json" if base.lower().endswith(".json") else "vocab.bpe"
            path = Path(folder) / base
            path.write_bytes(data)
            paths.append(path)
        target = folder if fmt == "gpt2" and len(paths) > 1 else str(paths[0])
        try:
            return IMPORTERS[fmt](target)
        except FormatError as err:  # name the uploaded file, not the temporary copy
            raise FormatError(str(err).replace(folder + "/", "").replace(folder, "the upload")) from err
