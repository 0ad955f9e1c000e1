"""The WordPiece training trace: each merge with its score, runner-ups and BPE's choice, and the outcome.

>>> p = ScoredPair("h", "##u", count=15, left_count=15, right_count=15)
>>> p.score, p.to_dict()["pair"]
(0.06666666666666667, ['h', '##u'])
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.text.symbols import merge_pair


@dataclass(frozen=True, slots=True)
class ScoredPair:
    """A candidate pair with the statistics both criteria look at (BPE: ``count``; WordPiece: ``score``).

    >>> ScoredPair("##g", "##s", count=5, left_count=20, right_count=5).score
    0.05
    """

    left: str
    right: str
    count: int
    left_count: int
    right_count: int

    @property
    def score(self) -> float:
        """``count / (left_count * right_count)``, exactly as the trainer compared it."""
        return self.count / (self.left_count * self.right_count)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON view."""
        return {"pair": [self.left, self.right], "count": self.count, "left_count": self.left_count,
                "right_count": self.right_count, "score": self.score}


@dataclass(frozen=True, slots=True)
class WordPieceMerge:
    """One training step: the pair merged, why, and what BPE would have done instead.

    ``step`` counts from 1; ``count`` is the pair's count, ``left_count`` and
    ``right_count`` the counts of its parts, all just before the merge.
    ``runner_ups`` are the next best pairs by score (best first); ``bpe_choice``
    is the most frequent pair at this step (ties broken the same way);
    ``tie_break`` explains the choice when runner-ups had the same score;
    ``corpus_tokens`` is the corpus length in tokens after the merge.

    >>> m = WordPieceMerge(step=1, left="##g", right="##s", new_token="##gs", new_id=7, count=5,
    ...                    left_count=20, right_count=5, score=0.05, runner_ups=(), bpe_choice=None,
    ...                    tie_break=None, corpus_tokens=100)
    >>> m.pair, m.agrees_with_bpe
    (('##g', '##s'), False)
    """

    step: int
    left: str
    right: str
    new_token: str
    new_id: int
    count: int
    left_count: int
    right_count: int
    score: float
    runner_ups: tuple[ScoredPair, ...]
    bpe_choice: Optional[ScoredPair]
    tie_break: Optional[str]
    corpus_tokens: int

    @property
    def pair(self) -> tuple[str, str]:
        return (self.left, self.right)

    @property
    def agrees_with_bpe(self) -> bool:
        """Whether BPE's most-frequent-pair rule would have picked the same pair."""
        return self.bpe_choice is not None and (self.bpe_choice.left, self.bpe_choice.right) == self.pair

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON view (for the CLI and tables)."""
        return {
            "step": self.step, "pair": [self.left, self.right], "token": self.new_token, "token_id": self.new_id,
            "count": self.count, "left_count": self.left_count, "right_count": self.right_count,
            "score": self.score, "runner_ups": [r.to_dict() for r in self.runner_ups],
            "bpe_choice": None if self.bpe_choice is None else self.bpe_choice.to_dict(),
            "tie_break": self.tie_break, "corpus_tokens": self.corpus_tokens,
        }


@dataclass
class WordPieceTraining:
    """The outcome of :func:`~tokenizer_core.wordpiece.trainer.train_wordpiece`: vocabulary, merge trace and why training stopped.

    ``skipped_long_words`` counts the distinct words left out for being longer
    than ``max_word_length``.

    >>> from tokenizer_core.wordpiece.trainer import train_wordpiece
    >>> r = train_wordpiece({"ab": 3}, vocab_size=10, special_tokens=("[UNK]",))
    >>> r.vocab, r.stop_reason
    ({'[UNK]': 0, '##b': 1, 'a': 2, 'ab': 3}, 'no pair left to merge')
    """

    vocab: dict[str, int]
    merges: list[WordPieceMerge]
    alphabet: list[str]
    special_tokens: tuple[str, ...]
    continuing_subword_prefix: str
    stop_reason: str
    initial_corpus_tokens: int
    skipped_long_words: int = 0
    _ranks: Optional[dict[tuple[str, str], list[int]]] = field(default=None, repr=False, compare=False)

    def compression_curve(self) -> list[int]:
        """Corpus length in tokens before training and after each merge.

        >>> from tokenizer_core.wordpiece.trainer import train_wordpiece
        >>> train_wordpiece({"hug": 10, "hugs": 5}, vocab_size=6, special_tokens=()).compression_curve()
        [50, 35, 20]
        """
        return [self.initial_corpus_tokens] + [m.corpus_tokens for m in self.merges]

    def initial_split(self, word: str) -> list[str]:
        """A word as training starts it: first character, then prefixed continuation characters.

        >>> from tokenizer_core.wordpiece.trainer import train_wordpiece
        >>> train_wordpiece({}, vocab_size=5, special_tokens=()).initial_split("hug")
        ['h', '##u', '##g']
        """
        prefix = self.continuing_subword_prefix
        return [ch if i == 0 else prefix + ch for i, ch in enumerate(word)]

    def segment(self, word: str, step: Optional[int] = None) -> list[str]:
        """How training had split ``word`` after ``step`` merges (all merges when ``None``).

        This replays the training merges, which is not always what the greedy
        longest-match encoder produces from the final vocabulary.

        >>> from tokenizer_core.wordpiece.trainer import train_wordpiece
        >>> r = train_wordpiece({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
        ...                     vocab_size=10, special_tokens=())
        >>> r.segment("hugs", 0), r.segment("hugs", 1), r.segment("hugs")
        (['h', '##u', '##g', '##s'], ['h', '##u', '##gs'], ['hugs'])
        """
        last = len(self.merges) if step is None else step
        if not 0 <= last <= len(self.merges):
            raise TokenizerError(f"step must be between 0 and {len(self.merges)}, got {step}")
        ranks = self._merge_ranks()
        prefix_len = len(self.continuing_subword_prefix)
        symbols = self.initial_split(word)
        done = 0
        while len(symbols) > 1:
            # The next merge that can change this word is the earliest step after `done`
            # whose pair occurs in it; every step in between leaves the word alone.
            best: Optional[int] = None
            for pair in zip(symbols, symbols[1:]):
                steps = ranks.get(pair)
                if steps:
                    i = bisect.bisect_right(steps, done)
                    if i < len(steps) and (best is None or steps[i] < best):
                        best = steps[i]
            if best is None or best > last:
                break
            merge = self.merges[best - 1]
            symbols = merge_pair(symbols, merge.left, merge.right, merge.left + merge.right[prefix_len:])
            done = best
        return symbols

    def _merge_ranks(self) -> dict[tuple[str, str], list[int]]:
        if self._ranks is None:
            ranks: dict[tuple[str, str], list[int]] = {}
            for m in self.merges:
                ranks.setdefault((m.left, m.right), []).append(m.step)
            self._ranks = ranks
        return self._ranks
