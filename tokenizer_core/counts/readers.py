"""The lines of one partition, streamed: memory holds a block, never the file.

Plain text gives the lines :func:`tokenizer_core.corpus.streaming.stream_lines` gives (only
``"\\n"`` ends a line and is kept); JSONL, CSV/TSV and Parquet give the lines of each record's text,
as :meth:`tokenizer_core.corpus.documents.Corpus.lines` does for a loaded file. Any file may be
compressed (``.gz``, ``.bz2``, ``.xz``, ``.zst``); Parquet is read a batch of rows at a time.

>>> import tempfile, pathlib
>>> from tokenizer_core.counts.inputs import Partition
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
>>> _ = p.write_bytes("añb\\ncd\\ne".encode())
>>> [list(lines_of(Partition(p, "text", "", a, b))) for a, b in [(0, 3), (3, 9)]]
[['añb\\n'], ['cd\\n', 'e']]
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import csv
import gzip
import io
import itertools
import lzma
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Optional

from tokenizer_core.corpus.decoding import refuse_binary
from tokenizer_core.corpus.documents import split_lines
from tokenizer_core.corpus.formats import guess_column, jsonl_field, jsonl_records, record_text
from tokenizer_core.counts.inputs import Partition
from tokenizer_core.errors import CorpusError

_BLOCK = 1 << 22
_FIELD_SCAN = 1000


def lines_of(part: Partition, *, text_column: Optional[str] = None) -> Iterator[str]:
    """The lines of ``part`` (each keeps its ``"\\n"``); a file that vanished or is not UTF-8 text is
    a CorpusError naming the file (and the byte offset of the first bad byte)."""
    with _read_errors(part):
        if part.kind == "text":
            if part.compression:
                with _open_binary(part) as fh:
                    yield from _text_lines(fh, part, offset=0, end=None)
            elif _whole_file(part):
                # A whole file: the streaming reader of training, which also reads UTF-16 and words
                # every problem as the loader does (it reads no more than a block at a time).
                from tokenizer_core.corpus.streaming import stream_lines

                yield from stream_lines(part.path, max_bytes=max(part.end, 1))  # (end: the file's size or more)
            else:
                yield from _range_lines(part)
        elif part.kind == "jsonl":
            yield from _documents_lines(_jsonl_docs(part, text_column))
        elif part.kind in ("csv", "tsv"):
            yield from _documents_lines(_csv_docs(part, text_column))
        elif part.kind == "parquet":
            yield from _documents_lines(_parquet_docs(part, text_column))
        else:  # zip archives: read whole by the loader, member by member (within its size limit)
            from tokenizer_core.corpus.loading import load_corpus

            yield from load_corpus(part.path, text_column=text_column).lines()


def blocks_of(part: Partition, *, text_column: Optional[str] = None) -> Iterator[str]:
    """:func:`lines_of`' lines as blocks of whole lines (for
    :class:`~tokenizer_core.line_blocks.LineBlocks`): a whole uncompressed text file a few MB at a
    time, anything else a line per block.

    >>> import tempfile, pathlib
    >>> from tokenizer_core.counts.inputs import Partition
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> _ = p.write_bytes(b"a\\nb\\nc")
    >>> list(blocks_of(Partition(p, "text", "", 0, 5)))
    ['a\\nb\\n', 'c']
    """
    with _read_errors(part):
        if part.kind == "text" and not part.compression and _whole_file(part):
            from tokenizer_core.corpus.streaming import stream_blocks
            from tokenizer_core.text.line_chunks import CHUNK_CHARS

            # Blocks of a chunk's size: each goes to a counting thread as it is (a str of a few MB
            # with one character past Latin-1 takes four bytes a character).
            yield from stream_blocks(part.path, max_bytes=max(part.end, 1), block=CHUNK_CHARS)
            return
    yield from lines_of(part, text_column=text_column)


def _whole_file(part: Partition) -> bool:
    return part.start == 0 and part.end >= part.path.stat().st_size


@contextlib.contextmanager
def _read_errors(part: Partition) -> Iterator[None]:
    """Reading problems as CorpusErrors naming the file."""
    try:
        yield
    except FileNotFoundError:
        raise CorpusError(f"{part.path}: the file is gone (deleted or moved while counting)") from None
    except (OSError, EOFError, lzma.LZMAError) as err:
        if isinstance(err, CorpusError):
            raise
        raise CorpusError(f"{part.path}: cannot be read ({err})") from None


def _open_binary(part: Partition) -> IO[bytes]:
    if part.compression == "gzip":
        return gzip.open(part.path, "rb")
    if part.compression == "bz2":
        return bz2.open(part.path, "rb")
    if part.compression == "lzma":
        return lzma.open(part.path, "rb")
    if part.compression == "zstandard":
        try:
            import zstandard
        except ImportError:
            raise CorpusError(f"{part.path}: reading .zst files needs the zstandard package "
                              "(pip install zstandard)") from None
        raw = part.path.open("rb")
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw, closefd=True))
    return part.path.open("rb")


def _check_start(data: bytes, path: Path) -> bytes:
    """``data`` (a file's first bytes) without a UTF-8 BOM; the loader's CorpusError if it starts like
    something other than UTF-8 text (UTF-16, an image, an archive...)."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:]
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise CorpusError(f"{path}: this is UTF-16 text; save it as UTF-8 to count it in parts")
    refuse_binary(data[:4096], str(path))
    return data


def _decode(data: bytes, path: Path, offset: int) -> str:
    nul = data.find(b"\x00")
    if nul >= 0:
        raise CorpusError(f"{path}: a NUL byte at byte {offset + nul:,}; this looks like a binary file, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CorpusError(f"{path}: not valid UTF-8 at byte {offset + err.start:,}; save it as UTF-8 "
                          "(or fix that byte)") from None


def _text_lines(fh: IO[bytes], part: Partition, *, offset: int, end: Optional[int]) -> Iterator[str]:
    """Lines from ``fh`` (at byte ``offset`` of the file), up to and including the one holding byte
    ``end - 1`` (all of them if ``end`` is None). Blocks are cut after a newline, so a UTF-8
    sequence is never cut."""
    pending = b""
    at_start = offset == 0
    if at_start:  # the file's start: a BOM is skipped (it belongs to the first line), other starts are checked
        head = fh.read(max(_BLOCK, 64))
        pending = _check_start(head, part.path)
        offset = len(head) - len(pending)
    while True:
        if end is not None and offset >= end and not at_start:
            return
        at_start = False
        block = fh.read(_BLOCK)
        data = pending + block
        if end is not None and offset + len(data) >= end:
            cut = data.find(b"\n", max(end - 1 - offset, 0))
            if cut >= 0:  # the line holding byte end - 1 is the range's last
                yield from split_lines(_decode(data[:cut + 1], part.path, offset))
                return
        if not block:  # end of file: the rest is the last line
            if data:
                yield from split_lines(_decode(data, part.path, offset))
            return
        cut = data.rfind(b"\n")
        if cut < 0:
            pending = data
            continue
        yield from split_lines(_decode(data[:cut + 1], part.path, offset))
        offset += cut + 1
        pending = data[cut + 1:]


def _range_lines(part: Partition) -> Iterator[str]:
    with part.path.open("rb") as fh:
        offset = part.start
        if offset > 0:
            fh.seek(offset - 1)
            if fh.read(1) != b"\n":  # mid-line: that line belongs to the range before
                offset += len(fh.readline())
        yield from _text_lines(fh, part, offset=offset, end=part.end)


def _documents_lines(docs: Iterator[str]) -> Iterator[str]:
    for doc in docs:
        yield from split_lines(doc)


def _text_stream(part: Partition) -> IO[str]:
    return io.TextIOWrapper(_open_binary(part), encoding="utf-8-sig", errors="strict", newline="")


def _jsonl_docs(part: Partition, field: Optional[str]) -> Iterator[str]:
    label = str(part.path)
    with _text_stream(part) as fh:
        records = _numbered_records(fh, label)
        if field is None:  # guessed from the first records, as the loader does
            head = list(itertools.islice(records, _FIELD_SCAN))
            field = jsonl_field(head, label)
            records = itertools.chain(head, records)
        for number, rec in records:
            value = record_text(rec, number, field, label)
            if value is not None:
                yield value


def _numbered_records(fh: IO[str], label: str) -> Iterator[tuple[int, Any]]:
    try:
        yield from jsonl_records(fh, label)
    except UnicodeDecodeError as err:
        raise CorpusError(f"{label}: not valid UTF-8 ({err.reason}); save it as UTF-8") from None


def _csv_docs(part: Partition, column: Optional[str]) -> Iterator[str]:
    label = str(part.path)
    if csv.field_size_limit() < 1 << 28:
        csv.field_size_limit(1 << 28)
    with _text_stream(part) as fh:
        reader = csv.reader(fh, delimiter="\t" if part.kind == "tsv" else ",")
        try:
            header = [h.strip() for h in next(reader, [])]
            if not header:
                raise CorpusError(f"{label} has no header row; the first row must name the columns.")
            column = column if column is not None else guess_column(header, label, "column")
            if column not in header:
                raise CorpusError(f"{label} has no column {column!r}; its columns are: "
                                  f"{', '.join(repr(c) for c in header)}.")
            index = header.index(column)
            for row in reader:
                if index < len(row) and row[index].strip():
                    yield row[index]
        except csv.Error as err:
            raise CorpusError(f"{label}: line {reader.line_num} is not valid CSV ({err}).") from None
        except UnicodeDecodeError as err:
            raise CorpusError(f"{label}: not valid UTF-8 ({err.reason}); save it as UTF-8") from None


def _parquet_docs(part: Partition, column: Optional[str]) -> Iterator[str]:
    label = str(part.path)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CorpusError(f"{label}: reading Parquet needs the pyarrow package (pip install pyarrow)") from None
    try:
        pf = pq.ParquetFile(part.path)
    except (pa.ArrowInvalid, OSError) as err:
        raise CorpusError(f"{label}: not a Parquet file ({err})") from None
    strings = [f.name for f in pf.schema_arrow if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    if column is None:
        if not strings:
            raise CorpusError(f"{label}: no text column (its columns: {', '.join(pf.schema_arrow.names)})")
        column = guess_column(strings, label, "column")
    if column not in pf.schema_arrow.names:
        raise CorpusError(f"{label} has no column {column!r}; its columns are: "
                          f"{', '.join(repr(c) for c in pf.schema_arrow.names)}.")
    if column not in strings:
        raise CorpusError(f"{label}: column {column!r} does not hold text")
    for batch in pf.iter_batches(batch_size=4096, columns=[column]):
        for value in batch.column(0).to_pylist():
            if value is not None and value.strip():
                yield value
