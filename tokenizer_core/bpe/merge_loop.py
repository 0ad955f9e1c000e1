"""The BPE training loop: pick the most frequent pair (ties by ids or first seen), merge it everywhere, record the step.

>>> from tokenizer_core.bpe.symbols import SymbolTable
>>> run = run_merges([[0, 1, 2], [0, 1]], [1, 1], SymbolTable("abc"), shift=16, num_merges=2)
>>> run.merges, run.stop_reason, run.initial_tokens
([('a', 'b'), ('ab', 'c')], 'reached num_merges 2', 5)
"""

from __future__ import annotations

import heapq
from bisect import insort
from dataclasses import dataclass
from typing import Any, Optional

from tokenizer_core.bpe.pair_stats import QueueEntry, merge_everywhere, pair_queue
from tokenizer_core.bpe.symbols import SymbolTable
from tokenizer_core.text.native import available, kernel
from tokenizer_core.types import ProgressCallback, no_progress


@dataclass(slots=True)
class MergeRun:
    """What the loop did: ``merges`` in rank order, one ``steps`` tuple per merge (the raw
    records of :class:`~tokenizer_core.bpe.trace.BpeTrace`), the corpus size in tokens before
    any merge, and why it stopped."""

    merges: list[tuple[str, str]]
    steps: list[tuple]
    initial_tokens: int
    stop_reason: str


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
) -> MergeRun:
    """Merge pairs of ``words`` (symbol ids) until a limit is reached; new tokens go to ``table``.

    ``shift`` packs a pair into one int key and must leave room for every id the loop creates.
    Without runner-ups (``top_k=0``) and with ties by ids, the compiled kernel's ``MergeState``
    runs the same steps on its own copy of the words (tests/test_kernel.py compares whole runs);
    otherwise the Python code below edits ``words`` in place.
    """
    mask = (1 << shift) - 1
    initial_tokens = sum(map(len, words)) if all(c == 1 for c in counts) else sum(
        c * len(w) for w, c in zip(words, counts)
    )
    native = _native_state(words, counts, shift) if top_k == 0 and tie_break == "ids" else None
    pair_counts, heap, seq = pair_queue(words, counts, shift=shift) if native is None else ({}, [], None)
    total = (vocab_size - len(table)) if vocab_size is not None else num_merges
    if num_merges is not None and total is not None:
        total = min(total, num_merges)
    total = max(total or 0, 0)
    report_every = max(1, total // 200)
    progress(0, total, "merging pairs")
    merges: list[tuple[str, str]] = []
    steps: list[tuple] = []
    tokens_now = initial_tokens
    stop_reason = ""
    heappush = heapq.heappush
    first_ties = tie_break == "first"
    # The best few valid entries are kept out of the heap, sorted, in `stash`: the next
    # step's choice and its runner-ups come from it, so a step costs a few heap operations
    # (the entries its merge created or made stale), not 2 * top_k.
    stash: list[QueueEntry] = []
    need = top_k + 1
    while True:
        stop_reason = _size_limit(len(table), len(merges), vocab_size, num_merges)
        if stop_reason:
            break
        if native is not None:
            best = native.best()
            stash = [] if best is None else [(-best[1], best[0], 0, [])]
        else:
            stash = _refill_stash(stash, heap, pair_counts, need)
        if not stash or -stash[0][0] < 1:
            stop_reason = "no pairs left to merge: every word is a single token"
            break
        top = stash[0]
        cnt = -top[0]
        if min_frequency > cnt:
            stop_reason = f"the most frequent pair occurs {cnt} times, fewer than min_frequency {min_frequency}"
            break
        del stash[0]
        if native is not None:
            key, positions, runner_ups = top[1], [], []
        elif first_ties:
            for e in stash:
                heappush(heap, e)
            stash = []
            key, positions, runner_ups = _first_seen_choice(heap, pair_counts, top, words, shift, mask, top_k)
        else:
            key, positions = top[1], top[3]
            runner_ups = _stash_runner_ups(stash, key) if top_k else []
        a, b = key >> shift, key & mask
        new_id, token_is_new = _add_merged_token(table, a, b, prefix)
        merges.append((table.id_to_tok[a], table.id_to_tok[b]))

        if native is not None:
            tokens_now -= native.merge(a, b, new_id)
        else:
            tokens_now -= merge_everywhere(words, counts, positions, a, b, new_id, shift, pair_counts, heap, seq)
        steps.append((a, b, cnt, new_id, token_is_new, tuple(runner_ups), _tied(runner_ups, cnt), tokens_now))
        if len(merges) % report_every == 0:
            progress(len(merges), total, "merging pairs")
    progress(len(merges), total, "done")
    return MergeRun(merges, steps, initial_tokens, stop_reason)


def _native_state(words: list[list[int]], counts: list[int], shift: int) -> Optional[Any]:
    """The kernel's ``MergeState`` for these words, or None (no kernel, or ids/counts beyond its ints)."""
    if not available() or shift > 31 or sum(counts) >= 1 << 62:
        return None
    return kernel().MergeState(words, counts, shift)


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


def _refill_stash(stash: list[QueueEntry], heap: list, pair_counts: dict[int, int], need: int) -> list[QueueEntry]:
    """The ``need`` best current entries, sorted; stale ones go back to the queue with their new count."""
    heappop, heappush = heapq.heappop, heapq.heappush
    if stash:  # counts of stashed pairs may have dropped with the last merge
        keep = []
        for e in stash:
            cur = pair_counts[e[1]]
            if cur == -e[0]:
                keep.append(e)
            else:
                heappush(heap, (-cur, e[1], e[2], e[3]))
        stash = keep
    while heap:
        if len(stash) >= need and heap[0] >= stash[need - 1]:
            break
        e = heappop(heap)
        cur = pair_counts[e[1]]
        if cur != -e[0]:  # stale entry: back in the queue with its current count
            heappush(heap, (-cur, e[1], e[2], e[3]))
            continue
        insort(stash, e)
    while len(stash) > need:
        heappush(heap, stash.pop())
    return stash


def _stash_runner_ups(stash: list[QueueEntry], key: int) -> list[tuple[int, int]]:
    """The runner-up pairs (key, count) after ``key``: the rest of the stash, each pair once."""
    runner_ups: list[tuple[int, int]] = []
    seen = {key}
    for e in stash:
        if e[1] not in seen and e[0] < 0:
            seen.add(e[1])
            runner_ups.append((e[1], -e[0]))
    return runner_ups


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


def _first_seen_choice(
    heap: list, pair_counts: dict[int, int], top: QueueEntry, words: list[list[int]], shift: int, mask: int,
    top_k: int,
) -> tuple[int, list[int], list[tuple[int, int]]]:
    """``tie_break="first"``: the chosen pair's key, the words holding it, and ``top_k`` runner-ups."""
    key, positions, runner_ups = _first_seen(heap, pair_counts, top, words, shift, mask)
    runner_ups = runner_ups[:top_k]
    if top_k > len(runner_ups):
        exclude = {key, *(k for k, _ in runner_ups)}
        runner_ups += _peek_runner_ups(heap, pair_counts, exclude, top_k - len(runner_ups))
    return key, positions, runner_ups


def _peek_runner_ups(heap: list, pair_counts: dict[int, int], exclude: set[int], k: int) -> list[tuple[int, int]]:
    """The ``k`` best pairs (key, count) not in ``exclude``; the queue keeps its entries
    (stale ones met on the way are corrected, as the main loop would do)."""
    popped = []
    out: list[tuple[int, int]] = []
    seen = set(exclude)
    heappop, heappush = heapq.heappop, heapq.heappush
    while heap and len(out) < k:
        e = heappop(heap)
        cur = pair_counts[e[1]]
        if -e[0] != cur:
            heappush(heap, (-cur, e[1], e[2], e[3]))
            continue
        popped.append(e)
        if cur < 1:
            break
        if e[1] not in seen:
            seen.add(e[1])
            out.append((e[1], cur))
    for e in popped:
        heappush(heap, e)
    return out


def _first_seen(
    heap: list, pair_counts: dict[int, int], top: QueueEntry, words: list[list[int]], shift: int, mask: int
) -> tuple[int, list[int], list[tuple[int, int]]]:
    """Among the pairs tied with ``top``, the one whose first occurrence comes first in the corpus.

    Returns its key, every word holding it, and the other tied pairs (key, count) in order.
    """
    cnt = -top[0]
    entries: dict[int, list[tuple]] = {top[1]: [top]}
    heappop, heappush = heapq.heappop, heapq.heappush
    while heap and -heap[0][0] == cnt:
        e = heappop(heap)
        cur = pair_counts[e[1]]
        if cur != cnt:
            heappush(heap, (-cur, e[1], e[2], e[3]))
        else:
            entries.setdefault(e[1], []).append(e)

    def first(key: int) -> tuple[int, int]:
        a, b = key >> shift, key & mask
        for wi in sorted({wi for e in entries[key] for wi in e[3]}):
            w = words[wi]
            for i in range(len(w) - 1):
                if w[i] == a and w[i + 1] == b:
                    return (wi, i)
        return (len(words), 0)

    order = sorted(entries, key=first)
    chosen = order[0]
    for key in order[1:]:
        for e in entries[key]:
            heappush(heap, e)
    positions = sorted({wi for e in entries[chosen] for wi in e[3]})
    return chosen, positions, [(k, cnt) for k in order[1:]]
