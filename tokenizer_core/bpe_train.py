"""BPE training: word counts in, merges + vocabulary + a step trace out.

The trainer follows Hugging Face ``tokenizers``' ``BpeTrainer`` so that, given the
same pre-tokenized word counts and settings, it learns the same merges:

* ids go to the special tokens first, then to the alphabet sorted by code point,
  then to merge results in creation order (a merge whose string already exists
  reuses that id and the vocabulary does not grow);
* at each step the pair with the highest count is merged; **among equal counts the
  pair with the smallest ``(id_left, id_right)`` wins** (the tie is recorded in the trace);
* pair statistics are incremental: an index from each pair to the words holding it
  and a lazily corrected priority queue, so a merge only touches the words that
  contain the pair, never the whole corpus;
* within a word, occurrences are merged left to right without overlap (``aaa`` with
  ``a a`` gives ``aa a``) and the pair counts are adjusted exactly as ``tokenizers``
  does (including its bookkeeping for pairs that reappear after being merged).

Two choices differ because ``tokenizers`` leaves them to hash-map order: tokens
decorated with ``continuing_subword_prefix``/``end_of_word_suffix`` (e.g. ``w</w>``)
get their ids after the alphabet in sorted order, and ``limit_alphabet`` drops the
rarest characters first, the larger code point first among equal counts.

For teaching, ``tie_break="first"`` instead picks, among equal counts, the pair seen
first in the corpus (words in the order given, left to right), which is what the
Python of Sennrich et al.'s Algorithm 1 does; with ``suffix_as_symbol=True`` the
end-of-word marker is a symbol of its own (``l o w </w>``) as in that paper, rather
than glued to the last character (``l o w</w>``) as in subword-nmt and ``tokenizers``.

>>> r = train_bpe_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3},
...                      num_merges=4, end_of_word_suffix="</w>", special_tokens=())
>>> r.merges
[('e', 's'), ('es', 't</w>'), ('l', 'o'), ('e', 'w')]
>>> r.trace[3].tie_break
'3 pairs occur 6 times; the smallest ids win: (1, 9) before (4, 1)'
>>> r = train_bpe_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=5,
...                      end_of_word_suffix="</w>", suffix_as_symbol=True, tie_break="first")
>>> r.merges
[('e', 's'), ('es', 't'), ('est', '</w>'), ('l', 'o'), ('lo', 'w')]
"""

from __future__ import annotations

import gc
import heapq
from bisect import insort
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import count as _count
from typing import TYPE_CHECKING, Any, Optional

from .bpe_trace import BpeTrace
from .bpe_words import count_gpt2_pieces, count_words, to_byte_symbols  # noqa: F401  (re-exported)
from .errors import TokenizerError
from .training import TrainOptions, register_trainer
from .types import ProgressCallback, no_progress

if TYPE_CHECKING:
    from .models.bpe import BPE
    from .pipeline import Tokenizer

#: ``vocab_size`` used when neither ``vocab_size`` nor ``num_merges`` is given (as ``tokenizers``).
DEFAULT_VOCAB_SIZE = 30_000


@dataclass
class BpeTrainResult:
    """What :func:`train_bpe_counts` learned.

    ``vocab`` maps token -> id; ``merges`` lists the merged pairs in rank order;
    ``model`` is a ready :class:`~tokenizer_core.models.bpe.BPE`; ``trace`` has one
    record per merge.
    """

    vocab: dict[str, int]
    merges: list[tuple[str, str]]
    model: "BPE"
    trace: BpeTrace
    special_tokens: tuple[str, ...]

    @property
    def stop_reason(self) -> str:
        return self.trace.stop_reason


# ----------------------------------------------------------------------------- trainer


def _check_counts(word_counts: Mapping[str, int]) -> None:
    if not isinstance(word_counts, Mapping):
        raise TokenizerError(f"word_counts must be a mapping from word to count, got {type(word_counts).__name__}")
    for w, c in word_counts.items():
        if not isinstance(w, str):
            raise TokenizerError(f"words must be strings, got {w!r}")
        if not isinstance(c, int) or isinstance(c, bool) or c < 0:
            raise TokenizerError(f"word counts must be whole numbers >= 0, got {c!r} for {w!r}")


