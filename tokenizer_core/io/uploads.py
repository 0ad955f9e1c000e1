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
from pathlib import Path

from tokenizer_core.errors import FormatError
from tokenizer_core.io.importers import IMPORTERS
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.pipeline_files import FORMAT_NAME

#: The largest tokenizer file read from an upload (the biggest real ones are ~20 MB).
MAX_UPLOAD_BYTES = 100_000_000
_KNOWN = ("tokenizer.json, a SentencePiece .model, vocab.txt, .tiktoken, a Tekken JSON, GPT-2's encoder.json + vocab.bpe, "
          "or a file saved here")


def detect_format(name: str, data: bytes) -> str:
    """The importer name for one file (``gpt2`` needs its second file: see :func:`import_files`)."""
    lower = name.lower()
    if lower.endswith(".model"):
        return "sentencepiece"
    if lower.endswith(".tiktoken"):
        return "tiktoken"
    if lower.endswith(".bpe") or lower.endswith("merges.txt"):
        return "gpt2"
    if lower.endswith(".txt"):
        return "bert-vocab"
    if lower.endswith(".json") or data[:1] in (b"{", b"["):
        try:
            content = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise FormatError(f"{name}: not valid JSON ({err})") from err
        except RecursionError:  # thousands of nested brackets
            raise FormatError(f"{name}: its JSON nests arrays or objects too deeply to be a tokenizer file") from None
        if isinstance(content, dict):
            if content.get("format") == FORMAT_NAME:
                return "own"
            if isinstance(content.get("model"), dict):
                return "hf"
            if isinstance(content.get("config"), dict) and "pattern" in content["config"] \
                    and isinstance(content.get("vocab"), list):
                return "tekken"  # Mistral's tekken*.json
            if content and all(isinstance(k, str) and isinstance(v, int) for k, v in list(content.items())[:100]):
                return "gpt2"
    raise FormatError(f"{name}: not a tokenizer file this app reads ({_KNOWN})")


def import_files(files: Sequence[tuple[str, bytes]], *, lowercase: bool = True) -> Tokenizer:
    """A tokenizer from uploaded files: one file, or GPT-2's ``encoder.json`` and ``vocab.bpe``.

    ``lowercase`` applies to a BERT ``vocab.txt`` (uncased models lowercase their input).
    """
    if not files:
        raise FormatError("no file given; upload a tokenizer file")
    for name, data in files:
        if len(data) > MAX_UPLOAD_BYTES:
            raise FormatError(f"{name} is {len(data) / 1e6:,.0f} MB; tokenizer files of up to "
                              f"{MAX_UPLOAD_BYTES / 1e6:,.0f} MB are read")
        if not data:
            raise FormatError(f"{name} is empty")
    formats = [detect_format(name, data) for name, data in files]
    if len(files) > 1 and set(formats) != {"gpt2"}:
        raise FormatError("upload one tokenizer file at a time (two files only for GPT-2's encoder.json + vocab.bpe)")
    fmt = formats[0]
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
