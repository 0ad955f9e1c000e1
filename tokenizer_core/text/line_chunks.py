"""Training text in ~1 MB chunks of whole lines, the unit every fast counting path scans at once.

>>> list(line_chunks(["a b\\n", "c\\n", "one\\ntwo", "d\\n"], lambda *a: None))
[('a b\\nc\\n', True), ('one\\ntwo', False), ('d\\n', True)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tokenizer_core.errors import TokenizerError
from tokenizer_core.line_blocks import LineBlocks
from tokenizer_core.types import ProgressCallback

#: Characters per chunk (a joined chunk ends at the first line that takes it past this).
CHUNK_CHARS = 1 << 20

__all__ = ["CHUNK_CHARS", "line_chunks"]


def line_chunks(lines: Iterable[str], progress: ProgressCallback) -> Iterator[tuple[str, bool]]:
    """Group lines into ~1 MB chunks; ``(text, joined)`` where joined chunks hold whole "\\n"-lines.

    ``progress`` hears of every MB read, whatever the chunks (lines with newlines inside are chunks
    of their own, so a corpus of them never fills a whole one). :class:`LineBlocks` are cut into chunks
    at line ends without being split into lines."""
    if isinstance(lines, LineBlocks):
        yield from _block_chunks(lines, progress)
        return
    buf: list[str] = []
    size = 0
    seen = 0
    told = 0

    def tell() -> None:
        nonlocal told
        if seen - told >= CHUNK_CHARS:
            told = seen
            progress(seen, 0, "counting words")

    for line in lines:
        if not isinstance(line, str):
            raise TokenizerError(f"training lines must be strings, got {type(line).__name__}")
        nl = line.find("\n")
        if nl == len(line) - 1 and nl >= 0:
            buf.append(line)
            size += len(line)
            if size >= CHUNK_CHARS:
                seen += size
                yield "".join(buf), True
                tell()
                buf, size = [], 0
        else:  # no newline, or newlines inside: scan it on its own, as one text
            if buf:
                seen += size
                yield "".join(buf), True
                buf, size = [], 0
            if line:
                seen += len(line)
                yield line, False
            tell()
    if buf:
        yield "".join(buf), True


def _block_chunks(lines: LineBlocks, progress: ProgressCallback) -> Iterator[tuple[str, bool]]:
    """Each block of ``2 * CHUNK_CHARS`` or more in ~``CHUNK_CHARS`` pieces cut after a ``"\\n"`` (a
    longer line stays whole).

    >>> import tokenizer_core.text.line_chunks as lc
    >>> old, lc.CHUNK_CHARS = lc.CHUNK_CHARS, 3
    >>> list(_block_chunks(LineBlocks(lambda: iter(["ab\\ncd\\ne\\n", "fghij"])), lambda *a: None))
    [('ab\\n', True), ('cd\\ne\\n', True), ('fghij', True)]
    >>> lc.CHUNK_CHARS = old
    """
    seen = 0
    for block in lines.blocks():
        start, size = 0, len(block)
        while start < size:
            # Only a block of two chunks or more is cut (one a little over a chunk costs no copy).
            cut = block.find("\n", start + CHUNK_CHARS - 1) if size - start >= 2 * CHUNK_CHARS else -1
            end = size if cut < 0 else cut + 1
            # Joined: the kernel and the joined-lines regex scan each "\n"-line on its own; a last line
            # without one is a line too.
            yield (block if start == 0 and end == size else block[start:end]), True
            seen += end - start
            progress(seen, 0, "counting words")
            start = end
