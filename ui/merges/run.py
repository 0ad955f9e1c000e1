"""Training runs of the step-through page, with one shape for BPE and WordPiece.

A :class:`MergeRun` wraps what the engine returned (the tokenizer and its step
trace) and answers everything the page draws at a step: the merge made
(:meth:`MergeRun.step_info`), how words are segmented (:meth:`MergeRun.segment`),
the vocabulary size and corpus length, the merges applied to a typed sentence
(:meth:`MergeRun.encode`, in :mod:`ui.merges.encode`), merge trees and, for small
corpora, the full pair-count table (:mod:`ui.merges.pairs`). Nothing here
retrains: every answer comes from the trace. No Streamlit here, so it is tested
directly.

>>> from tokenizer_core.corpus.loading import load_sample
>>> from ui.merges.settings import MergeSettings
>>> from ui.merges.training import train_run
>>> run = train_run(load_sample("hf-course-hug-pug"), MergeSettings(budget=3))
>>> [(i.left, i.right, i.count) for i in map(run.step_info, range(1, 4))]
[('u', 'g', 20), ('u', 'n', 16), ('h', 'ug', 15)]
>>> run.segment("hugs", 3), run.vocab_size_at(0), run.vocab_size_at(3)
(['hug', 's'], 8, 11)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from tokenizer_core.errors import TokenizerError
from ui.merges.holding import NEEDLE_NODES, holding_needle, joined_symbols
from ui.merges.settings import MergeSettings
from ui.merges.tree import TreeNode
from ui.widgets.tokens import Scheme, scheme_for

if TYPE_CHECKING:
    from tokenizer_core.bpe.trainer import BpeTrainResult
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.wordpiece.trainer import WordPieceTraining

#: Corpora with at most this many distinct words get the full pair-count table (teaching mode).
TEACHING_MAX_WORDS = 300
#: Merge trees are drawn with at most this many merges; deeper ones are left collapsed.
MAX_TREE_NODES = 40
# The BPE trace keeps this many of the most frequent words (train_bpe_counts' keep_words).
BPE_KEPT_WORDS = 1000


@dataclass(frozen=True)
class Candidate:
    """A pair considered at a step: its count and, for WordPiece, its score and the counts of its parts."""

    left: str
    right: str
    count: int
    score: Optional[float] = None
    left_count: Optional[int] = None
    right_count: Optional[int] = None

    @property
    def pair(self) -> tuple[str, str]:
        return (self.left, self.right)


@dataclass(frozen=True)
class StepInfo:
    """What merge ``step`` (counted from 1) did, algorithm-neutral.

    ``runner_ups`` are the next best pairs (by count for BPE, by score for
    WordPiece); ``tied`` those among them that equalled the chosen pair;
    ``tie_break`` the engine's explanation; ``bpe_choice`` (WordPiece only) the
    most frequent pair, which BPE would have merged.
    """

    step: int
    left: str
    right: str
    token: str
    token_id: int
    token_is_new: bool
    count: int
    score: Optional[float]
    left_count: Optional[int]
    right_count: Optional[int]
    runner_ups: tuple[Candidate, ...]
    tied: tuple[Candidate, ...]
    tie_break: Optional[str]
    bpe_choice: Optional[Candidate]
    tokens_after: int

    @property
    def chosen(self) -> Candidate:
        return Candidate(self.left, self.right, self.count, self.score, self.left_count, self.right_count)

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        """The chosen pair first, then the runner-ups."""
        return (self.chosen, *self.runner_ups)


@dataclass(frozen=True)
class RunFacts:
    """What a run knows besides its engine's trace: the same for BPE and WordPiece.

    A run is shared by every session training the same corpus content with the same settings, so
    nothing here names the corpus (two users' corpora of equal content may have different names).
    """

    settings: MergeSettings
    tokenizer: Tokenizer
    #: Every distinct word with its count in order of first appearance, or None when the corpus
    #: has too many for the teaching table.
    words: Optional[list[tuple[str, int]]]
    #: The most frequent words, most frequent first.
    top_words: list[tuple[str, int]]
    seconds: float


class MergeRun(ABC):
    """Base of :class:`BpeRun` and :class:`WordPieceRun`: what both share, and the contract the
    page draws from (:meth:`segment`, :meth:`step_info`, :meth:`merge_tree`)."""

    algorithm = ""

    def __init__(self, facts: RunFacts, *, curve: list[int], vocab: dict[str, int], new_flags: list[bool],
                 stop_reason: str) -> None:
        self.settings = facts.settings
        self.tokenizer = facts.tokenizer
        self.scheme: Scheme = scheme_for(facts.tokenizer)
        self.curve = curve
        self.vocab = vocab
        self.stop_reason = stop_reason
        self.words = facts.words
        self.top_words = facts.top_words
        self.seconds = facts.seconds
        sizes = [len(vocab) - sum(new_flags)]
        for new in new_flags:
            sizes.append(sizes[-1] + new)
        self._sizes = sizes
        self._joined: dict[str, list[str]] = {}  # each kept list's words' initial symbols (words_with)

    # -- sizes ----------------------------------------------------------------------------------
    @property
    def num_steps(self) -> int:
        return len(self.curve) - 1

    def check_step(self, step: int) -> int:
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.num_steps:
            raise TokenizerError(f"step must be a whole number from 0 to {self.num_steps}, got {step!r}")
        return step

    def vocab_size_at(self, step: int) -> int:
        """Vocabulary size after ``step`` merges (special tokens included)."""
        return self._sizes[self.check_step(step)]

    def tokens_at(self, step: int) -> int:
        """Corpus length in tokens after ``step`` merges."""
        return self.curve[self.check_step(step)]

    @property
    def base_vocab_size(self) -> int:
        return self._sizes[0]

    @property
    def teaching(self) -> bool:
        """Whether the corpus is small enough for the full pair-count table at every step."""
        return self.words is not None

    def token_id(self, token: str) -> Optional[int]:
        return self.vocab.get(token)

    # -- words ----------------------------------------------------------------------------------
    def pieces(self, text: str) -> list[str]:
        """``text`` as the trainer saw words: normalized and pre-tokenized (byte-mapped for byte-level)."""
        norm = self.tokenizer.normalizer
        if norm is not None:
            text = norm.normalize_str(text)
        pre = self.tokenizer.pre_tokenizer
        if pre is None:
            return [text] if text else []
        return [p for p, _ in pre.pre_tokenize_str(text)]

    @abstractmethod
    def segment(self, word: str, step: int) -> list[str]:
        """``word`` (as :meth:`pieces` gives it) split into the tokens it has after ``step`` merges."""

    def initial_symbols(self, word: str) -> list[str]:
        return self.segment(word, 0)

    def display_words(self, step: int, n: int = 24) -> list[tuple[str, int, list[str]]]:
        """The ``n`` most frequent words that have something to merge, segmented after ``step`` merges."""
        self.check_step(step)
        out = []
        for word, count in self.kept_words(step)[1]:
            if len(self.initial_symbols(word)) > 1:
                out.append((word, count, self.segment(word, step)))
                if len(out) >= n:
                    break
        return out

    def table_words(self, step: int) -> Optional[list[tuple[str, int]]]:
        """The words the teaching table counts pairs in after ``step`` merges, the ones merge ``step + 1``
        chose from (first seen first), or None for a corpus too large for the table."""
        return self.words

    def kept_words(self, step: int) -> tuple[str, list[tuple[str, int]]]:
        """The words the tables at ``step`` draw from, most frequent first, and a name for that list
        (SuperBPE's second stage trains on other words than its first)."""
        return "words", self.top_words

    def words_with(self, token: str, step: int, n: int = 12) -> list[tuple[str, int, list[str]]]:
        """The most frequent words (of those kept) holding ``token`` after ``step`` merges; only the
        words whose initial symbols could hold it are segmented (:mod:`ui.merges.holding`)."""
        self.check_step(step)
        needle = holding_needle(self.merge_tree(token, step, max_nodes=NEEDLE_NODES))
        name, kept = self.kept_words(step)
        joined_words = self._joined.get(name)
        if joined_words is None:  # once per run (shared by its sessions; equal if two threads race)
            joined_words = self._joined[name] = [joined_symbols(self.initial_symbols(word)) for word, _ in kept]
        out = []
        for (word, count), joined in zip(kept, joined_words):
            if needle is not None and needle not in joined:
                continue
            seg = self.segment(word, step)
            if token in seg:
                out.append((word, count, seg))
                if len(out) >= n:
                    break
        return out

    @abstractmethod
    def step_info(self, step: int) -> StepInfo:
        """What merge ``step`` (1 to :attr:`num_steps`) did; step 0 is a TokenizerError."""

    @abstractmethod
    def merge_tree(self, token: str, step: int, *, max_nodes: int = MAX_TREE_NODES) -> TreeNode:
        """How ``token`` is built by the merges up to ``step``, with at most ``max_nodes`` merges
        expanded (the rest collapsed; ``max_nodes=1`` tells cheaply whether any merge made it)."""


class BpeRun(MergeRun):
    """A BPE run: :class:`~tokenizer_core.bpe.trace.BpeTrace` and the BPE model."""

    algorithm = "bpe"

    def __init__(self, facts: RunFacts, *, result: BpeTrainResult) -> None:
        trace = result.trace
        self.trace = trace
        self.model = facts.tokenizer.model
        flags = [rec.token_is_new for rec in trace]
        super().__init__(facts, curve=trace.compression_curve(), vocab=self.model.get_vocab(), new_flags=flags,
                         stop_reason=trace.stop_reason)

    def segment(self, word: str, step: int) -> list[str]:
        return self.trace.segment(word, self.check_step(step))

    def step_info(self, step: int) -> StepInfo:
        if not 1 <= self.check_step(step):
            raise TokenizerError("step 0 is before the first merge; merge records start at step 1")
        rec = self.trace[step - 1]
        ups = tuple(Candidate(r.left, r.right, r.count) for r in rec.runner_ups)
        tied = tuple(c for c in ups if c.count == rec.count) if rec.tie else ()
        return StepInfo(
            step=rec.step, left=rec.left, right=rec.right, token=rec.token, token_id=rec.token_id,
            token_is_new=rec.token_is_new, count=rec.count, score=None, left_count=None, right_count=None,
            runner_ups=ups, tied=tied, tie_break=rec.tie_break or None, bpe_choice=None,
            tokens_after=rec.tokens_after,
        )

    def merge_tree(self, token: str, step: int, *, max_nodes: int = MAX_TREE_NODES) -> TreeNode:
        self.check_step(step)
        if token not in self.vocab:
            return TreeNode(token, None)

        def parts(t: Any) -> tuple[str, Optional[int], Optional[int], Any, Any]:
            if t.left is None or t.right is None or t.rank is None or t.rank >= step:
                return t.token, t.id, None, None, None
            return t.token, t.id, t.rank + 1, t.left, t.right

        return bounded_tree(self.model.merge_tree(token), parts, max_nodes)


class WordPieceRun(MergeRun):
    """A WordPiece run: :class:`~tokenizer_core.wordpiece.trainer.WordPieceTraining` and the BERT-style tokenizer."""

    algorithm = "wordpiece"

    def __init__(self, facts: RunFacts, *, training: WordPieceTraining) -> None:
        self.training = training
        self.merges = training.merges
        base = len(dict.fromkeys([*training.special_tokens, *training.alphabet]))
        flags = []
        size = base
        for m in training.merges:
            new = m.new_id == size  # a new token takes the next id; an old one keeps its id
            flags.append(new)
            size += new
        # Step at which each token was first made (for merge trees), and ranks per pair (for replays).
        self._producer: dict[str, int] = {}
        self._steps_of: dict[tuple[str, str], list[int]] = {}
        for m in training.merges:
            self._producer.setdefault(m.new_token, m.step)
            self._steps_of.setdefault((m.left, m.right), []).append(m.step)
        super().__init__(facts, curve=training.compression_curve(), vocab=dict(training.vocab), new_flags=flags,
                         stop_reason=training.stop_reason)

    @property
    def prefix(self) -> str:
        return self.training.continuing_subword_prefix

    def segment(self, word: str, step: int) -> list[str]:
        return self.training.segment(word, self.check_step(step))

    def initial_symbols(self, word: str) -> list[str]:
        return self.training.initial_split(word)

    def steps_of(self, pair: tuple[str, str]) -> list[int]:
        """The steps (ascending) that merged ``pair``."""
        return self._steps_of.get(pair, [])

    def step_info(self, step: int) -> StepInfo:
        if not 1 <= self.check_step(step):
            raise TokenizerError("step 0 is before the first merge; merge records start at step 1")
        m = self.merges[step - 1]

        def cand(p: Any) -> Candidate:
            return Candidate(p.left, p.right, p.count, p.score, p.left_count, p.right_count)

        ups = tuple(cand(p) for p in m.runner_ups)
        tied = tuple(c for c in ups if c.score == m.score)
        before = self._sizes[step - 1]
        return StepInfo(
            step=m.step, left=m.left, right=m.right, token=m.new_token, token_id=m.new_id,
            token_is_new=self._sizes[step] > before, count=m.count, score=m.score,
            left_count=m.left_count, right_count=m.right_count, runner_ups=ups, tied=tied,
            tie_break=m.tie_break, bpe_choice=cand(m.bpe_choice) if m.bpe_choice is not None else None,
            tokens_after=m.corpus_tokens,
        )

    def vocab_at(self, step: int) -> dict[str, int]:
        """The vocabulary after ``step`` merges (special tokens, alphabet, tokens made so far)."""
        # Ids are given in order of creation, so the tokens that exist after `step` merges are
        # exactly those with ids below the vocabulary size at that step.
        limit = self.vocab_size_at(step)
        return {t: i for t, i in self.vocab.items() if i < limit}

    def merge_tree(self, token: str, step: int, *, max_nodes: int = MAX_TREE_NODES) -> TreeNode:
        return producer_tree(token, self.check_step(step), max_nodes, made_at=self._producer,
                             pair_of=lambda made: (self.merges[made - 1].left, self.merges[made - 1].right),
                             vocab=self.vocab)


def producer_tree(token: str, step: int, max_nodes: int, *, made_at: Mapping[str, int],
                  pair_of: Callable[[int], tuple[str, str]], vocab: Mapping[str, int]) -> TreeNode:
    """The merge tree of ``token`` after ``step`` merges, from the step that first made each token
    (``made_at``) and the pair merged at a step (``pair_of``): WordPiece's and PickyBPE's runs, whose
    tokens are made by their first merge (:func:`bounded_tree`)."""
    def parts(tok: str) -> tuple[str, Optional[int], Optional[int], Any, Any]:
        made = made_at.get(tok)
        if made is None or made > step:
            return tok, vocab.get(tok), None, None, None
        left, right = pair_of(made)
        return tok, vocab.get(tok), made, left, right

    return bounded_tree(token, parts, max_nodes)


def bounded_tree(root: Any, parts: Any, max_nodes: int) -> TreeNode:
    """A :class:`TreeNode` tree from ``parts(source) -> (token, id, step or None, left, right)``,
    expanding at most ``max_nodes`` merges, breadth first; the merges left over become
    collapsed leaves (``step`` set, no children). A token of n characters has up to 2n - 1 nodes,
    too many to draw for a long one."""
    expanded: set[tuple[int, ...]] = set()
    queue = deque([(root, ())])
    while queue and len(expanded) < max_nodes:
        source, path = queue.popleft()
        _, _, made, left, right = parts(source)
        if made is not None:
            expanded.add(path)
            queue.append((left, path + (0,)))
            queue.append((right, path + (1,)))

    def build(source: Any, path: tuple[int, ...]) -> TreeNode:
        token, token_id, made, left, right = parts(source)
        if made is None:
            return TreeNode(token, token_id)
        if path not in expanded:
            return TreeNode(token, token_id, made)
        return TreeNode(token, token_id, made, build(left, path + (0,)), build(right, path + (1,)))

    return build(root, ())
