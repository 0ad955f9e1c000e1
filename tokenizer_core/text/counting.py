"""Word counts for training, the one counter every trainer uses: pre-tokenize lines and count
the pieces, fast.

Each line is normalized and pre-tokenized on its own, as ``tokenizers`` does when it
reads files; the result is the ``{piece: count}`` mapping the trainer starts from
(byte-level pieces already in GPT-2's byte symbols, e.g. ``"Ġthe"``). The common
cases take a fast path: lines are scanned in ~1 MB chunks with one regex call, and
past a few MB the chunks are spread over forked worker processes (2 cores here),
because in Python the GPT-2 regex scan, not the merging, dominates training time.

The compiled kernel's PieceCounter (kernels/src/counter.c; byte symbols in
kernels/src/byte_symbols.c) counts the same pieces in the same order.

>>> from tokenizer_core.text.pre_tokenizers import ByteLevel
>>> sorted(count_words(["the cat\\n", "the\\n"], pre_tokenizer=ByteLevel()).items())
[('the', 2), ('Ċ', 2), ('Ġcat', 1)]
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any, Optional, Protocol

import regex

from tokenizer_core.errors import TokenizerError
from tokenizer_core.kernel.codes import PieceSplit
from tokenizer_core.kernel.native import available
from tokenizer_core.text.line_chunks import line_chunks
from tokenizer_core.text.surrogates import utf8_of
from tokenizer_core.types import ProgressCallback, no_progress

# The GPT-2 pattern made safe for many lines at once: a run of spaces ending in "\n" is
# one piece, exactly what the pattern gives at the end of a single line, so scanning
# joined lines gives the same pieces as scanning each line (as tokenizers reads files).
_GPT2_LINES = regex.compile(
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|[^\S\n]*\n|\s+(?!\S)|\s+"""
)
_GPT2_ONE = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
_PARALLEL_AFTER_CHARS = 1 << 20


def _byte_table() -> dict[int, str]:
    from tokenizer_core.text.pre_tokenizers import bytes_to_unicode

    return {b: c for b, c in bytes_to_unicode().items()}


def to_byte_symbols(piece: str, _table: dict[int, str] = {}) -> str:  # noqa: B006 (module cache)
    """A piece in GPT-2's byte symbols. ``to_byte_symbols(" héllo") == 'ĠhÃ©llo'``."""
    if not _table:
        _table.update(_byte_table())
    if not piece.isascii():
        piece = utf8_of(piece).decode("latin-1")  # a lone surrogate reads as U+FFFD, as in encoding
    return piece.translate(_table)


def _byte_mapped(raw: dict[str, int]) -> Counter[str]:
    """Raw pieces' counts under their byte symbols, in order of first appearance. Pieces that differ
    only in lone surrogates map to the same symbols (each surrogate reads as U+FFFD): summed.

    >>> _byte_mapped({"a\\ud800": 1, " b": 2, "a\\udfff": 3})
    Counter({'aï¿½': 4, 'Ġb': 2})
    """
    out: Counter[str] = Counter()
    for piece, count in raw.items():
        out[to_byte_symbols(piece)] += count
    return out


def _multiprocessing() -> Any:
    import multiprocessing  # here: with pickle and socket it costs every training process ~3 MB

    return multiprocessing


def _fork_ok() -> bool:
    # Forking a process that runs other threads (a web server) can deadlock; only fork alone.
    return (
        threading.active_count() == 1
        and "fork" in _multiprocessing().get_all_start_methods()
        and (os.cpu_count() or 1) > 1
    )


def count_gpt2_pieces(
    lines: Iterable[str],
    *,
    normalize: Optional[Callable[[str], str]] = None,
    workers: Optional[int] = None,
    progress: ProgressCallback = no_progress,
) -> Counter[str]:
    """Count GPT-2 regex pieces per line (raw text, not yet byte-mapped), fast.

    Lines are scanned in ~1 MB chunks; past the first MB the chunks are spread over
    ``workers`` processes (default: the CPU count; 1 disables it). ``normalize`` (e.g.
    ``Lowercase().normalize_str``) must work character by character, as it sees chunks.

    >>> sorted(count_gpt2_pieces(["Hello world\\n", "Hello  you\\n"]).items())
    [('\\n', 2), (' ', 1), (' world', 1), (' you', 1), ('Hello', 2)]
    """
    chunks = line_chunks(lines, progress)
    if normalize is None:
        return _count_chunks(chunks, _gpt2_split, workers)
    return _count_chunks(chunks, lambda text, joined: _gpt2_split(normalize(text), joined), workers)


def _gpt2_split(text: str, joined: bool) -> list[str]:
    return (_GPT2_LINES if joined else _GPT2_ONE).findall(text)


# The splitter used by worker processes; set before forking so the children inherit it.
_JOB_SPLIT: Any = None


