"""Training text in ~1 MB chunks of whole lines, the unit every fast counting path scans at once.

>>> list(line_chunks(["a b\\n", "c\\n", "one\\ntwo", "d\\n"], lambda *a: None))
[('a b\\nc\\n', True), ('one\\ntwo', False), ('d\\n', True)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import ProgressCallback

#: Characters per chunk (a joined chunk ends at the first line that takes it past this).
CHUNK_CHARS = 1 << 20

__all__ = ["CHUNK_CHARS", "line_chunks"]


def line_chunks(lines: Iterable[str], progress: ProgressCallback) -> Iterator[tuple[str, bool]]:
    """Group lines into ~1 MB chunks; ``(text, joined)`` where joined chunks hold whole "\\n"-lines.

    ``progress`` hears of every MB read, whatever the chunks (lines with newlines inside are chunks
    of their own, so a corpus of them never fills a whole one)."""
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
