"""Corpora: load text safely from files, uploads, pasted text and the bundled samples.

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

>>> c = load_corpus(b"low lower\\nnewest", name="toy.txt")
>>> c.name, c.texts, list(c.lines())
('toy.txt', ('low lower\\nnewest',), ['low lower\\n', 'newest'])
>>> load_corpus(b"ab\\xffcd", name="bad.txt")
Traceback (most recent call last):
...
tokenizer_core.errors.CorpusError: bad.txt is not valid UTF-8 (it may be in another encoding, such as Windows-1252): byte 0xFF at byte offset 2 (line 1) cannot be decoded. Re-save the file as UTF-8, or load it with invalid bytes replaced by U+FFFD.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import itertools
import json
import os
import threading
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Literal, Optional, Union

from .errors import CorpusError

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

DEFAULT_MAX_BYTES = 200_000_000
TEXT_EXTENSIONS = (".txt", ".md")
TABLE_EXTENSIONS = (".csv", ".tsv", ".jsonl")
SUPPORTED_EXTENSIONS = TEXT_EXTENSIONS + TABLE_EXTENSIONS + (".zip",)

Errors = Literal["strict", "replace"]
Source = Union[str, os.PathLike, bytes, bytearray, memoryview]

# JSONL records read to find the field names offered for the text column.
_FIELD_SCAN_RECORDS = 1000

# Column names tried, in order, when the caller does not name the text column.
_TEXT_COLUMN_GUESSES = ("text", "content", "sentence", "body")

# File signatures of common binary formats, so the error can say what the file is.
_BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or .docx/.xlsx/.odt); name it .zip if it holds text files"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x7fELF", "an executable (ELF)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office document"),
)


@dataclass(frozen=True)
class Corpus:
    """An immutable collection of documents used for training and measuring tokenizers.

    ``texts`` holds the documents; ``source`` says where they came from (for
    people, not machines); ``replaced_bytes`` counts input bytes that were not
    valid text and became U+FFFD; ``word_counts`` is set for the samples that
    the literature defines by word counts (e.g. ``{"hug": 10, ...}``).

    >>> c = Corpus("two docs", ("a b", "c\\n"))
    >>> c.text, c.size_bytes, list(c.lines())
    ('a b\\nc\\n', 6, ['a b', 'c\\n'])
    """

    name: str
    texts: tuple[str, ...]
    source: str = ""
    replaced_bytes: int = 0
    # A dict is the convenient shape for callers; it is left out of the hash
    # so a Corpus stays hashable. Treat it as read-only.
    word_counts: Optional[dict[str, int]] = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if isinstance(self.texts, str) or not all(isinstance(t, str) for t in self.texts):
            raise CorpusError("Corpus texts must be a sequence of strings, one per document.")
        if not isinstance(self.texts, tuple):
            object.__setattr__(self, "texts", tuple(self.texts))

    @property
    def text(self) -> str:
        """All documents joined by a newline (the document itself when there is one)."""
        if len(self.texts) == 1:
            return self.texts[0]
        return "\n".join(self.texts)

    # Cached: a Corpus never changes, and big ones are costly to measure on every rerun.
    @cached_property
    def size_bytes(self) -> int:
        """Size of :attr:`text` in UTF-8 bytes."""
        return sum(len(t.encode("utf-8")) for t in self.texts) + max(len(self.texts) - 1, 0)

    @cached_property
    def num_chars(self) -> int:
        """Length of :attr:`text` in characters (code points)."""
        return sum(len(t) for t in self.texts) + max(len(self.texts) - 1, 0)

    def lines(self) -> Iterator[str]:
        """Yield the lines of every document, keeping ``"\\n"`` as files read by ``tokenizers`` do.

        Only ``"\\n"`` ends a line (not ``"\\r"`` or U+2028), so ``"".join(lines)``
        gives back the documents exactly.

        >>> list(Corpus("c", ("a\\r\\nb\\n\\n", "c")).lines())
        ['a\\r\\n', 'b\\n', '\\n', 'c']
        """
        for text in self.texts:
            start = 0
            while True:
                end = text.find("\n", start)
                if end < 0:
                    if start < len(text):
                        yield text[start:]
                    break
                yield text[start : end + 1]
                start = end + 1

    def fingerprint(self) -> str:
        """A short hex digest of the documents, for cache keys.

        >>> Corpus("a", ("x",)).fingerprint() == Corpus("b", ("x",)).fingerprint()
        True
        """
        return self._digest

    @cached_property
    def _digest(self) -> str:
        h = hashlib.blake2b(digest_size=12)
        for text in self.texts:
            data = text.encode("utf-8", "surrogatepass")
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
        return h.hexdigest()

    def head(self, max_chars: int) -> str:
        """The start of :attr:`text`, at most ``max_chars`` characters, without joining everything.

        >>> Corpus("c", ("ab", "cd")).head(4)
        'ab\\nc'
        """
        parts: list[str] = []
        left = max(max_chars, 0)
        for index, text in enumerate(self.texts):
            if index:
                parts.append("\n"[:left])
                left -= len(parts[-1])
            parts.append(text[:left])
            left -= len(parts[-1])
            if left <= 0:
                break
        return "".join(parts)


@dataclass(frozen=True)
class SampleInfo:
    """A bundled sample corpus: its ``name`` for :func:`load_sample`, a title and a description."""

    name: str
    title: str
    description: str


# --------------------------------------------------------------------------- decoding


def _check_max_bytes(max_bytes: int) -> None:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        raise CorpusError(f"max_bytes must be a positive whole number of bytes, not {max_bytes!r}.")


def _check_errors(errors: str) -> None:
    if errors not in ("strict", "replace"):
        raise CorpusError(f'errors must be "strict" or "replace", not {errors!r}.')


def _human_size(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    if n >= 1_000:
        return f"{n / 1_000:.1f} kB"
    return f"{n} bytes"


def _too_big(label: str, size: int, max_bytes: int) -> CorpusError:
    return CorpusError(
        f"{label} is {_human_size(size)}, over the limit of {_human_size(max_bytes)}. "
        "Use a smaller file, or raise the limit (max_bytes)."
    )


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _looks_like_utf16_without_bom(data: bytes) -> bool:
    head = data[:2048]
    if len(head) < 16:  # too little to tell; a stray NUL in a tiny file is just a NUL
        return False
    even, odd = head[0::2], head[1::2]
    # ASCII text in UTF-16 has a NUL in every other byte, and (almost) none in the others.
    nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    return (nul_even > 0.4 and nul_odd < 0.1) or (nul_odd > 0.4 and nul_even < 0.1)


def _refuse_binary(data: bytes, label: str) -> None:
    for signature, what in _BINARY_SIGNATURES:
        if data.startswith(signature):
            raise CorpusError(f"{label} looks like {what}, not a text file. Choose a plain-text file.")
    nul = data.find(b"\x00")
    if nul >= 0:
        if _looks_like_utf16_without_bom(data):
            raise CorpusError(
                f"{label} looks like UTF-16 text without a byte-order mark. "
                "Re-save it as UTF-8 (or as UTF-16 with a byte-order mark)."
            )
        raise CorpusError(
            f"{label} contains a NUL byte at byte offset {nul}, so it looks like a binary file, "
            "not text. Choose a plain-text file (UTF-8)."
        )


class _ReplacementCounter(threading.local):
    count = 0


_REPLACED = _ReplacementCounter()
_COUNTING_HANDLER = "tokenizer_core.corpus.count_replaced"


def _count_and_replace(err: UnicodeDecodeError) -> tuple[str, int]:
    _REPLACED.count += err.end - err.start
    return "\ufffd", err.end


codecs.register_error(_COUNTING_HANDLER, _count_and_replace)


def _decode_payload(data: bytes, bom: int, codec: str, label: str, errors: Errors) -> tuple[str, int]:
    """Decode ``data[bom:]``; return the text and how many bytes became U+FFFD."""
    payload = data[bom:]
    try:
        return payload.decode(codec), 0
    except UnicodeDecodeError as err:
        if errors == "strict":
            bad = bom + err.start
            shown = " ".join(f"0x{b:02X}" for b in data[bad : bom + err.end])
            encoding = "UTF-8" if codec == "utf-8" else "UTF-16"
            hint = " (it may be in another encoding, such as Windows-1252)" if codec == "utf-8" else ""
            raise CorpusError(
                f"{label} is not valid {encoding}{hint}: byte {shown} at byte offset {bad} "
                f"(line {_line_of(data, bad)}) cannot be decoded. Re-save the file as UTF-8, "
                "or load it with invalid bytes replaced by U+FFFD."
            ) from None
    if codec == "utf-8":
        # Fast path (C speed even for millions of bad bytes): every bad span becomes one
        # U+FFFD, and an encoded U+FFFD (EF BF BD) in the input always decodes as itself,
        # because UTF-8 resynchronises on a lead byte. So the byte counts balance:
        # len(payload) = good + 3 * genuine + replaced; len(text as UTF-8) = good + 3 * all U+FFFD.
        text = payload.decode("utf-8", "replace")
        genuine = payload.count(b"\xef\xbf\xbd")
        replaced = len(payload) - len(text.encode("utf-8")) + 3 * (text.count("\ufffd") - genuine)
        return text, replaced
    _REPLACED.count = 0
    text = payload.decode(codec, _COUNTING_HANDLER)
    return text, _REPLACED.count


def decode_bytes(data: bytes, *, label: str = "the input", errors: Errors = "strict") -> tuple[str, int]:
    """Decode file bytes to text; return ``(text, replaced_bytes)``.

    UTF-8 (optionally with BOM) and UTF-16 with a BOM are recognised; binary
    data is refused; with ``errors="strict"`` invalid bytes raise
    :class:`~tokenizer_core.errors.CorpusError` naming ``label`` and the offset.

    >>> decode_bytes(b"\\xef\\xbb\\xbfcaf\\xc3\\xa9")
    ('café', 0)
    >>> decode_bytes("hé".encode("utf-16"))
    ('hé', 0)
    >>> decode_bytes(b"a\\xff\\xfeb", errors="replace")
    ('a\ufffd\ufffdb', 2)
    """
    _check_errors(errors)
    data = bytes(data)
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise CorpusError(f"{label} is UTF-32 text, which is not supported. Re-save it as UTF-8.")
    if data.startswith(codecs.BOM_UTF16_LE):
        text, replaced = _decode_payload(data, 2, "utf-16-le", label, errors)
    elif data.startswith(codecs.BOM_UTF16_BE):
        text, replaced = _decode_payload(data, 2, "utf-16-be", label, errors)
    else:
        _refuse_binary(data, label)
        bom = 3 if data.startswith(codecs.BOM_UTF8) else 0
        text, replaced = _decode_payload(data, bom, "utf-8", label, errors)
    if "\x00" in text:
        raise CorpusError(f"{label} contains NUL characters, so it looks like a binary file, not text.")
    return text, replaced


# --------------------------------------------------------------------------- formats


def _extension(name: str) -> str:
    suffix = PurePosixPath(name.replace("\\", "/")).suffix.lower()
    return suffix


def _unsupported(label: str, ext: str) -> CorpusError:
    what = f"files ending in {ext}" if ext else "files without an extension"
    return CorpusError(
        f"{label}: {what} are not supported. Use {', '.join(SUPPORTED_EXTENSIONS)} "
        "(rename a plain-text file to .txt)."
    )


def _guess_column(columns: Sequence[str], label: str, kind: str) -> str:
    if len(columns) == 1:
        return columns[0]
    lowered = {c.lower(): c for c in columns}
    for guess in _TEXT_COLUMN_GUESSES:
        if guess in lowered:
            return lowered[guess]
    listed = ", ".join(repr(c) for c in columns) or "none"
    raise CorpusError(f"{label}: choose the {kind} that holds the text; the {kind}s are: {listed}.")


def _csv_reader(text: str, ext: str) -> Iterator[list[str]]:
    # csv's per-field limit (128 KiB) is process-wide; raise it for long documents.
    if csv.field_size_limit() < DEFAULT_MAX_BYTES:
        csv.field_size_limit(DEFAULT_MAX_BYTES)
    return csv.reader(io.StringIO(text, newline=""), delimiter="\t" if ext == ".tsv" else ",")


def _csv_header(text: str, ext: str, label: str) -> list[str]:
    try:
        header = next(_csv_reader(text, ext), None)
    except csv.Error as err:
        raise CorpusError(f"{label}: the header row cannot be read as CSV ({err}).") from None
    if not header:
        raise CorpusError(f"{label} has no header row; the first row must name the columns.")
    return [h.strip() for h in header]


def _read_csv(text: str, ext: str, label: str, column: Optional[str]) -> list[str]:
    header = _csv_header(text, ext, label)
    if column is None:
        column = _guess_column(header, label, "column")
    if column not in header:
        listed = ", ".join(repr(c) for c in header)
        raise CorpusError(f"{label} has no column {column!r}; its columns are: {listed}.")
    index = header.index(column)
    reader = _csv_reader(text, ext)
    docs: list[str] = []
    try:
        next(reader)
        for row in reader:
            if index < len(row) and row[index].strip():
                docs.append(row[index])
    except csv.Error as err:
        raise CorpusError(f"{label}: line {reader.line_num} is not valid CSV ({err}).") from None
    return docs


def _jsonl_records(text: str, label: str) -> Iterator[tuple[int, object]]:
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as err:
            raise CorpusError(f"{label}: line {number} is not valid JSON ({err.msg}).") from None


def _jsonl_fields(text: str, label: str) -> list[str]:
    # The first records are enough to offer the fields (and keep the picker fast).
    seen: dict[str, None] = {}
    for _, record in itertools.islice(_jsonl_records(text, label), _FIELD_SCAN_RECORDS):
        if isinstance(record, dict):
            for key, value in record.items():
                if isinstance(value, str):
                    seen.setdefault(key, None)
    return list(seen)


def _read_jsonl(text: str, label: str, field_name: Optional[str]) -> list[str]:
    if field_name is None:
        fields = _jsonl_fields(text, label)
        records_are_strings = not fields
        if not records_are_strings:
            field_name = _guess_column(fields, label, "field")
    docs: list[str] = []
    for number, record in _jsonl_records(text, label):
        if field_name is None:
            value = record
        elif isinstance(record, dict):
            if field_name not in record:
                raise CorpusError(f"{label}: the record on line {number} has no field {field_name!r}.")
            value = record[field_name]
        else:
            raise CorpusError(f"{label}: line {number} is not a JSON object with a field {field_name!r}.")
        if value is None:
            continue
        if not isinstance(value, str):
            where = f"field {field_name!r}" if field_name else "the value"
            raise CorpusError(
                f"{label}: on line {number}, {where} is a {type(value).__name__}, not a string of text."
            )
        if value.strip():
            docs.append(value)
    return docs


def _documents(text: str, ext: str, label: str, column: Optional[str]) -> list[str]:
    if ext in TEXT_EXTENSIONS:
        return [text] if text.strip() else []
    if ext in (".csv", ".tsv"):
        return _read_csv(text, ext, label, column)
    return _read_jsonl(text, label, column)


@dataclass
class _Loaded:
    docs: list[str] = field(default_factory=list)
    replaced: int = 0
    parts: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _zip_members(data: bytes, label: str, max_bytes: int) -> Iterator[tuple[str, str, Optional[bytes]]]:
    """Yield ``(member name, extension, bytes or None when skipped)`` in name order."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as err:
        raise CorpusError(f"{label} is not a readable ZIP archive ({err}).") from None
    with archive:
        infos = sorted((i for i in archive.infolist() if not i.is_dir()), key=lambda i: i.filename)
        infos = [
            i for i in infos
            if not i.filename.startswith("__MACOSX/") and not PurePosixPath(i.filename).name.startswith(".")
        ]
        total = sum(i.file_size for i in infos if _extension(i.filename) in TEXT_EXTENSIONS + TABLE_EXTENSIONS)
        if total > max_bytes:
            raise _too_big(f"{label} (unpacked)", total, max_bytes)
        budget = max_bytes
        for info in infos:
            ext = _extension(info.filename)
            if ext not in TEXT_EXTENSIONS + TABLE_EXTENSIONS:
                yield info.filename, ext, None
                continue
            if info.flag_bits & 0x1:
                raise CorpusError(f"{label}: {info.filename} is encrypted; use an archive without a password.")
            try:
                with archive.open(info) as member:
                    # Read one byte past the budget: sizes in the directory can lie.
                    content = member.read(budget + 1)
            except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError) as err:
                raise CorpusError(f"{label}: {info.filename} cannot be unpacked ({err}).") from None
            if len(content) > budget:
                raise _too_big(f"{label} (unpacked)", max_bytes - budget + len(content), max_bytes)
            budget -= len(content)
            yield info.filename, ext, content