def _count_worker(tasks: Any, results: Any) -> None:
    """Worker process: count the pieces of every chunk it is given, then send one total back."""
    total: Counter[str] = Counter()
    while True:
        item = tasks.get()
        if item is None:
            break
        total.update(_JOB_SPLIT(*item))
    results.put(total)


def _count_chunks(chunks: Iterator[tuple[str, bool]], split: Any, workers: Optional[int]) -> Counter[str]:
    """Count ``split(text, joined)`` over chunks; past the first MB, in ``workers`` forked processes.

    Each worker keeps its own total and sends it once at the end, so the parent merges
    ``workers`` counters rather than one per chunk.
    """
    global _JOB_SPLIT
    total: Counter[str] = Counter()
    if workers is None:
        workers = os.cpu_count() or 1
    done = 0
    for text, joined in chunks:
        total.update(split(text, joined))
        done += len(text)
        if done >= _PARALLEL_AFTER_CHARS and workers > 1 and _fork_ok():
            break
    else:
        return total
    # Large input: the rest goes to worker processes.
    ctx = _multiprocessing().get_context("fork")
    tasks = ctx.Queue(maxsize=2 * workers)
    results = ctx.Queue()
    _JOB_SPLIT = split
    procs = [ctx.Process(target=_count_worker, args=(tasks, results), daemon=True) for _ in range(workers)]
    ok = False
    try:
        for proc in procs:
            proc.start()
        for item in chunks:
            tasks.put(item)
        for _ in procs:
            tasks.put(None)
        for _ in procs:
            total.update(results.get())
        ok = True
    finally:
        _JOB_SPLIT = None
        for proc in procs:
            if proc.pid is None:
                continue
            if not ok:  # the parent failed (e.g. a bad line): do not wait for idle workers
                proc.terminate()
            proc.join(timeout=10)
    return total


def count_words(
    lines: Iterable[str],
    *,
    normalizer: Any = None,
    pre_tokenizer: Any = None,
    workers: Optional[int] = None,
    progress: ProgressCallback = no_progress,
) -> Counter[str]:
    """Count pre-tokenized pieces of ``lines`` as a trainer sees them (byte-mapped for ByteLevel).

    Each line is normalized and pre-tokenized on its own, as ``tokenizers`` does with
    files (no pre-tokenizer: each non-empty line is one piece). :func:`counting_path` picks
    how: the common cases take a fast path that counts the same pieces. Without worker
    processes, pieces are counted in order of first appearance.

    >>> from tokenizer_core.text.pre_tokenizers import ByteLevel
    >>> sorted(count_words(["the cat\\n", "the\\n"], pre_tokenizer=ByteLevel()).items())
    [('the', 2), ('Ċ', 2), ('Ġcat', 1)]
    """
    count = counting_path(normalizer=normalizer, pre_tokenizer=pre_tokenizer)
    return count(lines, normalizer=normalizer, pre_tokenizer=pre_tokenizer, workers=workers, progress=progress)


class CountingPath(Protocol):
    """One way of counting, with :func:`count_words`' arguments; every path counts the same pieces."""

    def __call__(self, lines: Iterable[str], *, normalizer: Any, pre_tokenizer: Any, workers: Optional[int],
                 progress: ProgressCallback) -> Counter[str]: ...


def counting_path(*, normalizer: Any, pre_tokenizer: Any) -> CountingPath:
    """The fastest way to count the pieces of these stages (the reference is line by line).

    >>> from tokenizer_core.text.normalizers import BertNormalizer
    >>> from tokenizer_core.text.pre_tokenizers import BertPreTokenizer
    >>> counting_path(normalizer=BertNormalizer(), pre_tokenizer=BertPreTokenizer()).__name__
    '_count_by_space_chunks'
    """
    from tokenizer_core.text.normalizers import BertNormalizer, Lowercase
    from tokenizer_core.text.pre_tokenizers import BertPreTokenizer, Whitespace, WhitespaceSplit, WordSplit

    # The fast paths scan many lines at once, so the normalizer must work character by character.
    simple_norm = normalizer is None or type(normalizer) is Lowercase
    gpt2 = simple_norm and _is_plain_gpt2(pre_tokenizer)
    if simple_norm and available():
        # The compiled kernel splits and counts in one pass, faster than forked regex workers.
        how = PieceSplit.GPT2 if gpt2 else _kernel_split(pre_tokenizer)
        if how is not None:
            return partial(_count_in_kernel, how=how)
    if gpt2:
        return _count_gpt2_regex
    splits_at_spaces = type(pre_tokenizer) in (Whitespace, WordSplit, WhitespaceSplit, BertPreTokenizer)
    if splits_at_spaces and simple_norm:
        return _count_joined_lines
    if splits_at_spaces and type(normalizer) is BertNormalizer:
        return _count_by_space_chunks
    return _count_line_by_line


