"""Loading a corpus safely from files, uploads and pasted text (and, re-exported, the samples).

A :class:`Corpus` is an immutable bag of documents (strings). Files are read as
bytes and decoded here, so every loader shares the same rules:

* UTF-8 (with or without a byte-order mark) and UTF-16 with a byte-order mark
  are accepted; anything else is refused with the file name and the byte offset
  of the first bad byte, unless the caller asks for ``errors="replace"``, in
  which case bad bytes become U+FFFD and their number is kept in
  :attr:`Corpus.replaced_bytes`.
* Binary files (NUL bytes, known binary signatures) are refused.
* Files above ``max_bytes`` (default 200 MB) are refused before being read.
* Formats come from the file extension: ``.txt``/``.md`` (one document per
  file), ``.csv``/``.tsv`` (one document per row, from the chosen column),
  ``.jsonl`` (one document per record, from the chosen field) and ``.zip`` of
  those.

The rules live in :mod:`~tokenizer_core.corpus.sources` (size limits),
:mod:`~tokenizer_core.corpus.decoding` (text encodings, binary files) and
:mod:`~tokenizer_core.corpus.formats` (file formats); :class:`Corpus` is in
:mod:`~tokenizer_core.corpus.documents` and the samples in
:mod:`~tokenizer_core.corpus.bundled`. Every name is importable from here too.

>>> c = load_corpus(b"low lower\\nnewest", name="toy.txt")
>>> c.name, c.texts, list(c.lines())
('toy.txt', ('low lower\\nnewest',), ['low lower\\n', 'newest'])
>>> load_corpus(b"ab\\xffcd", name="bad.txt")
Traceback (most recent call last):
...
tokenizer_core.errors.CorpusError: bad.txt is not valid UTF-8 (it may be in another encoding, such as Windows-1252): byte 0xFF at byte offset 2 (line 1) cannot be decoded. Re-save the file as UTF-8, or load it with invalid bytes replaced by U+FFFD.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from tokenizer_core.corpus.bundled import SampleInfo, list_samples, load_sample
from tokenizer_core.corpus.decoding import Errors, check_errors, decode_bytes
from tokenizer_core.corpus.documents import Corpus, combine_corpora
from tokenizer_core.corpus.formats import (
    SUPPORTED_EXTENSIONS,
    TABLE_EXTENSIONS,
    TEXT_EXTENSIONS,
    csv_header,
    documents_of,
    extension_of,
    jsonl_fields,
    unsupported_format,
    zip_members,
)
from tokenizer_core.corpus.sources import DEFAULT_MAX_BYTES, Source, check_max_bytes, read_source, too_big
from tokenizer_core.errors import CorpusError

__all__ = [
    "Corpus",
    "SampleInfo",
    "DEFAULT_MAX_BYTES",
    "TEXT_EXTENSIONS",
    "TABLE_EXTENSIONS",
    "SUPPORTED_EXTENSIONS",
    "load_corpus",
    "columns_of",
    "corpus_from_text",
    "combine_corpora",
    "decode_bytes",
    "list_samples",
    "load_sample",
]


@dataclass
class _Loaded:
    """What loading one source (and every member of a ZIP) gathers: documents and a description."""

    docs: list[str] = field(default_factory=list)
    replaced: int = 0
    parts: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _load_one(
    data: bytes, name: str, ext: str, loaded: _Loaded, *, column: Optional[str], errors: Errors, max_bytes: int
) -> None:
    if ext == ".zip":
        found = 0
        for member, member_ext, content in zip_members(data, name, max_bytes):
            if content is None:
                loaded.skipped.append(member)
                continue
            found += 1
            _load_one(content, f"{name}:{member}", member_ext, loaded, column=column, errors=errors, max_bytes=max_bytes)
        if not found:
            inside = ", ".join(loaded.skipped[:5]) or "nothing"
            raise CorpusError(
                f"{name} holds no {', '.join(TEXT_EXTENSIONS + TABLE_EXTENSIONS)} files (it holds: {inside})."
            )
        return
    if ext not in TEXT_EXTENSIONS + TABLE_EXTENSIONS:
        raise unsupported_format(name, ext)
    text, replaced = decode_bytes(data, label=name, errors=errors)
    docs = documents_of(text, ext, name, column)
    loaded.docs.extend(docs)
    loaded.replaced += replaced
    unit = "document" if ext in TEXT_EXTENSIONS else ("row" if ext != ".jsonl" else "record")
    loaded.parts.append(f"{name} ({len(docs)} {unit}{'s' if len(docs) != 1 else ''})")


def _source_extension(source: Source, name: Optional[str], label: str) -> str:
    # Unnamed bytes (pasted or piped) have no extension to go by: read them as plain text.
    if name or not isinstance(source, (bytes, bytearray, memoryview)):
        return extension_of(label)
    return ".txt"


def _describe(loaded: _Loaded, ext: str, text_column: Optional[str]) -> str:
    """The human-readable :attr:`Corpus.source`: the parts read, the files skipped, the column used."""
    described = "; ".join(loaded.parts)
    if loaded.skipped:
        described += f"; skipped {len(loaded.skipped)} unsupported file(s): {', '.join(loaded.skipped[:5])}"
        if len(loaded.skipped) > 5:
            described += ", ..."
    if text_column is not None and ext != ".txt" and ext != ".md":
        described += f"; text from {text_column!r}"
    return described


def load_corpus(
    source: Source,
    *,
    name: Optional[str] = None,
    text_column: Optional[str] = None,
    errors: Errors = "strict",
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Corpus:
    """Load a corpus from a file path or from file bytes.

    The format comes from the extension of ``name`` (or of the path):
    ``.txt``/``.md`` give one document per file, ``.csv``/``.tsv`` one per row
    of ``text_column``, ``.jsonl`` one per record's ``text_column`` field,
    ``.zip`` all of those inside it. When ``text_column`` is omitted, a single
    column or one named ``text``/``content``/``sentence``/``body`` is used.
    Bytes without a name are read as plain text.

    >>> c = load_corpus(b"id,text\\n1,hug pug\\n2,bun\\n", name="words.csv")
    >>> c.texts
    ('hug pug', 'bun')
    >>> load_corpus(b"id,text\\n1,x\\n", name="w.csv", text_column="body")
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.CorpusError: w.csv has no column 'body'; its columns are: 'id', 'text'.
    """
    check_max_bytes(max_bytes)
    check_errors(errors)
    data, label = read_source(source, name, max_bytes)
    ext = _source_extension(source, name, label)
    loaded = _Loaded()
    _load_one(data, label, ext, loaded, column=text_column, errors=errors, max_bytes=max_bytes)
    if not loaded.docs:
        if ext in TABLE_EXTENSIONS:
            raise CorpusError(f"{label} has no text: every cell of the chosen column is empty.")
        raise CorpusError(f"{label} is empty (it holds no text besides whitespace). Choose a file with text.")
    described = _describe(loaded, ext, text_column)
    return Corpus(label, tuple(loaded.docs), source=described, replaced_bytes=loaded.replaced)


def columns_of(source: Source, *, name: Optional[str] = None, max_bytes: int = DEFAULT_MAX_BYTES) -> list[str]:
    """List the columns (CSV/TSV header) or string fields (JSONL, from the first 1000 records) a table offers.

    Plain-text files give ``[]``; a ZIP gives the columns of its tables, in
    order of first appearance. Undecodable bytes are replaced here because the
    list only feeds a picker; :func:`load_corpus` still reports them.

    >>> columns_of(b'{"id": 1, "text": "a", "lang": "en"}\\n', name="d.jsonl")
    ['text', 'lang']
    """
    check_max_bytes(max_bytes)
    data, label = read_source(source, name, max_bytes)
    ext = _source_extension(source, name, label)
    seen: dict[str, None] = {}

    def add(content: bytes, member_label: str, member_ext: str) -> None:
        if member_ext not in TABLE_EXTENSIONS:
            return
        text, _ = decode_bytes(content, label=member_label, errors="replace")
        names = jsonl_fields(text, member_label) if member_ext == ".jsonl" else csv_header(text, member_ext, member_label)
        for column in names:
            seen.setdefault(column, None)

    if ext == ".zip":
        for member, member_ext, content in zip_members(data, label, max_bytes):
            if content is not None:
                add(content, f"{label}:{member}", member_ext)
    elif ext in SUPPORTED_EXTENSIONS:
        add(data, label, ext)
    else:
        raise unsupported_format(label, ext)
    return list(seen)


def _first_surrogate(text: str) -> int:
    for index, char in enumerate(text):
        if "\ud800" <= char <= "\udfff":
            return index
    return -1


def corpus_from_text(text: str, *, name: str = "pasted text", max_bytes: int = DEFAULT_MAX_BYTES) -> Corpus:
    """Make a one-document corpus from text typed or pasted by a user.

    >>> corpus_from_text("hug hug pug", name="mine").texts
    ('hug hug pug',)
    >>> corpus_from_text("   ")
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.CorpusError: The pasted text is empty. Type or paste some text first.
    """
    check_max_bytes(max_bytes)
    if not isinstance(text, str):
        raise CorpusError(f"Pasted text must be a string, not {type(text).__name__}.")
    if not text.strip():
        raise CorpusError("The pasted text is empty. Type or paste some text first.")
    bad = _first_surrogate(text)
    if bad >= 0:
        raise CorpusError(
            f"The pasted text has a lone surrogate (U+{ord(text[bad]):04X}) at character {bad}, "
            "which is not valid Unicode. Remove it and try again."
        )
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise too_big("The pasted text", size, max_bytes)
    clean_name = " ".join(str(name).split()) or "pasted text"
    return Corpus(clean_name, (text,), source="pasted text")
