"""The BPE training loop: pick the most frequent pair (ties by ids or first seen), merge it everywhere, record the step.

With the kernel, the engine's steps run in C (kernels/src/merges.c, through
merge_engines.KernelEngine).

>>> from tokenizer_core.bpe.symbols import SymbolTable
>>> run = run_merges([[0, 1, 2], [0, 1]], [1, 1], SymbolTable("abc"), shift=16, num_merges=2)
>>> run.merges, run.stop_reason, run.initial_tokens
([('a', 'b'), ('ab', 'c')], 'reached num_merges 2', 5)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from tokenizer_core.bpe.merge_engines import choose_engine
from tokenizer_core.bpe.symbols import SymbolTable
from tokenizer_core.types import ProgressCallback, no_progress


@dataclass(slots=True)
class MergeRun:
    """What the loop did: ``merges`` in rank order, one ``steps`` tuple per merge (the raw
    records of :class:`~tokenizer_core.bpe.trace.BpeTrace`), the corpus size in tokens before
    any merge, and why it stopped; ``words`` the words' symbol ids after the last merge when
    ``final_words`` was asked for (else None)."""

    merges: list[tuple[str, str]]
    steps: list[tuple]
    initial_tokens: int
    stop_reason: str
    words: Optional[list[list[int]]] = None


def run_merges(
    words: list[list[int]],
    counts: list[int],
    table: SymbolTable,
    *,
    shift: int,
    vocab_size: Optional[int] = None,
    num_merges: Optional[int] = None,
    min_frequency: int = 0,
    prefix: Optional[str] = None,
    tie_break: str = "ids",
    top_k: int = 0,
    progress: ProgressCallback = no_progress,
    final_words: bool = False,
) -> MergeRun:
    """Merge pairs of ``words`` (symbol ids) until a limit is reached; new tokens go to ``table``.
    ``words`` is used up (merged in place, or emptied once the kernel has its copy).

    ``shift`` packs a pair into one int key and must leave room for every id the loop creates.
    :func:`~tokenizer_core.bpe.merge_engines.choose_engine` picks who finds and merges the
    pairs: the compiled kernel (on its own copy of the words) or the Python code (which edits
    ``words`` in place); every engine runs the same steps. ``final_words`` keeps the words as
    the last merge left them (SuperBPE's second stage starts from them).
    """
    initial_tokens = _corpus_tokens(words, counts)
    engine = choose_engine(words, counts, shift=shift, tie_break=tie_break, top_k=top_k)
    total = _planned_merges(len(table), vocab_size, num_merges)
    report_every = max(1, total // 200)
    progress(0, total, "merging pairs")
    merges: list[tuple[str, str]] = []
    steps: list[tuple] = []
    tokens_now = initial_tokens
    mask = (1 << shift) - 1
    while True:
        stop_reason = _size_limit(len(table), len(merges), vocab_size, num_merges)
        if stop_reason:
            break
        cnt = engine.best_count()
        stop_reason = _count_limit(cnt, min_frequency)
        if stop_reason:
            break
        key, runner_ups = engine.take()
        a, b = key >> shift, key & mask
        new_id, token_is_new = _add_merged_token(table, a, b, prefix)
        merges.append((table.id_to_tok[a], table.id_to_tok[b]))
        tokens_now -= engine.merge(a, b, new_id)
        steps.append((a, b, cnt, new_id, token_is_new, tuple(runner_ups), _tied(runner_ups, cnt), tokens_now))
        if len(merges) % report_every == 0:
            progress(len(merges), total, "merging pairs")
    progress(len(merges), total, "done")
    return MergeRun(merges, steps, initial_tokens, stop_reason, engine.words() if final_words else None)


def _corpus_tokens(words: list[list[int]], counts: list[int]) -> int:
    """The corpus size in tokens: each word's length times its count."""
    if all(c == 1 for c in counts):
        return sum(map(len, words))
    return sum(c * len(w) for w, c in zip(words, counts))


def _planned_merges(n_tokens: int, vocab_size: Optional[int], num_merges: Optional[int]) -> int:
    """How many merges the size limits allow at most (the progress bar's total)."""
    total = (vocab_size - n_tokens) if vocab_size is not None else num_merges
    if num_merges is not None and total is not None:
        total = min(total, num_merges)
    return max(total or 0, 0)


def _size_limit(n_tokens: int, n_merges: int, vocab_size: Optional[int], num_merges: Optional[int]) -> str:
    """Why training must stop before the next merge for its size limits, or "" to go on."""
    if vocab_size is not None and n_tokens >= vocab_size:
        if n_tokens > vocab_size or not n_merges:
            return (
                f"vocab_size {vocab_size} leaves no room for merges: the special tokens and the "
                f"alphabet already make {n_tokens} tokens; raise vocab_size or set limit_alphabet"
            )
        return f"reached vocab_size {vocab_size}"
    if num_merges is not None and n_merges >= num_merges:
        return f"reached num_merges {num_merges}"
    return ""


def _count_limit(cnt: int, min_frequency: int) -> str:
    """Why training must stop when the best pair occurs ``cnt`` times, or "" to go on."""
    if cnt < 1:
        return "no pairs left to merge: every word is a single token"
    if min_frequency > cnt:
        return f"the most frequent pair occurs {cnt} times, fewer than min_frequency {min_frequency}"
    return ""


def _add_merged_token(table: SymbolTable, a: int, b: int, prefix: Optional[str]) -> tuple[int, bool]:
    """Id of the token made by merging ids ``a`` and ``b`` (the right part loses its ``prefix``),
    and whether it is new; a merge spelling an existing token reuses its id, as ``tokenizers``."""
    left, right = table.id_to_tok[a], table.id_to_tok[b]
    if prefix is not None and right.startswith(prefix):
        right = right[len(prefix):]
    new_tok = left + right
    token_is_new = new_tok not in table.tok_to_id
    return table.add(new_tok), token_is_new


def _tied(runner_ups: list[tuple[int, int]], cnt: int) -> int:
    """How many runner-ups (best first) occur exactly ``cnt`` times, i.e. tied with the chosen pair."""
    tied = 0
    for _, c in runner_ups:
        if c != cnt:
            break
        tied += 1
    return tied