def _load_one(
    data: bytes, name: str, ext: str, loaded: _Loaded, *, column: Optional[str], errors: Errors, max_bytes: int
) -> None:
    if ext == ".zip":
        found = 0
        for member, member_ext, content in _zip_members(data, name, max_bytes):
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
        raise _unsupported(name, ext)
    text, replaced = decode_bytes(data, label=name, errors=errors)
    docs = _documents(text, ext, name, column)
    loaded.docs.extend(docs)
    loaded.replaced += replaced
    unit = "document" if ext in TEXT_EXTENSIONS else ("row" if ext != ".jsonl" else "record")
    loaded.parts.append(f"{name} ({len(docs)} {unit}{'s' if len(docs) != 1 else ''})")


def _read_source(source: Source, name: Optional[str], max_bytes: int) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        label = name or "uploaded text.txt"
        if len(data) > max_bytes:
            raise _too_big(label, len(data), max_bytes)
        return data, label
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = name or path.name or str(path)
        try:
            size = path.stat().st_size
            if not path.is_file():
                raise CorpusError(f"{path} is not a file.")
            if size > max_bytes:
                raise _too_big(label, size, max_bytes)
            with path.open("rb") as handle:
                data = handle.read(max_bytes + 1)
        except FileNotFoundError:
            raise CorpusError(f"{path} does not exist. Check the path.") from None
        except PermissionError:
            raise CorpusError(f"{path} cannot be read (permission denied).") from None
        except IsADirectoryError:
            raise CorpusError(f"{path} is a folder; give a file (or a .zip of files).") from None
        except OSError as err:
            raise CorpusError(f"{path} cannot be read ({err.strerror or err}).") from None
        if len(data) > max_bytes:
            raise _too_big(label, len(data), max_bytes)
        return data, label
    raise CorpusError(f"A corpus source must be a file path or bytes, not {type(source).__name__}.")


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
    _check_max_bytes(max_bytes)
    _check_errors(errors)
    data, label = _read_source(source, name, max_bytes)
    ext = _extension(label) if (name or not isinstance(source, (bytes, bytearray, memoryview))) else ".txt"
    loaded = _Loaded()
    _load_one(data, label, ext, loaded, column=text_column, errors=errors, max_bytes=max_bytes)
    if not loaded.docs:
        if ext in TABLE_EXTENSIONS:
            raise CorpusError(f"{label} has no text: every cell of the chosen column is empty.")
        raise CorpusError(f"{label} is empty (it holds no text besides whitespace). Choose a file with text.")
    described = "; ".join(loaded.parts)
    if loaded.skipped:
        described += f"; skipped {len(loaded.skipped)} unsupported file(s): {', '.join(loaded.skipped[:5])}"
        if len(loaded.skipped) > 5:
            described += ", ..."
    if text_column is not None and ext != ".txt" and ext != ".md":
        described += f"; text from {text_column!r}"
    return Corpus(label, tuple(loaded.docs), source=described, replaced_bytes=loaded.replaced)


