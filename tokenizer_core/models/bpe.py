"""Byte-pair encoding (BPE): the model and its encoder.

A word (one pre-tokenized piece) starts as one symbol per character (for
byte-level models, per byte symbol such as ``Ġ``); then, as GPT-2, ``tokenizers``
and ``tiktoken`` do, the adjacent pair with the lowest merge rank is merged, the
leftmost one on equal ranks, until no adjacent pair has a rank. Two rank rules:

* ``merge_ranks="merges"``: the rank of a pair is its position in ``merges``
  (GPT-2 files, ``tokenizers``, our trainer);
* ``merge_ranks="tokens"``: the rank of a pair is the id of the token it spells, and
  any two tokens whose concatenation is a token may merge (``tiktoken``'s rule).

Results are cached per piece; long pieces (``"a" * 100_000``) use a heap over a
linked list, so encoding stays ``O(n log n)``. BPE-dropout (Provilkov et al.)
skips each candidate merge with probability ``p``; skipped merges come back after
the next merge that happens, and ``p = 0`` is the deterministic result.

>>> m = BPE({"a": 0, "b": 1, "c": 2, "d": 3, "aa": 4, "ab": 5, "aaab": 6},
...         [("a", "a"), ("a", "b"), ("aa", "ab")])
>>> [t.text for t in m.tokenize("aaabdaaabac")]
['aaab', 'd', 'aaab', 'a', 'c']
>>> [t.offsets for t in m.tokenize("aaabd")]
[(0, 4), (4, 5)]
>>> m.segment("aaabdaaabac", max_rank=1)
['aa', 'a', 'b', 'd', 'aa', 'a', 'b', 'a', 'c']
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any, Callable, Optional

import regex

from ..errors import FormatError, TokenizerError
from ..registry import register
from ..types import Sampling, Token
from .base import VocabLookup

if TYPE_CHECKING:
    from ..bpe_trace import BpeTrace

_INF = float("inf")
#: Pieces with more symbols than this use the heap encoder (linear-ish) instead of the scan.
_LONG_PIECE = 256
_CACHE_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class MergeStep:
    """One merge applied while encoding a word: the pair at symbol ``position`` became ``token``."""

    order: int
    rank: int
    position: int
    left: str
    right: str
    token: str
    symbols_after: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WordTrace:
    """How one word was encoded: its initial symbols, every merge in order, the final tokens."""

    word: str
    initial: tuple[str, ...]
    steps: tuple[MergeStep, ...]
    tokens: tuple[Token, ...]


@dataclass(frozen=True, slots=True)
class MergeTree:
    """How a token is built from alphabet symbols: a binary tree of merges (leaves have no rank).

    >>> m = BPE({"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4}, [("l", "o"), ("lo", "w")])
    >>> t = m.merge_tree("low")
    >>> t.rank, t.left.token, t.right.token, t.leaves()
    (1, 'lo', 'w', ['l', 'o', 'w'])
    """

    token: str
    id: int
    rank: Optional[int] = None
    left: Optional["MergeTree"] = None
    right: Optional["MergeTree"] = None

    @property
    def is_leaf(self) -> bool:
        return self.left is None

    def leaves(self) -> list[str]:
        if self.left is None or self.right is None:
            return [self.token]
        return self.left.leaves() + self.right.leaves()

    def depth(self) -> int:
        if self.left is None or self.right is None:
            return 0
        return 1 + max(self.left.depth(), self.right.depth())

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"token": self.token, "id": self.id}
        if self.left is not None and self.right is not None:
            d.update(rank=self.rank, left=self.left.to_dict(), right=self.right.to_dict())
        return d


def _check_vocab(vocab: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(vocab, Mapping):
        raise TokenizerError(f"a BPE vocabulary must map token strings to ids, got {type(vocab).__name__}")
    out: dict[str, int] = {}
    seen: dict[int, str] = {}
    for tok, tid in vocab.items():
        if not isinstance(tok, str) or not tok:
            raise TokenizerError(f"vocabulary tokens must be non-empty strings, got {tok!r}")
        if not isinstance(tid, int) or isinstance(tid, bool) or tid < 0:
            raise TokenizerError(f"token ids must be whole numbers >= 0, got {tid!r} for {tok!r}")
        if tid in seen:
            raise TokenizerError(f"tokens {seen[tid]!r} and {tok!r} share id {tid}; ids must be unique")
        seen[tid] = tok
        out[tok] = tid
    return out


@register("model", "BPE")
class BPE(VocabLookup):
    """A BPE model: vocabulary, ranked merges and the options of ``tokenizers``' BPE model.

    ``unk_token`` replaces characters missing from the vocabulary (without one they are
    dropped, as ``tokenizers`` does); ``fuse_unk`` joins runs of unknowns; ``byte_fallback``
    spells unknown characters as ``<0xNN>`` byte tokens when those exist;
    ``ignore_merges`` returns a piece found whole in the vocabulary as one token (tiktoken
    does this). ``continuing_subword_prefix``/``end_of_word_suffix`` decorate the first
    symbols of a word as in training (``##a``, ``w</w>``); with ``suffix_as_symbol`` the
    suffix is a symbol of its own after the last character (``l o w </w>``, Sennrich et al.'s
    Algorithm 1), which ``tokenizers`` cannot express.
    """

    type_name = "BPE"

    def __init__(
        self,
        vocab: Mapping[str, int],
        merges: Sequence[tuple[str, str]] = (),
        *,
        unk_token: Optional[str] = None,
        continuing_subword_prefix: Optional[str] = None,
        end_of_word_suffix: Optional[str] = None,
        fuse_unk: bool = False,
        byte_fallback: bool = False,
        ignore_merges: bool = False,
        merge_ranks: str = "merges",
        suffix_as_symbol: bool = False,
    ) -> None:
        self._vocab = _check_vocab(vocab)
        self._inv = {i: t for t, i in self._vocab.items()}
        if merge_ranks not in ("merges", "tokens"):
            raise TokenizerError(f"merge_ranks must be 'merges' or 'tokens', got {merge_ranks!r}")
        if unk_token is not None and unk_token not in self._vocab:
            raise TokenizerError(f"unk_token {unk_token!r} is not in the vocabulary; add it or pass unk_token=None")
        if merge_ranks == "tokens" and (continuing_subword_prefix or end_of_word_suffix or merges):
            raise TokenizerError("merge_ranks='tokens' derives merges from the vocabulary; give no merges, prefix or suffix")
        self.unk_token = unk_token
        self.continuing_subword_prefix = continuing_subword_prefix or None
        self.end_of_word_suffix = end_of_word_suffix or None
        self.fuse_unk = bool(fuse_unk)
        self.byte_fallback = bool(byte_fallback)
        self.ignore_merges = bool(ignore_merges)
        self.merge_ranks = merge_ranks
        if suffix_as_symbol and self.end_of_word_suffix is None:
            raise TokenizerError("suffix_as_symbol needs an end_of_word_suffix such as '</w>'")
        self.suffix_as_symbol = bool(suffix_as_symbol)
        self.merges: list[tuple[str, str]] = []
        # (left, right) -> (rank, merged token). A pair listed twice keeps its last rank, as tokenizers.
        self._merge: dict[tuple[str, str], tuple[int, str]] = {}
        # merged token -> (rank, left, right) of the first merge that made it (for merge trees).
        self._producer: dict[str, tuple[int, str, str]] = {}
        prefix = self.continuing_subword_prefix
        for rank, pair in enumerate(merges):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
                raise TokenizerError(f"merge {rank} must be a pair of token strings, got {pair!r}")
            left, right = pair
            for part in (left, right):
                if part not in self._vocab:
                    raise TokenizerError(f"merge {rank} ({left!r}, {right!r}) uses {part!r}, which is not in the vocabulary")
            tail = right[len(prefix):] if prefix is not None and right.startswith(prefix) else right
            new = left + tail
            if new not in self._vocab:
                raise TokenizerError(f"merge {rank} ({left!r}, {right!r}) makes {new!r}, which is not in the vocabulary")
            self.merges.append((left, right))
            self._merge[(left, right)] = (rank, new)
            self._producer.setdefault(new, (rank, left, right))
        self._cache: dict[str, tuple[Token, ...]] = {}
        self._byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
        #: The training trace when this model was just trained (not saved with the model).
        self.training_trace: Optional["BpeTrace"] = None

    # ------------------------------------------------------------------ vocabulary

    @property
    def num_merges(self) -> int:
        """Number of merge ranks (for ``merge_ranks='tokens'``: the number of multi-symbol tokens)."""
        if self.merge_ranks == "tokens":
            return sum(1 for t in self._vocab if len(t) > 1)
        return len(self.merges)

    # --------------------------------------------------------------- pair ranking
    def _ranker(self, max_rank: Optional[int]) -> Callable[[tuple[str, str]], Optional[tuple[int, str]]]:
        """``rank((left, right)) -> (rank, merged) | None`` under the model's rule, limited to ranks < max_rank.

        For the common case (merge list, no limit) this is the merge table's own ``get``,
        which keeps the per-pair cost of the inner loops at one C call.
        """
        if self.merge_ranks == "tokens":
            vocab_get = self._vocab.get

            def by_token(pair: tuple[str, str]) -> Optional[tuple[int, str]]:
                t = pair[0] + pair[1]
                r = vocab_get(t)
                if r is None or (max_rank is not None and r >= max_rank):
                    return None
                return (r, t)

            return by_token
        get = self._merge.get
        if max_rank is None:
            return get

        def limited(pair: tuple[str, str]) -> Optional[tuple[int, str]]:
            m = get(pair)
            return m if m is not None and m[0] < max_rank else None

        return limited

    # ------------------------------------------------------------- initial symbols
    def _initial(self, piece: str) -> tuple[list[str], list[int], list[int]]:
        """Symbols of a piece before any merge, with each symbol's character span."""
        vocab = self._vocab
        prefix, suffix = self.continuing_subword_prefix, self.end_of_word_suffix
        if self.suffix_as_symbol:
            suffix = None
        syms: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        last = len(piece) - 1
        prev_unk = False
        for k, ch in enumerate(piece):
            s = ch
            if prefix is not None and k > 0:
                s = prefix + s
            if suffix is not None and k == last:
                s = s + suffix
            if s in vocab:
                syms.append(s)
                starts.append(k)
                ends.append(k + 1)
                prev_unk = False
                continue
            if self.byte_fallback:
                byte_toks = [self._byte_tokens[b] for b in ch.encode("utf-8")]
                if all(bt in vocab for bt in byte_toks):
                    syms.extend(byte_toks)
                    starts.extend([k] * len(byte_toks))
                    ends.extend([k + 1] * len(byte_toks))
                    prev_unk = False
                    continue
            if self.unk_token is None:
                continue  # no unknown token: the character is dropped, as tokenizers does
            if self.fuse_unk and prev_unk:
                ends[-1] = k + 1
                continue
            syms.append(self.unk_token)
            starts.append(k)
            ends.append(k + 1)
            prev_unk = True
        if self.suffix_as_symbol and piece and self.end_of_word_suffix in vocab:
            syms.append(self.end_of_word_suffix)  # type: ignore[arg-type]
            starts.append(len(piece))
            ends.append(len(piece))
        return syms, starts, ends

    # ------------------------------------------------------------------- merging
    def _merge_scan(self, syms: list[str], starts: list[int], ends: list[int],
                    rank: Callable[[tuple[str, str]], Optional[tuple[int, str]]]) -> None:
        """Merge in place by repeated minimum search (fast for short pieces)."""
        ranks: list[float] = []
        news: list[Optional[str]] = []
        for i in range(len(syms) - 1):
            m = rank((syms[i], syms[i + 1]))
            if m is None:
                ranks.append(_INF)
                news.append(None)
            else:
                ranks.append(m[0])
                news.append(m[1])
        while ranks:
            best = min(ranks)
            if best == _INF:
                break
            i = ranks.index(best)  # leftmost among equal ranks
            new = news[i]
            syms[i] = new  # type: ignore[assignment]
            del syms[i + 1]
            ends[i] = ends[i + 1]
            del starts[i + 1], ends[i + 1], ranks[i], news[i]
            if i > 0:
                m = rank((syms[i - 1], new))  # type: ignore[arg-type]
                ranks[i - 1], news[i - 1] = (_INF, None) if m is None else m
            if i < len(ranks):
                m = rank((new, syms[i + 1]))  # type: ignore[arg-type]
                ranks[i], news[i] = (_INF, None) if m is None else m

    def _merge_heap(
        self,
        syms: list[str],
        starts: list[int],
        ends: list[int],
        rank: Callable[[tuple[str, str]], Optional[tuple[int, str]]],
        *,
        dropout: float = 0.0,
        rng: Optional[random.Random] = None,
        steps: Optional[list[MergeStep]] = None,
    ) -> tuple[list[str], list[int], list[int]]:
        """Merge with a heap over a linked list: O(n log n) for any piece; supports dropout and tracing."""
        n = len(syms)
        if n < 2:
            return syms, starts, ends
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        prv = list(range(-1, n - 1))
        heap = []
        for i in range(n - 1):
            m = rank((syms[i], syms[i + 1]))
            if m is not None:
                heap.append((m[0], i, syms[i], syms[i + 1], m[1]))
        heapq.heapify(heap)
        heappop, heappush = heapq.heappop, heapq.heappush
        skipped: list[tuple] = []
        draw = rng.random if rng is not None else random.random
        while heap:
            e = heappop(heap)
            if dropout and draw() < dropout:
                skipped.append(e)
                continue
            if skipped:  # dropped merges become candidates again after a merge is tried
                for s in skipped:
                    heappush(heap, s)
                skipped.clear()
            r, i, left, right, new = e
            # A symbol only ever grows, so equal strings mean the entry is still current.
            if syms[i] != left:
                continue
            j = nxt[i]
            if j < 0 or syms[j] != right:
                continue
            syms[i] = new
            syms[j] = None  # type: ignore[call-overload]
            ends[i] = ends[j]
            k = nxt[j]
            nxt[i] = k
            if k >= 0:
                prv[k] = i
            p = prv[i]
            if p >= 0:
                m = rank((syms[p], new))
                if m is not None:
                    heappush(heap, (m[0], p, syms[p], new, m[1]))
            if k >= 0:
                m = rank((new, syms[k]))
                if m is not None:
                    heappush(heap, (m[0], i, new, syms[k], m[1]))
            if steps is not None:
                live = tuple(s for s in syms if s is not None)
                position = sum(1 for s in syms[:i] if s is not None)
                steps.append(MergeStep(len(steps) + 1, r, position, left, right, new, live))
        keep = [i for i, s in enumerate(syms) if s is not None]
        return [syms[i] for i in keep], [starts[i] for i in keep], [ends[i] for i in keep]

    def _encode(
        self,
        piece: str,
        *,
        max_rank: Optional[int] = None,
        dropout: float = 0.0,
        rng: Optional[random.Random] = None,
        steps: Optional[list[MergeStep]] = None,
    ) -> list[Token]:
        vocab = self._vocab
        if self.ignore_merges and not dropout and max_rank is None and piece in vocab:
            return [Token(vocab[piece], piece, (0, len(piece)))]
        syms, starts, ends = self._initial(piece)
        rank = self._ranker(max_rank)
        if len(syms) > 1:
            if dropout or steps is not None or len(syms) > _LONG_PIECE:
                syms, starts, ends = self._merge_heap(syms, starts, ends, rank, dropout=dropout, rng=rng, steps=steps)
            else:
                self._merge_scan(syms, starts, ends, rank)
        return [Token(vocab[s], s, (a, b)) for s, a, b in zip(syms, starts, ends)]

    # ------------------------------------------------------------------ public API
    def tokenize(self, piece: str) -> list[Token]:
        """Tokens of one piece; offsets are character positions in the piece."""
        hit = self._cache.get(piece)
        if hit is not None:
            return list(hit)
        toks = self._encode(piece)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[piece] = tuple(toks)
        return toks

    def tokenize_ids(self, piece: str) -> list[int]:
        """Only the ids of :meth:`tokenize` (cached the same way)."""
        return [t.id for t in self.tokenize(piece)]

    def tokenize_sampled(self, piece: str, *, rng: random.Random, sampling: Sampling) -> list[Token]:
        """BPE-dropout: each candidate merge is skipped with probability ``sampling.dropout``.

        >>> m = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
        >>> [t.text for t in m.tokenize_sampled("ab", rng=random.Random(0), sampling=Sampling(dropout=1.0))]
        ['a', 'b']
        """
        if not sampling.dropout:
            return self.tokenize(piece)
        return self._encode(piece, dropout=sampling.dropout, rng=rng)

    def segment(self, word: str, *, max_rank: Optional[int] = None, dropout: float = 0.0,
                seed: Optional[int] = None) -> list[str]:
        """Token strings of ``word`` using only merges of rank < ``max_rank`` (all when None).

        This is the word's segmentation after ``max_rank`` training steps.
        """
        if max_rank is not None and (not isinstance(max_rank, int) or max_rank < 0):
            raise TokenizerError(f"max_rank must be a whole number >= 0, got {max_rank!r}")
        if not 0.0 <= dropout <= 1.0:
            raise TokenizerError(f"dropout must be between 0 and 1, got {dropout}")
        if max_rank is None and not dropout:
            return [t.text for t in self.tokenize(word)]
        rng = random.Random(seed) if dropout else None
        return [t.text for t in self._encode(word, max_rank=max_rank, dropout=dropout, rng=rng)]

    def encode_trace(self, word: str, *, max_rank: Optional[int] = None) -> WordTrace:
        """Every merge applied to ``word``, in the order the encoder applied them.

        >>> m = BPE({"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4}, [("l", "o"), ("lo", "w")])
        >>> [(s.order, s.rank, s.token, s.symbols_after) for s in m.encode_trace("low").steps]
        [(1, 0, 'lo', ('lo', 'w')), (2, 1, 'low', ('low',))]
        """
        steps: list[MergeStep] = []
        initial = tuple(self._initial(word)[0])
        if self.ignore_merges and max_rank is None and word in self._vocab:
            toks = self._encode(word)
        else:
            syms, starts, ends = self._initial(word)
            syms, starts, ends = self._merge_heap(syms, starts, ends, self._ranker(max_rank), steps=steps)
            toks = [Token(self._vocab[s], s, (a, b)) for s, a, b in zip(syms, starts, ends)]
        return WordTrace(word, initial, tuple(steps), tuple(toks))

    def merge_tree(self, token: str) -> MergeTree:
        """How ``token`` is built from alphabet symbols, merge by merge."""
        if token not in self._vocab:
            raise TokenizerError(f"{token!r} is not in the vocabulary")
        if self.merge_ranks == "merges":
            return self._tree_from_producers(token, 0)
        return self._tree_by_encoding(token)

    def _tree_from_producers(self, token: str, depth: int) -> MergeTree:
        made = self._producer.get(token)
        # Producers have lower ranks than what they make, so this ends; the depth guard only
        # stops a malformed merge list (e.g. a right part equal to the prefix) from looping.
        if made is None or depth > len(token) + 8:
            return MergeTree(token, self._vocab[token])
        rank, left, right = made
        return MergeTree(
            token, self._vocab[token], rank,
            self._tree_from_producers(left, depth + 1), self._tree_from_producers(right, depth + 1),
        )

    def _tree_by_encoding(self, token: str) -> MergeTree:
        """tiktoken-style vocabularies have no merge list: replay BPE on the token's own symbols."""
        syms = list(token)
        if len(syms) == 1:
            return MergeTree(token, self._vocab[token])
        trees: list[Optional[MergeTree]] = [MergeTree(s, self._vocab[s]) if s in self._vocab else None for s in syms]
        steps: list[MergeStep] = []
        self._merge_heap(list(syms), list(range(len(syms))), list(range(1, len(syms) + 1)),
                         self._ranker(None), steps=steps)
        for st in steps:
            left, right = trees[st.position], trees[st.position + 1]
            node = MergeTree(st.token, self._vocab[st.token], st.rank, left, right)
            trees[st.position: st.position + 2] = [node]
        if len(trees) == 1 and trees[0] is not None and trees[0].token == token:
            return trees[0]
        # Not reachable by BPE from its own bytes: show the split with the earliest ranks.
        best = min(
            ((max(self._vocab[token[:k]], self._vocab[token[k:]]), k) for k in range(1, len(token))
             if token[:k] in self._vocab and token[k:] in self._vocab),
            default=None,
        )
        if best is None:
            return MergeTree(token, self._vocab[token])
        k = best[1]
        return MergeTree(token, self._vocab[token], self._vocab[token],
                         self._tree_by_encoding(token[:k]), self._tree_by_encoding(token[k:]))

    # -------------------------------------------------------------- serialisation
    def _options(self) -> dict[str, Any]:
        return {
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "fuse_unk": self.fuse_unk,
            "byte_fallback": self.byte_fallback,
            "ignore_merges": self.ignore_merges,
        }

    def to_dict(self) -> dict[str, Any]:
        """Own format: vocabulary, merges (as pairs) and options."""
        return {
            "type": self.type_name,
            "vocab": dict(self._vocab),
            "merges": [list(p) for p in self.merges],
            "merge_ranks": self.merge_ranks,
            "suffix_as_symbol": self.suffix_as_symbol,
            **self._options(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BPE":
        if not isinstance(data.get("vocab"), dict):
            raise FormatError("a BPE model needs a \"vocab\" object mapping tokens to ids")
        merges = data.get("merges", [])
        if not isinstance(merges, list):
            raise FormatError("BPE \"merges\" must be a list of [left, right] pairs")
        pairs = []
        for m in merges:
            if isinstance(m, str):  # the older "left right" form
                parts = m.split(" ")
                if len(parts) != 2:
                    raise FormatError(f"malformed merge {m!r}: expected 'left right'")
                pairs.append((parts[0], parts[1]))
            else:
                if not isinstance(m, list) or len(m) != 2:
                    raise FormatError(f"malformed merge {m!r}: expected [left, right]")
                pairs.append((m[0], m[1]))
        try:
            return cls(
                data["vocab"], pairs,
                unk_token=data.get("unk_token"),
                continuing_subword_prefix=data.get("continuing_subword_prefix"),
                end_of_word_suffix=data.get("end_of_word_suffix"),
                fuse_unk=bool(data.get("fuse_unk", False)),
                byte_fallback=bool(data.get("byte_fallback", False)),
                ignore_merges=bool(data.get("ignore_merges", False)),
                merge_ranks=data.get("merge_ranks", "merges"),
                suffix_as_symbol=bool(data.get("suffix_as_symbol", False)),
            )
        except TokenizerError as err:
            raise FormatError(f"invalid BPE model: {err}") from err

    def hf_merges(self) -> list[tuple[str, str]]:
        """The merge list for ``tokenizers``; for ``merge_ranks='tokens'`` it is derived from the
        vocabulary: every split of a token into two tokens, ordered by (token rank, left rank, right rank)."""
        if self.merge_ranks == "merges":
            return list(self.merges)
        vocab = self._vocab
        found = []
        for tok, tid in vocab.items():
            for k in range(1, len(tok)):
                left, right = tok[:k], tok[k:]
                lid, rid = vocab.get(left), vocab.get(right)
                if lid is not None and rid is not None:
                    found.append((tid, lid, rid, left, right))
        found.sort()
        return [(f[3], f[4]) for f in found]

    def to_hf(self) -> dict[str, Any]:
        """The ``"model"`` object of a ``tokenizers`` ``tokenizer.json``."""
        if self.suffix_as_symbol:
            raise TokenizerError(
                "tokenizers cannot express an end-of-word marker as a separate symbol; "
                "train with the suffix glued to the last character to export"
            )
        return {
            "type": "BPE",
            "dropout": None,
            **self._options(),
            "vocab": dict(sorted(self._vocab.items(), key=lambda kv: kv[1])),
            "merges": [list(p) for p in self.hf_merges()],
        }

    @classmethod
    def from_hf(cls, data: dict[str, Any]) -> "BPE":
        """Read the ``"model"`` object of a ``tokenizer.json`` (BPE type)."""
        if data.get("type") not in (None, "BPE"):
            raise FormatError(f"not a BPE model: type {data.get('type')!r}")
        return cls.from_dict({**data, "merge_ranks": "merges"})

    def __repr__(self) -> str:
        return f"BPE(vocab_size={self.vocab_size}, merges={self.num_merges}, merge_ranks={self.merge_ranks!r})"


class ByteLevelBPEEncoder:
    """A ``tiktoken``-like fast path: text -> ids with a split regex, byte symbols and a BPE model.

    It skips offsets and :class:`Token` objects (the pipeline's :class:`~tokenizer_core.pipeline.Tokenizer`
    gives those); pieces are cached, so common words cost one dictionary lookup.

    >>> from tokenizer_core.pre_tokenizers import GPT2_PATTERN, bytes_to_unicode
    >>> syms = sorted(bytes_to_unicode().values())
    >>> vocab = {s: i for i, s in enumerate(syms)}
    >>> vocab.update({"Ġ" + "w": 256})
    >>> enc = ByteLevelBPEEncoder(BPE(vocab, [("Ġ", "w")]), pattern=GPT2_PATTERN)
    >>> ids = enc.encode_ordinary("a w")
    >>> len(ids), enc.decode(ids)
    (2, 'a w')
    """

    def __init__(self, model: BPE, *, pattern: str, special_tokens: Optional[Mapping[str, int]] = None) -> None:
        from ..pre_tokenizers import bytes_to_unicode, unicode_to_bytes

        self.model = model
        self.pattern = pattern
        self._re = regex.compile(pattern)
        self.special_tokens = dict(special_tokens or {})
        self._special_re = (
            regex.compile("|".join(regex.escape(t) for t in sorted(self.special_tokens, key=len, reverse=True)))
            if self.special_tokens else None
        )
        table = dict(bytes_to_unicode())
        byte_of = unicode_to_bytes()
        self._sym_bytes = {tid: bytes(byte_of[c] for c in tok) for tok, tid in model.get_vocab().items()
                           if all(c in byte_of for c in tok)}
        for tok, tid in self.special_tokens.items():
            self._sym_bytes[tid] = tok.encode("utf-8")
        model_tokenize = model.tokenize

        class _PieceCache(dict):
            def __missing__(self, piece: str) -> list[int]:
                mapped = (piece if piece.isascii() else piece.encode("utf-8").decode("latin-1")).translate(table)
                ids = [t.id for t in model_tokenize(mapped)]
                if len(self) < _CACHE_LIMIT:
                    self[piece] = ids
                return ids

        self._cache = _PieceCache()

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text``, treating special-token strings as plain text."""
        return list(chain.from_iterable(map(self._cache.__getitem__, self._re.findall(text))))

    def encode(self, text: str, *, allowed_special: Iterable[str] | str = "all") -> list[int]:
        """Ids of ``text``; special-token strings in ``allowed_special`` become their ids."""
        if self._special_re is None:
            return self.encode_ordinary(text)
        allowed = set(self.special_tokens) if allowed_special == "all" else set(allowed_special)
        out: list[int] = []
        pos = 0
        for m in self._special_re.finditer(text):
            if m.group() not in allowed:
                continue
            out.extend(self.encode_ordinary(text[pos:m.start()]))
            out.append(self.special_tokens[m.group()])
            pos = m.end()
        out.extend(self.encode_ordinary(text[pos:]))
        return out

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        try:
            return b"".join(self._sym_bytes[i] for i in ids)
        except KeyError as err:
            raise TokenizerError(f"id {err.args[0]} is not in the vocabulary") from None

    def decode(self, ids: Iterable[int], *, errors: str = "replace") -> str:
        return self.decode_bytes(ids).decode("utf-8", errors=errors)


# Importing the model registers the "bpe" trainer too (the trainer imports this module lazily).
from .. import bpe_train as _bpe_train  # noqa: E402,F401
