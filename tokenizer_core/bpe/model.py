"""The BPE model: vocabulary, ranked merges and ``tokenizers``' options, encoding one piece at a time.

A word, one pre-tokenized piece, starts as one symbol per character; in byte-level models, one per byte symbol such
as ``Ġ``. Then, as GPT-2, ``tokenizers`` and ``tiktoken`` do, the adjacent pair with the lowest merge rank is merged,
the leftmost one on equal ranks, until no adjacent pair has a rank. Two rank rules:

* ``MergeRanks.MERGES``: a pair's rank is its position in ``merges`` (GPT-2 files, ``tokenizers``, our trainer).
* ``MergeRanks.TOKENS``: a pair's rank is the id of the token it spells, and any two tokens whose concatenation is a
  token may merge. This is ``tiktoken``'s rule.

Every other setting is one :class:`~tokenizer_core.bpe.options.BpeModelOptions` value: unknown characters, word
prefix and suffix, ``ignore_merges``.

Results are cached per piece. Long pieces (``"a" * 100_000``) merge one rank at a time over a linked list (see
:mod:`tokenizer_core.bpe.merge_waves`), so encoding stays ``O(n log n)``. BPE-dropout (Provilkov et al.) skips each
candidate merge with probability ``p``. Skipped merges come back after the next merge that happens, and ``p = 0``
gives the deterministic result.

>>> m = BPE({"a": 0, "b": 1, "c": 2, "d": 3, "aa": 4, "ab": 5, "aaab": 6},
...         [("a", "a"), ("a", "b"), ("aa", "ab")])
>>> [t.text for t in m.tokenize("aaabdaaabac")]
['aaab', 'd', 'aaab', 'a', 'c']
>>> [t.offsets for t in m.tokenize("aaabd")]
[(0, 4), (4, 5)]
>>> m.segment("aaabdaaabac", max_rank=1)
['aa', 'a', 'b', 'd', 'aa', 'a', 'b', 'a', 'c']
>>> t = BPE({"a": 0, "b": 1, "ab": 2}, options=BpeModelOptions(merge_ranks=MergeRanks.TOKENS))
>>> [tok.text for tok in t.tokenize("abab")], t.merge_ranks == "tokens"
(['ab', 'ab'], True)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional

from tokenizer_core.bpe.byte_encoder import ByteLevelBPEEncoder
from tokenizer_core.bpe.formats import merges_by_token_rank, merges_from_json
from tokenizer_core.bpe.merge_tree import MergeTree, tree_by_encoding, tree_from_producers
from tokenizer_core.bpe.merge_waves import merge_waves
from tokenizer_core.bpe.merging import MergeStep, Ranker, WordTrace, merge_heap, merge_scan
from tokenizer_core.bpe.options import BpeModelOptions, MergeRanks
from tokenizer_core.bpe.tables import MergeTable, check_vocab
from tokenizer_core.bpe.unknowns import initial_with_unknowns
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.model_base import VocabLookup
from tokenizer_core.registry import register
from tokenizer_core.types import CACHE_LIMIT, Sampling, Token

if TYPE_CHECKING:
    from tokenizer_core.bpe.trace import BpeTrace

#: The longest token (in symbols: bytes, for byte-level vocabularies) of a vocabulary merged by
#: token rank (``MergeRanks.TOKENS``, tiktoken's rule). Its merge table is every split of every
#: token into two tokens, so building it takes time that grows with the square of a token's length
#: (the compiled kernel builds it holding the GIL, in kernels/src/ranked.c); real ranks files stay at 128 or fewer.
MAX_RANKED_TOKEN_LENGTH = 1024

# Re-exported: tests, ui/ and bench/ import these from here.
__all__ = ["BPE", "BpeModelOptions", "ByteLevelBPEEncoder", "MergeRanks", "MergeStep", "MergeTree", "WordTrace"]

#: Pieces with more symbols than this merge by rank waves (O(n log n)) instead of the scan,
#: whose repeated minimum search is quadratic; both are equally fast at about 50 symbols.
_LONG_PIECE = 48
#: Frozen, so one shared default serves every model built without options.
_DEFAULT_OPTIONS = BpeModelOptions()


@register("model", "BPE")
class BPE(VocabLookup):
    """A BPE model: vocabulary, ranked merges and the options of ``tokenizers``' BPE model
    (:class:`~tokenizer_core.bpe.options.BpeModelOptions`, which says what each one does).

    The options are also readable one by one (``model.unk_token``, ``model.merge_ranks``, ...),
    the attribute names WordPiece and Unigram models share.
    """

    type_name = "BPE"

    def __init__(
        self,
        vocab: Mapping[str, int],
        merges: Sequence[tuple[str, str]] = (),
        *,
        options: BpeModelOptions = _DEFAULT_OPTIONS,
    ) -> None:
        if not isinstance(options, BpeModelOptions):
            raise TokenizerError(f"options must be a BpeModelOptions, got {type(options).__name__}")
        self._vocab = check_vocab(vocab)
        self._inv = {i: t for t, i in self._vocab.items()}
        if options.unk_token is not None and options.unk_token not in self._vocab:
            raise TokenizerError(f"unk_token {options.unk_token!r} is not in the vocabulary; "
                                 "add it or pass unk_token=None")
        if options.merge_ranks is MergeRanks.TOKENS and merges:
            raise TokenizerError("merge_ranks='tokens' derives merges from the vocabulary; give no merges")
        if options.merge_ranks is MergeRanks.TOKENS:
            longest = max(self._vocab, key=len, default="")
            if len(longest) > MAX_RANKED_TOKEN_LENGTH:
                raise TokenizerError(
                    f"a token of {len(longest):,} symbols (id {self._vocab[longest]}) is longer than the "
                    f"{MAX_RANKED_TOKEN_LENGTH:,} allowed when merges are ranked by token (tiktoken's rule; "
                    "real vocabularies stay at 128): its merge table would take too long to build")
        self.options = options
        table = MergeTable(merges, vocab=self._vocab, prefix=self.continuing_subword_prefix)
        self.merges: list[tuple[str, str]] = table.merges
        self._table = table
        self._cache: dict[str, tuple[Token, ...]] = {}
        #: The training trace when this model was just trained (not saved with the model).
        self.training_trace: Optional["BpeTrace"] = None

    @property
    def _merge(self) -> dict[tuple[str, str], tuple[int, str]]:
        """(left, right) -> (rank, merged token); built on first use for a model the kernel checked."""
        return self._table.ranks

    @property
    def _producer(self) -> dict[str, tuple[int, str, str]]:
        """Merged token -> (rank, left, right) of its first merge (for merge trees)."""
        return self._table.producers

    # Read-only views of the options, under the names other models and the kernel read.
    @property
    def unk_token(self) -> Optional[str]:
        return self.options.unk_token

    @property
    def continuing_subword_prefix(self) -> Optional[str]:
        return self.options.continuing_subword_prefix

    @property
    def end_of_word_suffix(self) -> Optional[str]:
        return self.options.end_of_word_suffix

    @property
    def fuse_unk(self) -> bool:
        return self.options.fuse_unk

    @property
    def byte_fallback(self) -> bool:
        return self.options.byte_fallback

    @property
    def ignore_merges(self) -> bool:
        return self.options.ignore_merges

    @property
    def merge_ranks(self) -> MergeRanks:
        return self.options.merge_ranks

    @property
    def suffix_as_symbol(self) -> bool:
        return self.options.suffix_as_symbol

    # ------------------------------------------------------------------ vocabulary

    @property
    def num_merges(self) -> int:
        """Number of merge ranks (for ``MergeRanks.TOKENS``: the number of multi-symbol tokens)."""
        if self.merge_ranks is MergeRanks.TOKENS:
            return sum(1 for t in self._vocab if len(t) > 1)
        return len(self.merges)

    # --------------------------------------------------------------- pair ranking
    def _ranker(self, max_rank: Optional[int]) -> Ranker:
        """``rank((left, right)) -> (rank, merged) | None`` under the model's rule, limited to ranks < max_rank.

        For the common case (merge list, no limit) this is the merge table's own lookup
        (:attr:`MergeTable.rank_of`), which keeps the per-pair cost of the inner loops at one C call.
        """
        if self.merge_ranks is MergeRanks.TOKENS:
            vocab_get = self._vocab.get

            def by_token(pair: tuple[str, str]) -> Optional[tuple[int, str]]:
                t = pair[0] + pair[1]
                r = vocab_get(t)
                if r is None or (max_rank is not None and r >= max_rank):
                    return None
                return (r, t)

            return by_token
        get = self._table.rank_of
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
        if prefix is None and suffix is None and not self.suffix_as_symbol and vocab.keys() >= set(piece):
            # The common case (byte-level models): one symbol per character, no Python loop.
            return list(piece), list(range(len(piece))), list(range(1, len(piece) + 1))
        syms: list[str] = []
        last = len(piece) - 1
        for k, ch in enumerate(piece):
            s = ch
            if prefix is not None and k > 0:
                s = prefix + s
            if suffix is not None and k == last:
                s = s + suffix
            if s not in vocab:  # an unknown character: tokenizers' own bookkeeping decides
                return self._initial_with_unknowns(piece)
            syms.append(s)
        starts, ends = list(range(len(syms))), list(range(1, len(syms) + 1))
        if self.suffix_as_symbol and piece and self.end_of_word_suffix in vocab:
            syms.append(self.end_of_word_suffix)  # type: ignore[arg-type]
            starts.append(len(piece))
            ends.append(len(piece))
        return syms, starts, ends

    def _initial_with_unknowns(self, piece: str) -> tuple[list[str], list[int], list[int]]:
        syms, starts, ends = initial_with_unknowns(
            piece, vocab=self._vocab, unk_token=self.unk_token, fuse_unk=self.fuse_unk,
            byte_fallback=self.byte_fallback, prefix=self.continuing_subword_prefix,
            suffix=None if self.suffix_as_symbol else self.end_of_word_suffix)
        if self.suffix_as_symbol and piece and self.end_of_word_suffix in self._vocab:
            syms.append(self.end_of_word_suffix)  # type: ignore[arg-type]
            starts.append(len(piece))
            ends.append(len(piece))
        return syms, starts, ends

    # ------------------------------------------------------------------- merging
    # Plain functions (see merging.py); kept as attributes for callers that reach them via the model.
    _merge_scan = staticmethod(merge_scan)
    _merge_heap = staticmethod(merge_heap)

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
            if dropout or steps is not None:
                syms, starts, ends = merge_heap(syms, starts, ends, rank, dropout=dropout, rng=rng, steps=steps)
            elif len(syms) > _LONG_PIECE:
                syms, starts, ends = merge_waves(syms, starts, ends, rank)
            else:
                merge_scan(syms, starts, ends, rank)
        return [Token(vocab[s], s, (a, b)) for s, a, b in zip(syms, starts, ends)]

    # ------------------------------------------------------------------ public API
    def tokenize(self, piece: str) -> list[Token]:
        """Tokens of one piece; offsets are character positions in the piece."""
        hit = self._cache.get(piece)
        if hit is not None:
            return list(hit)
        toks = self._encode(piece)
        if len(self._cache) >= CACHE_LIMIT:
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
            syms, starts, ends = merge_heap(syms, starts, ends, self._ranker(max_rank), steps=steps)
            toks = [Token(self._vocab[s], s, (a, b)) for s, a, b in zip(syms, starts, ends)]
        return WordTrace(word, initial, tuple(steps), tuple(toks))

    def merge_rank(self, token: str) -> Optional[int]:
        """The 0-based rank of the merge that first made ``token`` (for tiktoken-style models, the
        token's rank); None for alphabet symbols and tokens no merge makes.

        >>> BPE({"l": 0, "o": 1, "lo": 2}, [("l", "o")]).merge_rank("lo")
        0
        """
        made = self._producer.get(token)
        if made is not None:
            return made[0]
        if self.merge_ranks is MergeRanks.TOKENS and len(token) > 1 and token in self._vocab:
            return self._vocab[token]  # tiktoken style: a token's rank is its merge priority
        return None

    def merge_tree(self, token: str) -> MergeTree:
        """How ``token`` is built from alphabet symbols, merge by merge."""
        if token not in self._vocab:
            raise TokenizerError(f"{token!r} is not in the vocabulary")
        if self.merge_ranks is MergeRanks.MERGES:
            return tree_from_producers(token, vocab=self._vocab, producers=self._producer)
        return tree_by_encoding(token, vocab=self._vocab, rank=self._ranker(None))

    # -------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """Own format: vocabulary, merges (as pairs) and options."""
        return {
            "type": self.type_name,
            "vocab": dict(self._vocab),
            "merges": [list(p) for p in self.merges],
            **self.options.to_json(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BPE":
        if not isinstance(data.get("vocab"), dict):
            raise FormatError("a BPE model needs a \"vocab\" object mapping tokens to ids")
        pairs = merges_from_json(data.get("merges", []))
        try:
            return cls(data["vocab"], pairs, options=BpeModelOptions.from_json(data))
        except TokenizerError as err:
            raise FormatError(f"invalid BPE model: {err}") from err

    def hf_merges(self) -> list[tuple[str, str]]:
        """The merge list for ``tokenizers``; for ``MergeRanks.TOKENS`` it is derived from the
        vocabulary: every split of a token into two tokens, ordered by (token rank, left rank, right rank)."""
        if self.merge_ranks is MergeRanks.MERGES:
            return list(self.merges)
        return merges_by_token_rank(self._vocab)

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
            **self.options.hf_json(),
            "vocab": dict(sorted(self._vocab.items(), key=lambda kv: kv[1])),
            "merges": [list(p) for p in self.hf_merges()],
        }

    @classmethod
    def from_hf(cls, data: dict[str, Any]) -> "BPE":
        """Read the ``"model"`` object of a ``tokenizer.json`` (BPE type)."""
        if data.get("type") not in (None, "BPE"):
            raise FormatError(f"not a BPE model: type {data.get('type')!r}")
        return cls.from_dict({**data, "merge_ranks": MergeRanks.MERGES.value})

    def __repr__(self) -> str:
        return f"BPE(vocab_size={self.vocab_size}, merges={self.num_merges}, merge_ranks={self.merge_ranks.value!r})"