def _alphabet(
    word_counts: Mapping[str, int], initial_alphabet: Iterable[str], limit_alphabet: Optional[int]
) -> list[str]:
    """Characters kept as initial symbols, sorted by code point."""
    initial = list(initial_alphabet)
    for ch in initial:
        if not isinstance(ch, str) or len(ch) != 1:
            raise TokenizerError(f"initial_alphabet must hold single characters, got {ch!r}")
    if limit_alphabet is None:
        return sorted(set("".join(word_counts)).union(initial))
    freq: dict[str, float] = {}
    for word, c in word_counts.items():
        for ch in word:
            freq[ch] = freq.get(ch, 0) + c
    for ch in initial:
        freq[ch] = float("inf")  # always kept unless the limit is below the initial alphabet's size
    kept = list(freq)
    if len(kept) > limit_alphabet:
        # Rarest first; among equal counts the larger code point goes first (deterministic).
        kept.sort(key=lambda ch: (freq[ch], -ord(ch)))
        kept = kept[len(kept) - limit_alphabet :]
    return sorted(kept)


def _symbolize(
    word_counts: Mapping[str, int],
    tok_to_id: dict[str, int],
    add: Any,
    *,
    prefix: Optional[str],
    suffix: Optional[str],
    suffix_as_symbol: bool,
) -> tuple[list[list[int]], list[int]]:
    """Words as lists of symbol ids. Characters outside the alphabet are skipped (as tokenizers);
    decorated symbols ("##a", "w</w>") and a separate suffix get ids after the alphabet, sorted."""
    counts = list(word_counts.values())
    glue = suffix if not suffix_as_symbol else None
    if prefix is None and glue is None and not suffix_as_symbol:
        get = tok_to_id.get
        if all(ch in tok_to_id for ch in set("".join(word_counts))):
            getitem = tok_to_id.__getitem__
            return [list(map(getitem, w)) for w in word_counts], counts
        return [[i for i in map(get, w) if i is not None] for w in word_counts], counts
    raw: list[list[str]] = []
    extra: set[str] = {suffix} if suffix_as_symbol and suffix else set()
    for word in word_counts:
        last = len(word) - 1
        syms = []
        for k, ch in enumerate(word):
            if ch not in tok_to_id:
                continue
            sym = ch
            if k > 0 and prefix is not None:
                sym = prefix + sym
            if k == last and glue is not None:
                sym = sym + glue
            if sym not in tok_to_id:
                extra.add(sym)
            syms.append(sym)
        if suffix_as_symbol and word:
            syms.append(suffix)  # type: ignore[arg-type]
        raw.append(syms)
    for sym in sorted(extra):
        add(sym)
    return [[tok_to_id[sym] for sym in syms] for syms in raw], counts


def _count_pairs(words: list[list[int]], counts: list[int], shift: int) -> tuple[dict[int, int], dict[int, list[int]]]:
    """Pair counts and, per pair, the words holding it (each word once, in order)."""
    pair_counts: dict[int, int] = {}
    where: dict[int, list[int]] = {}
    get = pair_counts.get
    for wi, w in enumerate(words):
        if len(w) < 2:
            continue
        c = counts[wi]
        x = w[0]
        for y in w[1:]:
            key = (x << shift) | y
            x = y
            pair_counts[key] = get(key, 0) + c
            lst = where.get(key)
            if lst is None:
                where[key] = [wi]
            elif lst[-1] != wi:
                lst.append(wi)
    return pair_counts, where