def columns_of(source: Source, *, name: Optional[str] = None, max_bytes: int = DEFAULT_MAX_BYTES) -> list[str]:
    """List the columns (CSV/TSV header) or string fields (JSONL, from the first 1000 records) a table offers.

    Plain-text files give ``[]``; a ZIP gives the columns of its tables, in
    order of first appearance. Undecodable bytes are replaced here because the
    list only feeds a picker; :func:`load_corpus` still reports them.

    >>> columns_of(b'{"id": 1, "text": "a", "lang": "en"}\\n', name="d.jsonl")
    ['text', 'lang']
    """
    _check_max_bytes(max_bytes)
    data, label = _read_source(source, name, max_bytes)
    ext = _extension(label) if (name or not isinstance(source, (bytes, bytearray, memoryview))) else ".txt"
    seen: dict[str, None] = {}

    def add(content: bytes, member_label: str, member_ext: str) -> None:
        if member_ext not in TABLE_EXTENSIONS:
            return
        text, _ = decode_bytes(content, label=member_label, errors="replace")
        names = _jsonl_fields(text, member_label) if member_ext == ".jsonl" else _csv_header(text, member_ext, member_label)
        for column in names:
            seen.setdefault(column, None)

    if ext == ".zip":
        for member, member_ext, content in _zip_members(data, label, max_bytes):
            if content is not None:
                add(content, f"{label}:{member}", member_ext)
    elif ext in SUPPORTED_EXTENSIONS:
        add(data, label, ext)
    else:
        raise _unsupported(label, ext)
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
    _check_max_bytes(max_bytes)
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
        raise _too_big("The pasted text", size, max_bytes)
    clean_name = " ".join(str(name).split()) or "pasted text"
    return Corpus(clean_name, (text,), source="pasted text")


