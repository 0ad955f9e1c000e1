"""Training lines that can also be read a block at a time.

A corpus file streams as a few MB of decoded text at a time; cutting that text into lines and
gluing the lines back into ~1 MB chunks for the kernel's counter is pure per-line Python, the one
serial part of counting on many cores. :class:`LineBlocks` hands the blocks themselves (each
made of whole ``"\\n"``-lines) to whoever knows how to scan many lines at once
(:func:`~tokenizer_core.text.line_chunks.line_chunks`), and iterates as the plain lines for
everyone else, so no consumer can mistake a block for a line.

>>> lines = LineBlocks(lambda: iter(["a b\\nc\\n", "d\\ne"]))
>>> list(lines)
['a b\\n', 'c\\n', 'd\\n', 'e']
>>> list(lines.blocks())
['a b\\nc\\n', 'd\\ne']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

__all__ = ["LineBlocks", "split_lines"]


class LineBlocks:
    """Lines read as blocks of whole lines: ``blocks()`` gives the blocks, iterating gives the lines.

    ``source`` is called once per reading and returns the blocks, each made of whole lines: only
    ``"\\n"`` ends a line (as in :func:`~tokenizer_core.corpus.streaming.stream_lines`), and a block's
    last line may lack one (it is a line all the same: the next block starts a new line).
    ``on_block`` sees each block before it is handed on (a check that may raise, such as the
    trainers' distinct-word limit).
    """

    __slots__ = ("_source", "_on_block")

    def __init__(self, source: Callable[[], Iterator[str]], *, on_block: Callable[[str], None] | None = None) -> None:
        self._source = source
        self._on_block = on_block

    def blocks(self) -> Iterator[str]:
        """The blocks, in order (empty ones skipped)."""
        check = self._on_block
        for block in self._source():
            if block:
                if check is not None:
                    check(block)
                yield block

    def __iter__(self) -> Iterator[str]:
        for block in self.blocks():
            yield from split_lines(block)

    def checked(self, on_block: Callable[[str], None]) -> LineBlocks:
        """The same lines, each block shown to ``on_block`` too (after any earlier check).

        >>> seen = []
        >>> list(LineBlocks(lambda: iter(["x\\n"])).checked(seen.append)), seen
        (['x\\n'], ['x\\n'])
        """
        earlier = self._on_block
        if earlier is None:
            return LineBlocks(self._source, on_block=on_block)

        def both(block: str) -> None:
            earlier(block)
            on_block(block)

        return LineBlocks(self._source, on_block=both)


def split_lines(text: str) -> Iterator[str]:
    """``text``'s lines, each keeping its ``"\\n"`` (no other character ends a line).

    >>> list(split_lines("a\\r\\nb\\u2028c\\n\\nd"))
    ['a\\r\\n', 'b\\u2028c\\n', '\\n', 'd']
    """
    start = 0
    find = text.find
    while True:
        end = find("\n", start)
        if end < 0:
            break
        yield text[start:end + 1]
        start = end + 1
    if start < len(text):
        yield text[start:]