def _is_plain_gpt2(pre_tokenizer: Any) -> bool:
    """Whether ``pre_tokenizer`` is GPT-2's ByteLevel split, which the fast GPT-2 paths reproduce."""
    from tokenizer_core.text.pre_tokenizers import GPT2_PATTERN, ByteLevel

    return (type(pre_tokenizer) is ByteLevel and pre_tokenizer.use_regex and not pre_tokenizer.add_prefix_space
            and pre_tokenizer.pattern == GPT2_PATTERN)


def _kernel_split(pre_tokenizer: Any) -> Optional[PieceSplit]:
    """The kernel's splitter for a word splitter it knows, or None."""
    from tokenizer_core.text.pre_tokenizers import Whitespace, WhitespaceSplit, WordSplit

    return {
        Whitespace: PieceSplit.WHITESPACE,
        WordSplit: PieceSplit.WORD_SPLIT,
        WhitespaceSplit: PieceSplit.WHITESPACE_SPLIT,
    }.get(type(pre_tokenizer))


def _count_in_kernel(lines: Iterable[str], *, how: PieceSplit, normalizer: Any, pre_tokenizer: Any,
                     workers: Optional[int], progress: ProgressCallback) -> Counter[str]:
    """The kernel's counts; GPT-2 pieces come in byte symbols, as the regex path maps them."""
    from tokenizer_core.text.native_counting import count_native

    norm = None if normalizer is None else normalizer.normalize_str
    counts: Counter[str] = Counter()
    return count_native(lines, how=how, normalize=norm, progress=progress, threads=workers,
                        byte_symbols=how == PieceSplit.GPT2, into=counts)


def _count_gpt2_regex(lines: Iterable[str], *, normalizer: Any, pre_tokenizer: Any, workers: Optional[int],
                      progress: ProgressCallback) -> Counter[str]:
    """GPT-2 pieces by the joined-lines regex (in worker processes past the first MB), byte-mapped."""
    norm = None if normalizer is None else normalizer.normalize_str
    raw = count_gpt2_pieces(lines, normalize=norm, workers=workers, progress=progress)
    return _byte_mapped(raw)


def _count_joined_lines(lines: Iterable[str], *, normalizer: Any, pre_tokenizer: Any, workers: Optional[int],
                        progress: ProgressCallback) -> Counter[str]:
    """Whitespace-splitting pre-tokenizers never keep whitespace in a piece, so lines can be scanned together."""
    words = pre_tokenizer.words
    if normalizer is not None:
        norm = normalizer.normalize_str
        return _count_chunks(line_chunks(lines, progress), lambda text, _: words(norm(text)), workers)
    return _count_chunks(line_chunks(lines, progress), lambda text, _: words(text), workers)


def _count_line_by_line(lines: Iterable[str], *, normalizer: Any, pre_tokenizer: Any, workers: Optional[int],
                        progress: ProgressCallback) -> Counter[str]:
    """The reference: each line normalized and pre-tokenized on its own."""
    counts: Counter[str] = Counter()
    for n, line in enumerate(_checked(lines), 1):
        if normalizer is not None:
            line = normalizer.normalize_str(line)
        counts.update(pre_tokenizer.words(line) if pre_tokenizer is not None else ([line] if line else []))
        if n % 10_000 == 0:
            progress(n, 0, "counting words")
    return counts


#: The trainers' historical name for :func:`count_words`.
count_pieces = count_words

_SPACES = regex.compile(r"[ \t\n\r]+")


def _checked(lines: Iterable[str]) -> Iterator[str]:
    for line in lines:
        if not isinstance(line, str):
            raise TokenizerError(f"training lines must be text (str), got {type(line).__name__}")
        yield line


def _count_by_space_chunks(lines: Iterable[str], *, normalizer: Any, pre_tokenizer: Any, workers: Optional[int],
                           progress: ProgressCallback) -> Counter[str]:
    """BERT-style counting: the normalizer works character by character and the pre-tokenizer
    splits at spaces, tabs and newlines, so a line's words are the words of its space-separated
    chunks. Chunks repeat a lot: each distinct one is normalized once, in order of first
    appearance, which keeps the words in that order too."""
    chunks: Mapping[str, int]
    if available():  # the kernel splits at the same four characters, on every core without the GIL
        from tokenizer_core.text.native_counting import count_native

        chunks = count_native(_checked(lines), how=PieceSplit.SPACES, progress=progress, threads=workers)
    else:
        chunks = Counter()
        for n, line in enumerate(_checked(lines), 1):
            chunks.update(_SPACES.split(line))
            if n % 5000 == 0:
                progress(n, 0, "counting words")
    words = pre_tokenizer.words
    counts: Counter[str] = Counter()
    for chunk, count in chunks.items():
        if chunk:
            for word in words(normalizer.normalize_str(chunk)):
                counts[word] += count
    return counts