def train_bpe_counts(
    word_counts: Mapping[str, int],
    *,
    vocab_size: Optional[int] = None,
    num_merges: Optional[int] = None,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = (),
    unk_token: Optional[str] = None,
    initial_alphabet: Iterable[str] = (),
    limit_alphabet: Optional[int] = None,
    continuing_subword_prefix: Optional[str] = None,
    end_of_word_suffix: Optional[str] = None,
    suffix_as_symbol: bool = False,
    tie_break: str = "ids",
    top_k: int = 10,
    keep_words: int = 1000,
    progress: ProgressCallback = no_progress,
) -> BpeTrainResult:
    """Learn BPE merges from ``{word: count}`` (words already pre-tokenized; byte-mapped for byte-level).

    Training stops at ``vocab_size`` tokens (special tokens included) or after
    ``num_merges`` merges, whichever comes first, or earlier when no pair is left or the
    best pair occurs fewer than ``min_frequency`` times; ``trace.stop_reason`` says which.
    ``top_k`` runner-up pairs are recorded per step (0 to skip). ``tie_break`` is
    ``"ids"`` (as ``tokenizers``) or ``"first"`` (first seen in the corpus; meant for small
    teaching corpora, as it searches the words of tied pairs).

    >>> r = train_bpe_counts({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
    ...                      vocab_size=10, special_tokens=())
    >>> r.merges, len(r.vocab)
    ([('u', 'g'), ('u', 'n'), ('h', 'ug')], 10)
    """
    with _gc_paused():
        return _train_counts(
            word_counts, vocab_size=vocab_size, num_merges=num_merges, min_frequency=min_frequency,
            special_tokens=special_tokens, unk_token=unk_token, initial_alphabet=initial_alphabet,
            limit_alphabet=limit_alphabet, continuing_subword_prefix=continuing_subword_prefix,
            end_of_word_suffix=end_of_word_suffix, suffix_as_symbol=suffix_as_symbol, tie_break=tie_break,
            top_k=top_k, keep_words=keep_words, progress=progress,
        )


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: training builds millions of small acyclic
    containers, and repeated full collections over them cost about a third of the time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _train_counts(
    word_counts: Mapping[str, int],
    *,
    vocab_size: Optional[int],
    num_merges: Optional[int],
    min_frequency: int,
    special_tokens: Sequence[str],
    unk_token: Optional[str],
    initial_alphabet: Iterable[str],
    limit_alphabet: Optional[int],
    continuing_subword_prefix: Optional[str],
    end_of_word_suffix: Optional[str],
    suffix_as_symbol: bool,
    tie_break: str,
    top_k: int,
    keep_words: int,
    progress: ProgressCallback,
) -> BpeTrainResult:
    _check_counts(word_counts)
    if vocab_size is None and num_merges is None:
        vocab_size = DEFAULT_VOCAB_SIZE
    if vocab_size is not None and (not isinstance(vocab_size, int) or vocab_size <= 0):
        raise TokenizerError(f"vocab_size must be a positive whole number, got {vocab_size!r}")
    if num_merges is not None and (not isinstance(num_merges, int) or num_merges < 0):
        raise TokenizerError(f"num_merges must be a whole number >= 0, got {num_merges!r}")
    if limit_alphabet is not None and limit_alphabet < 0:
        raise TokenizerError(f"limit_alphabet must be >= 0, got {limit_alphabet}")
    if top_k < 0:
        raise TokenizerError(f"top_k must be >= 0, got {top_k}")
    if tie_break not in ("ids", "first"):
        raise TokenizerError(f"tie_break must be 'ids' or 'first', got {tie_break!r}")
    if suffix_as_symbol and not end_of_word_suffix:
        raise TokenizerError("suffix_as_symbol needs an end_of_word_suffix such as '</w>'")
    if continuing_subword_prefix == "" or end_of_word_suffix == "":
        raise TokenizerError("continuing_subword_prefix and end_of_word_suffix must be non-empty when given")

    # 1. ids: special tokens, then the alphabet sorted by code point.
    id_to_tok: list[str] = []
    tok_to_id: dict[str, int] = {}

    def add(tok: str) -> int:
        tid = tok_to_id.get(tok)
        if tid is None:
            tid = tok_to_id[tok] = len(id_to_tok)
            id_to_tok.append(tok)
        return tid

    for tok in special_tokens:
        add(tok)
    alphabet = _alphabet(word_counts, initial_alphabet, limit_alphabet)
    for ch in alphabet:
        add(ch)

    # 2. words as id lists, then pair counts and the index pair -> words. A pair (a, b) is the
    # int a << shift | b, so the queue's order on keys is the order on (a, b).
    prefix, suffix = continuing_subword_prefix, end_of_word_suffix
    words, counts = _symbolize(word_counts, tok_to_id, add, prefix=prefix, suffix=suffix,
                               suffix_as_symbol=suffix_as_symbol)
    upper = len(id_to_tok) + (num_merges if num_merges is not None else (vocab_size or 0)) + 1
    shift = max(upper.bit_length(), 16)
    mask = (1 << shift) - 1
    initial_tokens = sum(map(len, words)) if all(c == 1 for c in counts) else sum(
        c * len(w) for w, c in zip(words, counts)
    )
    pair_counts, where = _count_pairs(words, counts, shift)
    seq = _count()
    # Queue entries: (-count, pair key, tie-free sequence number, words to visit).
    heap = [(-pair_counts[key], key, next(seq), lst) for key, lst in where.items() if pair_counts[key] > 0]
    heapq.heapify(heap)
    del where

    # 3. merges.
    total = (vocab_size - len(id_to_tok)) if vocab_size is not None else num_merges
    if num_merges is not None and total is not None:
        total = min(total, num_merges)
    total = max(total or 0, 0)
    report_every = max(1, total // 200)
    progress(0, total, "merging pairs")
    merges: list[tuple[str, str]] = []
    steps: list[tuple] = []
    tokens_now = initial_tokens
    stop_reason = ""
    heappop, heappush = heapq.heappop, heapq.heappush
    first_ties = tie_break == "first"
    # The best few valid entries are kept out of the heap, sorted, in `stash`: the next
    # step's choice and its runner-ups come from it, so a step costs a few heap operations
    # (the entries its merge created or made stale), not 2 * top_k.
    stash: list[tuple] = []
    need = top_k + 1
    while True:
        if vocab_size is not None and len(tok_to_id) >= vocab_size:
            stop_reason = f"reached vocab_size {vocab_size}"
            if len(tok_to_id) > vocab_size or not merges:
                stop_reason = (
                    f"vocab_size {vocab_size} leaves no room for merges: the special tokens and the "
                    f"alphabet already make {len(tok_to_id)} tokens; raise vocab_size or set limit_alphabet"
                )
            break
        if num_merges is not None and len(merges) >= num_merges:
            stop_reason = f"reached num_merges {num_merges}"
            break
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
        if not stash or -stash[0][0] < 1:
            stop_reason = "no pairs left to merge: every word is a single token"
            break
        top = stash[0]
        cnt = -top[0]
        if min_frequency > cnt:
            stop_reason = f"the most frequent pair occurs {cnt} times, fewer than min_frequency {min_frequency}"
            break
        del stash[0]
        key = top[1]
        positions = top[3]
        runner_ups: list[tuple[int, int]] = []
        if first_ties:
            for e in stash:
                heappush(heap, e)
            stash = []
            key, positions, runner_ups = _first_seen(heap, pair_counts, top, words, shift, mask)
            runner_ups = runner_ups[:top_k]
            if top_k > len(runner_ups):
                exclude = {key, *(k for k, _ in runner_ups)}
                runner_ups += _peek_runner_ups(heap, pair_counts, exclude, top_k - len(runner_ups))
        elif top_k:
            seen = {key}
            for e in stash:
                if e[1] not in seen and e[0] < 0:
                    seen.add(e[1])
                    runner_ups.append((e[1], -e[0]))
        a, b = key >> shift, key & mask

        left, right = id_to_tok[a], id_to_tok[b]
        if prefix is not None and right.startswith(prefix):
            right = right[len(prefix):]
        new_tok = left + right
        token_is_new = new_tok not in tok_to_id
        new_id = add(new_tok)
        merges.append((id_to_tok[a], id_to_tok[b]))

        tokens_now -= _merge_everywhere(words, counts, positions, a, b, new_id, shift, pair_counts, heap, seq)
        tied = 0
        for _, c in runner_ups:
            if c != cnt:
                break
            tied += 1
        steps.append((a, b, cnt, new_id, token_is_new, tuple(runner_ups), tied, tokens_now))
        if len(merges) % report_every == 0:
            progress(len(merges), total, "merging pairs")
    progress(len(merges), total, "done")

    from .models.bpe import BPE

    vocab = dict(tok_to_id)
    unk = unk_token if unk_token is not None and unk_token in vocab else None
    model = BPE(vocab, merges, unk_token=unk, continuing_subword_prefix=prefix, end_of_word_suffix=suffix,
                suffix_as_symbol=suffix_as_symbol)
    top_words = heapq.nsmallest(keep_words, word_counts.items(), key=lambda wc: (-wc[1], wc[0]))
    trace = BpeTrace(
        steps, id_to_tok, shift, initial_tokens=initial_tokens, alphabet=alphabet, stop_reason=stop_reason,
        word_counts=top_words, model=model, tie_break=tie_break, top_k=top_k,
    )
    model.training_trace = trace
    return BpeTrainResult(vocab, merges, model, trace, tuple(dict.fromkeys(special_tokens)))


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
    heap: list, pair_counts: dict[int, int], top: tuple, words: list[list[int]], shift: int, mask: int
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


def _merge_everywhere(
    words: list[list[int]],
    counts: list[int],
    positions: list[int],
    a: int,
    b: int,
    new_id: int,
    shift: int,
    pair_counts: dict[int, int],
    heap: list,
    seq: Iterator[int],
) -> int:
    """Merge ``(a, b)`` in the listed words; update pair counts and queue; return tokens saved.

    Within a word occurrences are merged left to right. For each one the pairs with the
    neighbours change: (prev, a) and (b, next) lose a count, (prev, new) and (new, next)
    gain one, and the words where a pair gained are queued under that pair.
    """
    # The neighbour bookkeeping below is written out four times (one/many occurrences x left/
    # right neighbour) on purpose: this is the innermost loop of training, and a helper would
    # add a Python function call to every pair update.
    gained: dict[int, list[int]] = {}
    gained_get = gained.get
    pc_get = pair_counts.get
    saved = 0
    b_left = b << shift
    new_left = new_id << shift
    for wi in positions:
        w = words[wi]
        na = w.count(a)
        if not na:
            continue
        c = counts[wi]
        n = len(w)
        if na == 1:
            # The common case: one occurrence, merged in place.
            i = w.index(a)
            if i + 1 == n or w[i + 1] != b:
                continue
            if i:
                p = w[i - 1]
                key = (p << shift) | a
                pair_counts[key] -= c
                key = (p << shift) | new_id
                pair_counts[key] = pc_get(key, 0) + c
                lst = gained_get(key)
                if lst is None:
                    gained[key] = [wi]
                elif lst[-1] != wi:
                    lst.append(wi)
            if i + 2 < n:
                q = w[i + 2]
                pair_counts[b_left | q] -= c
                key = new_left | q
                pair_counts[key] = pc_get(key, 0) + c
                lst = gained_get(key)
                if lst is None:
                    gained[key] = [wi]
                elif lst[-1] != wi:
                    lst.append(wi)
            w[i] = new_id
            del w[i + 1]
            saved += c
            continue
        out: list[int] = []
        i = j = 0
        while i < n - 1:
            if w[i] == a and w[i + 1] == b:
                out.extend(w[j:i])
                if out:
                    p = out[-1]
                    key = (p << shift) | a
                    pair_counts[key] -= c
                    key = (p << shift) | new_id
                    pair_counts[key] = pc_get(key, 0) + c
                    lst = gained_get(key)
                    if lst is None:
                        gained[key] = [wi]
                    elif lst[-1] != wi:
                        lst.append(wi)
                if i + 2 < n:
                    q = w[i + 2]
                    pair_counts[b_left | q] -= c
                    key = new_left | q
                    pair_counts[key] = pc_get(key, 0) + c
                    lst = gained_get(key)
                    if lst is None:
                        gained[key] = [wi]
                    elif lst[-1] != wi:
                        lst.append(wi)
                out.append(new_id)
                saved += c
                i += 2
                j = i
            else:
                i += 1
        if j:
            out.extend(w[j:])
            words[wi] = out
    push = heapq.heappush
    for key, lst in gained.items():
        cnt = pair_counts[key]
        if cnt > 0:
            push(heap, (-cnt, key, next(seq), lst))
    return saved


# --------------------------------------------------------------------- the registered trainer


def _components(options: TrainOptions) -> tuple[Any, Any, Any, bool]:
    """(normalizer, pre_tokenizer, decoder, byte_level) for the options."""
    from .decoders import BPESuffixDecoder, ByteLevelDecoder, MetaspaceDecoder, WordPieceDecoder
    from .normalizers import Lowercase
    from .pre_tokenizers import CL100K_PATTERN, ByteLevel, preset

    normalizer = Lowercase() if options.lowercase else None
    byte_level = options.byte_level or options.pre_tokenizer == "byte-level"
    if byte_level:
        name = options.pre_tokenizer
        if name in (None, "byte-level", "gpt2-regex"):
            pre = ByteLevel(add_prefix_space=False)
        elif name == "cl100k-regex":
            pre = ByteLevel(add_prefix_space=False, pattern=CL100K_PATTERN)
        else:
            raise TokenizerError(
                f"byte-level BPE splits text with a regex; use pre_tokenizer 'gpt2-regex' or 'cl100k-regex', not {name!r}"
            )
        return normalizer, pre, ByteLevelDecoder(), True
    pre = preset(options.pre_tokenizer or "whitespace")
    if options.end_of_word_suffix:
        decoder: Any = BPESuffixDecoder(suffix=options.end_of_word_suffix)
    elif options.continuing_subword_prefix:
        decoder = WordPieceDecoder(prefix=options.continuing_subword_prefix, cleanup=False)
    elif options.pre_tokenizer == "metaspace":
        decoder = MetaspaceDecoder()
    else:
        decoder = None  # tokens joined by spaces, as tokenizers does without a decoder
    return normalizer, pre, decoder, False


def _extra_option(options: TrainOptions, name: str, default: Any) -> Any:
    return options.extra.get(name, default) if options.extra else default


def train_bpe(
    lines: Iterable[str],
    *,
    options: TrainOptions,
    progress: ProgressCallback = no_progress,
    workers: Optional[int] = None,
) -> tuple["Tokenizer", BpeTrainResult]:
    """Train a BPE tokenizer on text lines; returns the tokenizer and the full result (trace included).

    ``options.byte_level`` selects GPT-2 style (ByteLevel pre-tokenizer, all 256 byte
    symbols in the alphabet, no unknown token); otherwise characters seen in the
    corpus form the alphabet, with ``options.end_of_word_suffix`` (e.g. ``"</w>"``)
    and ``options.pre_tokenizer`` (default ``"whitespace"``). ``options.extra`` may set
    ``tie_break`` ("ids" or "first"), ``suffix_as_symbol`` (bool) and ``keep_words`` (how
    many of the most frequent words the trace keeps, default 1000).

    >>> tok, result = train_bpe(["low lower newest widest\\n"], options=TrainOptions(num_merges=2))
    >>> result.merges
    [('e', 's'), ('l', 'o')]
    >>> tok.encode("lowest").tokens
    ['lo', 'w', 'es', 't']
    """
    from .pipeline import Tokenizer
    from .pre_tokenizers import byte_level_alphabet

    normalizer, pre, decoder, byte_level = _components(options)
    progress(0, 0, "counting words")
    counts = count_words(lines, normalizer=normalizer, pre_tokenizer=pre, workers=workers, progress=progress)
    if not counts:
        raise TokenizerError("the training text has no words; give a corpus with some text in it")
    vocab_size = options.vocab_size
    if vocab_size is None and options.num_merges is None:
        vocab_size = DEFAULT_VOCAB_SIZE
    result = train_bpe_counts(
        counts,
        vocab_size=vocab_size,
        num_merges=options.num_merges,
        min_frequency=options.min_frequency,
        special_tokens=options.special_tokens,
        unk_token=None if byte_level else options.unk_token,
        initial_alphabet=byte_level_alphabet() if byte_level else (),
        limit_alphabet=options.limit_alphabet,
        continuing_subword_prefix=options.continuing_subword_prefix,
        end_of_word_suffix=options.end_of_word_suffix,
        suffix_as_symbol=bool(_extra_option(options, "suffix_as_symbol", False)),
        tie_break=_extra_option(options, "tie_break", "ids"),
        top_k=options.top_k,
        keep_words=int(_extra_option(options, "keep_words", 1000)),
        progress=progress,
    )
    tok = Tokenizer(
        result.model,
        normalizer=normalizer,
        pre_tokenizer=pre,
        decoder=decoder,
        special_tokens=result.special_tokens,
        metadata={
            "trainer": "bpe",
            "byte_level": byte_level,
            "num_merges": len(result.merges),
            "stop_reason": result.stop_reason,
        },
    )
    return tok, result


@register_trainer("bpe")
def train(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress) -> "Tokenizer":
    """The ``bpe`` trainer for the CLI and the app; the trace is at ``tokenizer.model.training_trace``."""
    return train_bpe(lines, options=options, progress=progress)[0]
