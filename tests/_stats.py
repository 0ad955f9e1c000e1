"""Exact segmentation distributions and goodness-of-fit figures for the sampling tests.

The exact distribution is found by walking every path of a lattice edge by edge, not with the
forward-backward sums the sampler itself uses, so a fault there cannot hide in both.

>>> from tokenizer_core.unigram.lattice import Lattice, PieceTrie
>>> lat = Lattice.build("ab", PieceTrie([("a", 0, -1.0), ("b", 1, -1.0), ("ab", 2, -1.0)]))
>>> {k: round(v, 3) for k, v in exact_distribution(lat, alpha=1.0).items()}
{('a', 'b'): 0.269, ('ab',): 0.731}
>>> tv_distance({("ab",): 3, ("a", "b"): 1}, {("ab",): 0.75, ("a", "b"): 0.25})
0.0
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping

from tokenizer_core.unigram.lattice import Lattice


def segmentations(lattice: Lattice) -> dict[tuple[str, ...], float]:
    """Every segmentation of the lattice's text with its score (sum of its edges' log-probabilities)."""
    out: dict[tuple[str, ...], float] = {}
    end = len(lattice.text)

    def walk(pos: int, pieces: tuple[str, ...], score: float) -> None:
        if pos == end:
            out[pieces] = score
            return
        for e in lattice.edges_from(pos):
            walk(e.end, (*pieces, e.piece), score + e.log_prob)

    walk(0, (), 0.0)
    return out


def exact_distribution(lattice: Lattice, *, alpha: float) -> dict[tuple[str, ...], float]:
    """SentencePiece's sampling distribution over whole segmentations: p(path) ∝ exp(alpha * score)."""
    scores = segmentations(lattice)
    top = max(scores.values())
    weights = {k: math.exp(alpha * (s - top)) for k, s in scores.items()}
    z = math.fsum(weights.values())
    return {k: w / z for k, w in weights.items()}


def tv_distance(counts: Mapping[Hashable, int], probs: Mapping[Hashable, float]) -> float:
    """Total variation distance between the empirical distribution of ``counts`` and ``probs``."""
    n = sum(counts.values())
    keys = set(counts) | set(probs)
    return 0.5 * math.fsum(abs(counts.get(k, 0) / n - probs.get(k, 0.0)) for k in keys)


def chi_square_fails(counts: Mapping[Hashable, int], probs: Mapping[Hashable, float], *, z: float = 3.09) -> bool:
    """Whether Pearson's chi-square test rejects ``probs`` at the one-sided normal quantile ``z``
    (3.09: the 0.001 tail). Outcomes expected fewer than 5 times share one bin, as the test needs;
    an outcome ``probs`` gives no probability at all always fails."""
    if any(probs.get(k, 0.0) == 0.0 for k in counts):
        return True
    n = sum(counts.values())
    big = [k for k, p in probs.items() if n * p >= 5]
    bins = [(counts.get(k, 0), n * probs[k]) for k in big]
    rest_expected = n - math.fsum(e for _, e in bins)
    if rest_expected > 1e-9:
        bins.append((n - sum(o for o, _ in bins), rest_expected))
    stat = math.fsum((o - e) ** 2 / e for o, e in bins)
    df = max(len(bins) - 1, 1)
    a = 2.0 / (9.0 * df)  # Wilson-Hilferty: the chi-square quantile from the normal one
    return stat > df * (1.0 - a + z * math.sqrt(a)) ** 3
