"""File formats of a corpus: plain text, CSV/TSV columns, JSONL fields and ZIP archives of those.

>>> documents_of("id,text\\n1,hug\\n2,pug\\n", ".csv", "w.csv", None)
['hug', 'pug']
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import PurePosixPath
from typing import Optional

from tokenizer_core.corpus.sources import DEFAULT_MAX_BYTES, too_big
from tokenizer_core.errors import CorpusError

TEXT_EXTENSIONS = (".txt", ".md")
TABLE_EXTENSIONS = (".csv", ".tsv", ".jsonl")
SUPPORTED_EXTENSIONS = TEXT_EXTENSIONS + TABLE_EXTENSIONS + (".zip",)

# JSONL records read to find the field names offered for the text column.
_FIELD_SCAN_RECORDS = 1000

# Column names tried, in order, when the caller does not name the text column.
_TEXT_COLUMN_GUESSES = ("text", "content", "sentence", "body")


def extension_of(name: str) -> str:
    suffix = PurePosixPath(name.replace("\\", "/")).suffix.lower()
    return suffix


def unsupported_format(label: str, ext: str) -> CorpusError:
    what = f"files ending in {ext}" if ext else "files without an extension"
    return CorpusError(
        f"{label}: {what} are not supported. Use {', '.join(SUPPORTED_EXTENSIONS)} "
        "(rename a plain-text file to .txt)."
    )


def guess_column(columns: Sequence[str], label: str, kind: str) -> str:
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


def csv_header(text: str, ext: str, label: str) -> list[str]:
    try:
        header = next(_csv_reader(text, ext), None)
    except csv.Error as err:
        raise CorpusError(f"{label}: the header row cannot be read as CSV ({err}).") from None
    if not header:
        raise CorpusError(f"{label} has no header row; the first row must name the columns.")
    return [h.strip() for h in header]


def _read_csv(text: str, ext: str, label: str, column: Optional[str]) -> list[str]:
    header = csv_header(text, ext, label)
    if column is None:
        column = guess_column(header, label, "column")
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
    return jsonl_records(text.split("\n"), label)


def jsonl_records(lines: Iterable[str], label: str) -> Iterator[tuple[int, object]]:
    """``(line number, record)`` of each non-blank line of JSONL; a CorpusError naming a bad line."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as err:
            raise CorpusError(f"{label}: line {number} is not valid JSON ({err.msg}).") from None
        except RecursionError:  # thousands of nested brackets on one line
            raise CorpusError(f"{label}: line {number} nests JSON arrays or objects too deeply.") from None


def jsonl_fields(text: str, label: str) -> list[str]:
    # The first records are enough to offer the fields (and keep the picker fast).
    seen: dict[str, None] = {}
    for _, record in itertools.islice(_jsonl_records(text, label), _FIELD_SCAN_RECORDS):
        if isinstance(record, dict):
            for key, value in record.items():
                if isinstance(value, str):
                    seen.setdefault(key, None)
    return list(seen)


def jsonl_field(records: Iterable[tuple[int, object]], label: str) -> Optional[str]:
    """The field holding the text, guessed from these first records (None: the records are strings)."""
    seen: dict[str, None] = {}
    for _, record in records:
        if isinstance(record, dict):
            for key, value in record.items():
                if isinstance(value, str):
                    seen.setdefault(key, None)
    return guess_column(list(seen), label, "field") if seen else None


def record_text(record: object, number: int, field_name: Optional[str], label: str) -> Optional[str]:
    """The text of one JSONL record (None: nothing to read in it); a CorpusError naming the line."""
    if field_name is None:
        value = record
    elif isinstance(record, dict):
        if field_name not in record:
            raise CorpusError(f"{label}: the record on line {number} has no field {field_name!r}.")
        value = record[field_name]
    else:
        raise CorpusError(f"{label}: line {number} is not a JSON object with a field {field_name!r}.")
    if value is None:
        return None
    if not isinstance(value, str):
        where = f"field {field_name!r}" if field_name else "the value"
        raise CorpusError(f"{label}: on line {number}, {where} is a {type(value).__name__}, not a string of text.")
    return value if value.strip() else None


def _read_jsonl(text: str, label: str, field_name: Optional[str]) -> list[str]:
    if field_name is None:
        field_name = jsonl_field(itertools.islice(_jsonl_records(text, label), _FIELD_SCAN_RECORDS), label)
    docs = (record_text(record, number, field_name, label) for number, record in _jsonl_records(text, label))
    return [d for d in docs if d is not None]


def documents_of(text: str, ext: str, label: str, column: Optional[str]) -> list[str]:
    if ext in TEXT_EXTENSIONS:
        return [text] if text.strip() else []
    if ext in (".csv", ".tsv"):
        return _read_csv(text, ext, label, column)
    return _read_jsonl(text, label, column)


def zip_members(data: bytes, label: str, max_bytes: int) -> Iterator[tuple[str, str, Optional[bytes]]]:
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
        total = sum(i.file_size for i in infos if extension_of(i.filename) in TEXT_EXTENSIONS + TABLE_EXTENSIONS)
        if total > max_bytes:
            raise too_big(f"{label} (unpacked)", total, max_bytes)
        budget = max_bytes
        for info in infos:
            ext = extension_of(info.filename)
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
                raise too_big(f"{label} (unpacked)", max_bytes - budget + len(content), max_bytes)
            budget -= len(content)
            yield info.filename, ext, content
