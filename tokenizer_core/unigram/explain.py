"""What a teaching view of a Unigram lattice needs beyond the lattice itself: the Viterbi table
(best score and back-pointer per position, with every candidate weighed), the entropy of the
segmentation distribution, sampled frequencies next to exact probabilities, and the Hugging Face
course's toy model.

>>> model = course_model()
>>> lat = model.lattice("pug")
>>> [(row.position, row.best_piece, round(row.best_score, 4)) for row in viterbi_table(lat)]
[(1, 'p', -2.5139), (2, 'pu', -2.5139), (3, 'ug', -4.8653)]
>>> round(entropy(lat), 4)   # p+ug and pu+g tie (the earlier start wins); p+u+g is less likely
0.9146
>>> sorted((d.pieces, round(d.probability, 3)) for d in exact_distribution(lat))
[(('p', 'u', 'g'), 0.079), (('p', 'ug'), 0.461), (('pu', 'g'), 0.461)]
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass

from tokenizer_core.errors import TokenizerError
from tokenizer_core.unigram.lattice import Lattice
from tokenizer_core.unigram.model import Unigram

__all__ = [
    "COURSE_FREQUENCIES",
    "COURSE_WORDS",
    "Candidate",
    "PathProbability",
    "PruningLoss",
    "ViterbiRow",
    "course_model",
    "entropy",
    "exact_distribution",
    "pruning_losses",
    "sample_frequencies",
    "viterbi_table",
]

#: The Hugging Face course's Unigram example: every substring of the corpus "hug" ×10, "pug" ×5,
#: "pun" ×12, "bun" ×4, "hugs" ×5 kept after its first pruning, with its frequency (210 in all).
COURSE_FREQUENCIES: dict[str, int] = {
    "h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "p": 17, "pu": 17, "n": 16,
    "un": 16, "b": 4, "bu": 4, "s": 5, "hug": 15, "gs": 5, "ugs": 5,
}
#: Paths the exact distribution enumerates at most (their number grows exponentially with length).
MAX_EXACT_PATHS = 2000


def course_model() -> Unigram:
    """The course's toy model: each piece's log-probability is log(frequency / 210)."""
    return Unigram.from_frequencies(COURSE_FREQUENCIES)


@dataclass(frozen=True)
class Candidate:
    """One way to reach a position: the best score at ``start`` plus the piece's log-probability."""

    start: int
    piece: str
    log_prob: float
    score: float


@dataclass(frozen=True)
class ViterbiRow:
    """The Viterbi step at ``position``: every candidate edge ending there, and the winner (the
    back-pointer ``best_start``). Ties go to the candidate starting earliest, as in the engine."""

    position: int
    char: str
    candidates: tuple[Candidate, ...]
    best_piece: str
    best_start: int
    best_score: float


def viterbi_table(lattice: Lattice) -> list[ViterbiRow]:
    """One row per position 1..len(text), in order; replaying the back-pointers from the last
    position gives :meth:`Lattice.viterbi`."""
    best = [0.0] + [-math.inf] * len(lattice.text)
    rows = []
    for pos in range(1, len(lattice.text) + 1):
        cands = tuple(Candidate(e.start, e.piece, e.log_prob, best[e.start] + e.log_prob)
                      for e in lattice.edges_to(pos))
        winner = cands[0]
        for c in cands[1:]:
            if c.score > winner.score:  # strict: the earliest start wins ties
                winner = c
        best[pos] = winner.score
        rows.append(ViterbiRow(pos, lattice.text[pos - 1], cands, winner.piece, winner.start, winner.score))
    return rows


def entropy(lattice: Lattice, *, alpha: float = 1.0) -> float:
    """Entropy (nats) of the distribution over segmentations with P(s) ∝ exp(alpha · score(s)):
    log Z − alpha · E[score], the expectation taken edge by edge with the marginals."""
    if not lattice.text:
        return 0.0
    expected = math.fsum(m * e.log_prob for m, e in zip(lattice.marginals(alpha=alpha), lattice.edges))
    return max(0.0, lattice.log_partition(alpha=alpha) - alpha * expected)


