"""Counting a corpus's pieces with the compiled kernel on every core.

The corpus is read in ~1 MB chunks (:func:`~tokenizer_core.text.line_chunks.line_chunks`); each chunk
is counted by a ``PieceCounter`` of its own on a thread of a pool (the kernel counts without the
GIL), and the chunk counters are merged into the total in chunk order as they finish. Merging in
chunk order keeps the order of first appearance of one pass over the corpus, so the result is the
same, piece for piece and in order, whatever the number of threads.

The counter itself is kernels/src/counter.c.

>>> from tokenizer_core.kernel.codes import PieceSplit
>>> from tokenizer_core.kernel.native import available
>>> not available() or count_native(["a b a\\n", "b c\\n"], how=PieceSplit.WHITESPACE, threads=2) == {"a": 2, "b": 2, "c": 1}
True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Optional

from tokenizer_core.kernel.codes import PieceSplit
from tokenizer_core.kernel.native import class_table, default_threads, kernel
from tokenizer_core.text.line_chunks import CHUNK_CHARS, line_chunks
from tokenizer_core.types import ProgressCallback, no_progress

__all__ = ["count_native"]


def _count_batch(batch: list[tuple[str, bool]], how: PieceSplit) -> Any:
    counter = kernel().PieceCounter(class_table(), how)
    for text, joined in batch:
        counter.add(text, joined)
    return counter


def _batches(chunks: Iterable[tuple[str, bool]]) -> Iterator[list[tuple[str, bool]]]:
    """Chunks grouped up to about :data:`CHUNK_CHARS` characters a group. Lines without a newline are
    chunks of their own: 266,000 of them were 266,000 tasks, each with its counter to merge (12x the
    time of the same lines with newlines); a group is one task whatever its chunks.

    >>> [len(b) for b in _batches([("a", False)] * 3)]
    [3]
    """
    batch: list[tuple[str, bool]] = []
    size = 0
    for text, joined in chunks:
        batch.append((text, joined))
        size += len(text)
        if size >= CHUNK_CHARS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def count_native(
    lines: Iterable[str],
    *,
    how: PieceSplit,
    normalize: Optional[Callable[[str], str]] = None,
    progress: ProgressCallback = no_progress,
    threads: Optional[int] = None,
    byte_symbols: bool = False,
    into: Optional[dict[str, int]] = None,
) -> dict[str, int]:
    """Pieces of ``lines`` counted by the kernel, in order of first appearance, on ``threads``
    threads (default: every core this process may use; 1 counts on the calling thread).

    ``byte_symbols`` gives each piece in GPT-2's byte symbols (made in the kernel: no second dict
    of the raw pieces); the counts go into ``into`` when given (a Counter, say), which is returned.

    ``normalize`` runs on each chunk on the calling thread (it must work character by character).
    A progress callback that raises (Cancel) stops the count after the chunks already running."""
    threads = default_threads() if threads is None else max(1, threads)
    total = kernel().PieceCounter(class_table(), how)
    chunks = ((text if normalize is None else normalize(text), joined) for text, joined in line_chunks(lines, progress))
    if threads == 1:
        for text, joined in chunks:
            total.add(text, joined)
        return total.counts(byte_symbols=byte_symbols, into=into)
    # At most one chunk per thread (and one more) in flight: memory stays about a MB per thread, and the merges
    # (in order, on this thread) overlap the counting of later chunks.
    pending: deque[Future[Any]] = deque()
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="count") as pool:
        try:
            for batch in _batches(chunks):
                pending.append(pool.submit(_count_batch, batch, how))
                while len(pending) > threads + 1:
                    total.merge(pending.popleft().result())
            while pending:
                total.merge(pending.popleft().result())
        finally:
            for future in pending:
                future.cancel()
    return total.counts(byte_symbols=byte_symbols, into=into)