def combine_corpora(corpora: Sequence[Corpus], *, name: Optional[str] = None) -> Corpus:
    """Join several corpora into one (documents in order; replaced bytes added up).

    >>> a, b = Corpus("a", ("x",)), Corpus("b", ("y", "z"))
    >>> combine_corpora([a, b]).texts, combine_corpora([a, b]).name
    (('x', 'y', 'z'), 'a + b')
    """
    corpora = list(corpora)
    if not corpora:
        raise CorpusError("There is no corpus to combine; choose at least one file.")
    if len(corpora) == 1 and name is None:
        return corpora[0]
    texts = tuple(t for c in corpora for t in c.texts)
    label = name or " + ".join(c.name for c in corpora)
    return Corpus(
        label,
        texts,
        source="; ".join(c.source or c.name for c in corpora),
        replaced_bytes=sum(c.replaced_bytes for c in corpora),
    )


# --------------------------------------------------------------------------- samples


def list_samples() -> list[SampleInfo]:
    """The bundled sample corpora, default first (all offline).

    >>> [s.name for s in list_samples()][:2]
    ['default', 'wikipedia-aaabdaaabac']
    """
    from . import samples

    return [SampleInfo(s.name, s.title, s.description) for s in samples.SAMPLES]


def load_sample(name: str) -> Corpus:
    """Load a bundled sample by name (see :func:`list_samples`).

    ``"default"`` is built from Python's own documentation on first use and
    cached on disk (see :mod:`tokenizer_core.default_corpus`).

    >>> c = load_sample("hf-course-hug-pug")
    >>> c.word_counts
    {'hug': 10, 'pug': 5, 'pun': 12, 'bun': 4, 'hugs': 5}
    """
    from . import samples

    sample = samples.get(name)
    if sample.name == "default":
        from .default_corpus import default_corpus_text

        text = default_corpus_text()
    else:
        text = samples.read_text(sample)
    counts = dict(sample.word_counts) if sample.word_counts is not None else None
    return Corpus(sample.name, (text,), source=sample.source, word_counts=counts)