@dataclass(frozen=True)
class PathProbability:
    """A segmentation, its score (sum of log-probabilities) and its probability."""

    pieces: tuple[str, ...]
    score: float
    probability: float


def exact_distribution(lattice: Lattice, *, alpha: float = 1.0, nbest_size: int = -1,
                       limit: int = MAX_EXACT_PATHS) -> list[PathProbability]:
    """The distribution :meth:`Lattice.sample` draws from, most likely first: over every
    segmentation (``nbest_size < 0``; only the ``limit`` most likely are listed, their
    probabilities still out of the whole), the ``nbest_size`` best (renormalized), or the Viterbi
    path alone (``nbest_size`` 0 or 1)."""
    if nbest_size in (0, 1):
        best = lattice.viterbi()
        return [PathProbability(tuple(best.pieces), best.log_prob, 1.0)]
    paths = lattice.nbest(nbest_size if nbest_size > 1 else limit)
    if nbest_size > 1:
        log_z = _logsumexp([alpha * p.log_prob for p in paths])
    else:
        log_z = lattice.log_partition(alpha=alpha)
    return [PathProbability(tuple(p.pieces), p.log_prob, math.exp(alpha * p.log_prob - log_z)) for p in paths]


def sample_frequencies(lattice: Lattice, *, draws: int, seed: int, alpha: float = 1.0,
                       nbest_size: int = -1) -> Counter[tuple[str, ...]]:
    """How often each segmentation comes out of ``draws`` seeded samples."""
    if isinstance(draws, bool) or not isinstance(draws, int) or not 1 <= draws <= 1_000_000:
        raise TokenizerError(f"draws must be a whole number from 1 to 1,000,000, got {draws!r}")
    rng = random.Random(seed)
    return Counter(tuple(lattice.sample(rng=rng, alpha=alpha, nbest_size=nbest_size).pieces)
                   for _ in range(draws))


def _logsumexp(values: list[float]) -> float:
    top = max(values)
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


#: The course corpus' words and counts (pre-tokenized, no space marker).
COURSE_WORDS: dict[str, int] = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


@dataclass(frozen=True)
class PruningLoss:
    """What removing one piece costs: the corpus' negative log-likelihood with and without it
    (each word scored by its best segmentation), and the words whose segmentation changes."""

    piece: str
    loss_with: float
    loss_without: float
    changed: tuple[str, ...]

    @property
    def increase(self) -> float:
        return self.loss_without - self.loss_with


def pruning_losses(model: Unigram, words: dict[str, int]) -> list[PruningLoss]:
    """For each piece longer than one character, the loss ``Σ count(w) · −log P(best split of w)``
    with the model as it is and with the piece removed (the others keep their probabilities, as in
    the course), smallest increase first: the pieces Unigram training would prune first.

    >>> losses = pruning_losses(course_model(), COURSE_WORDS)   # the course's numbers
    >>> round(losses[0].loss_with, 1), losses[-1].piece, round(losses[-1].increase, 1)
    (169.8, 'hug', 23.5)
    """
    def loss(m: Unigram) -> tuple[float, dict[str, tuple[str, ...]]]:
        total, splits = 0.0, {}
        for w, c in words.items():
            best = m.lattice(w).viterbi()
            total -= c * best.log_prob
            splits[w] = tuple(best.pieces)
        return total, splits

    base, base_splits = loss(model)
    out = []
    for piece, _ in model.pieces:
        if len(piece) < 2:
            continue
        others = Unigram([(p, s) for p, s in model.pieces if p != piece])
        without, splits = loss(others)
        out.append(PruningLoss(piece, base, without, tuple(w for w in words if splits[w] != base_splits[w])))
    return sorted(out, key=lambda p: (p.increase, p.piece))
