"""What Unigram training hands back: the final pieces and a per-round trace of EM and pruning.

>>> RemovedPiece("▁hu", "pruned", -7.5, loss=0.01).reason
'pruned'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True, slots=True)
class RemovedPiece:
    """A piece dropped during training.

    ``reason``: ``"rare"`` (expected fewer than 0.5 times in an M-step), ``"unused"``
    (on no Viterbi path, or its own best split beats it), ``"pruned"`` (lowest loss
    of likelihood; ``loss`` is that estimated loss) or ``"final"`` (cut to the exact
    vocabulary size by probability).
    """

    piece: str
    reason: str
    log_prob: float
    loss: Optional[float] = None


@dataclass(frozen=True)
class UnigramRound:
    """One round of EM (and the pruning after it) as the app charts it.

    ``log_likelihood`` is ``sum(count(w) * log P(w))`` over distinct words after the
    round's last EM iteration; ``loss`` is minus that per word occurrence (what
    SentencePiece logs as ``obj``); ``num_tokens`` counts Viterbi tokens over the corpus.
    """

    round: int
    vocab_size: int
    log_likelihood: float
    loss: float
    em_iterations: int
    num_tokens: int
    removed: tuple[RemovedPiece, ...]


@dataclass(frozen=True)
class UnigramTrainResult:
    """Final pieces (most probable first, with log-probabilities) and the training trace."""

    pieces: list[tuple[str, float]]
    rounds: list[UnigramRound]
    seed_size: int
    alphabet: list[str]
    num_words: int
    num_distinct_words: int

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (pieces removed per round are summarised by count per reason)."""
        return {
            "seed_size": self.seed_size,
            "alphabet_size": len(self.alphabet),
            "num_words": self.num_words,
            "num_distinct_words": self.num_distinct_words,
            "rounds": [
                {"round": r.round, "vocab_size": r.vocab_size, "log_likelihood": r.log_likelihood, "loss": r.loss,
                 "em_iterations": r.em_iterations, "num_tokens": r.num_tokens,
                 "removed": dict(Counter(x.reason for x in r.removed))}
                for r in self.rounds
            ],
        }
