"""Corpus inputs for counting: files, directories and globs expanded, and split into partitions.

A partition is what one worker counts: a byte range of a large plain-text file (the lines that
*start* inside it: a line crossing the range's end belongs to this range, the next range skips
it, so no line is cut or counted twice) or a whole file of any other kind.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.txt").write_text("one\\ntwo\\nthree\\n"); _ = (d / "b.jsonl").write_text('{"text": "x"}\\n')
>>> [(p.path.name, p.kind, p.start, p.end) for p in partitions(expand([str(d)]), part_bytes=8)]
[('a.txt', 'text', 0, 8), ('a.txt', 'text', 8, 14), ('b.jsonl', 'jsonl', 0, 14)]
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tokenizer_core.errors import CorpusError

#: Compressed files by their last extension, and the module that reads them.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma", ".zst": "zstandard"}
#: Formats by extension (after a compression extension is taken off).
KINDS = {".txt": "text", ".md": "text", ".text": "text", ".jsonl": "jsonl", ".json": "jsonl",
         ".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".zip": "zip"}
DEFAULT_PART_BYTES = 64 << 20


@dataclass(frozen=True)
class Source:
    """One input file: its path, format (``text``, ``jsonl``, ``csv``, ``tsv``, ``parquet``, ``zip``),
    compression (``""`` or a key of :data:`COMPRESSIONS`' values) and size in bytes on disk."""

    path: Path
    kind: str
    compression: str
    size: int


@dataclass(frozen=True)
class Partition:
    """What one task reads: bytes ``start:end`` of ``path`` (for a whole file, ``0:size``)."""

    path: Path
    kind: str
    compression: str
    start: int
    end: int
    index: int = 0

    @property
    def nbytes(self) -> int:
        return self.end - self.start


def describe(path: Path) -> tuple[str, str]:
    """``(kind, compression)`` of a file by its name; a CorpusError for a kind it cannot read.

    >>> describe(Path("wiki.jsonl.zst")), describe(Path("a.TXT"))
    (('jsonl', 'zstandard'), ('text', ''))
    """
    suffixes = [s.lower() for s in path.suffixes]
    compression = ""
    if suffixes and suffixes[-1] in COMPRESSIONS:
        compression = COMPRESSIONS[suffixes.pop()]
    kind = KINDS.get(suffixes[-1] if suffixes else "")
    if kind is None or (kind in ("parquet", "zip") and compression):
        shown = "".join(path.suffixes) or "no extension"
        raise CorpusError(f"{path}: cannot read files ending in {shown}; use {', '.join(sorted(KINDS))} files, "
                          f"each optionally compressed ({', '.join(COMPRESSIONS)})")
    return kind, compression


def _readable(path: Path) -> bool:
    try:
        describe(path)
        return True
    except CorpusError:
        return False


def expand(names: Sequence[str]) -> list[Source]:
    """The files named: each name a file, a directory (its readable files, recursively, sorted) or a
    glob (``**`` included). Empty files are left out; nothing readable at all is a CorpusError.
    """
    found: list[Path] = []
    for name in names:
        path = Path(name)
        if any(c in name for c in "*?[") and not path.exists():
            matched = sorted(Path(m) for m in glob.glob(name, recursive=True))
            files = [m for m in matched if m.is_file() and _readable(m)]
            if not files:
                raise CorpusError(f"{name}: no readable files match this pattern")
            found.extend(files)
        elif path.is_dir():
            files = sorted(Path(root) / f for root, _, names_ in os.walk(path) for f in names_)
            found.extend(f for f in files if _readable(f))
        elif path.is_file():
            describe(path)  # an explicitly named file of an unknown kind is an error
            found.append(path)
        else:
            raise CorpusError(f"{name}: no such file or directory")
    sources = []
    empty: list[Path] = []
    seen: set[Path] = set()
    for path in found:
        key = path.resolve()
        if key in seen:
            continue
        seen.add(key)
        size = path.stat().st_size
        if size == 0:
            empty.append(path)
            continue
        sources.append(Source(path, *describe(path), size))
    if not sources and empty:
        raise CorpusError(f"{empty[0]} is empty{f' (and {len(empty) - 1} more)' if len(empty) > 1 else ''}: "
                          "there is no text to count")
    if not sources:
        raise CorpusError(f"no text to count in {', '.join(names) or 'nothing'} (only empty or unreadable files)")
    return sources


def partitions(sources: Iterable[Source], *, part_bytes: int = DEFAULT_PART_BYTES) -> list[Partition]:
    """The partitions of ``sources`` in corpus order: plain uncompressed text files in ranges of about
    ``part_bytes`` (the lines are found by the reader), other files whole."""
    if part_bytes < 1:
        raise CorpusError(f"partition size must be positive, not {part_bytes}")
    out: list[Partition] = []
    for src in sources:
        if src.kind == "text" and not src.compression and src.size > part_bytes:
            for start in range(0, src.size, part_bytes):
                out.append(Partition(src.path, src.kind, src.compression, start, min(start + part_bytes, src.size)))
        else:
            out.append(Partition(src.path, src.kind, src.compression, 0, src.size))
    return [Partition(p.path, p.kind, p.compression, p.start, p.end, i) for i, p in enumerate(out)]
