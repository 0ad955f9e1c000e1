"""One lattice as plain JSON-ready data: the Viterbi path, the n best paths with their
probabilities, every edge's marginal and the entropy of the segmentation distribution (what the
``lattice`` command prints and a page can draw).

Probabilities are out of *all* segmentations, weighted by ``exp(alpha * score)`` (``alpha=1``:
the model's own posterior), so the n-best probabilities sum to at most 1.

>>> from tokenizer_core.unigram.explain import course_model
>>> report = lattice_report(course_model().lattice("hug"), nbest=2)
>>> report["viterbi"]["pieces"], [(p["pieces"], round(p["probability"], 3)) for p in report["nbest"]]
(['hug'], [(['hug'], 0.829), (['hu', 'g'], 0.079)])
>>> round(sum(m["marginal"] for m in report["marginals"] if m["start"] == 0), 6)
1.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tokenizer_core.errors import TokenizerError
from tokenizer_core.unigram.explain import entropy
from tokenizer_core.unigram.lattice import Lattice, LatticeEdge

__all__ = ["MAX_NBEST", "check_report_options", "lattice_report"]

#: The most paths a report lists: n-best is an A* search whose heap grows with n.
MAX_NBEST = 1000


def check_report_options(*, nbest: int, alpha: float) -> None:
    """Raise :class:`TokenizerError` for an n-best size or alpha a report cannot use.

    >>> check_report_options(nbest=0, alpha=1.0)
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: nbest must be a whole number from 1 to 1000, got 0
    """
    if isinstance(nbest, bool) or not isinstance(nbest, int) or not 1 <= nbest <= MAX_NBEST:
        raise TokenizerError(f"nbest must be a whole number from 1 to {MAX_NBEST}, got {nbest!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha < 0:
        raise TokenizerError(f"alpha must be a finite number 0 or more, got {alpha!r}")


def lattice_report(lattice: Lattice, *, nbest: int = 5, alpha: float = 1.0) -> dict[str, Any]:
    """``{"text", "viterbi": {"pieces", "score"}, "nbest": [{"pieces", "score", "probability"}],
    "marginals": [{"start", "end", "piece", "log_prob", "marginal", "unknown"}], "entropy"}`` of one
    lattice.

    Pieces are the text they cover: unknown characters are shown as themselves, a run of them
    as one piece like the one unknown token it encodes to (each is an edge of its own among the
    marginals, flagged ``unknown``). Scores are sums of piece log-probabilities (an unknown character counts the
    model's unknown score), as SentencePiece reports them; ``entropy`` is in nats.
    """
    check_report_options(nbest=nbest, alpha=alpha)
    text = lattice.text
    best = lattice.viterbi()
    # Probabilities out of the whole lattice, as explain.exact_distribution gives them; the paths
    # are kept as edges so that unknown characters show their own text, as encode and
    # SentencePiece show them, not the unknown piece's name.
    log_z = lattice.log_partition(alpha=alpha)
    paths = lattice.nbest(nbest)
    marginals = lattice.marginals(alpha=alpha)
    return {
        "text": text,
        "viterbi": {"pieces": _surfaces(text, best.edges), "score": best.log_prob},
        "nbest": [{"pieces": _surfaces(text, p.edges), "score": p.log_prob,
                   "probability": math.exp(alpha * p.log_prob - log_z)} for p in paths],
        "marginals": [{"start": e.start, "end": e.end, "piece": text[e.start:e.end], "log_prob": e.log_prob,
                       "marginal": m, "unknown": e.unknown} for e, m in zip(lattice.edges, marginals)],
        "entropy": entropy(lattice, alpha=alpha),
    }


def _surfaces(text: str, edges: Sequence[LatticeEdge]) -> list[str]:
    """The text of each piece of a path, a run of unknown characters as one piece (one unknown
    token, as the model's encoder and SentencePiece give it)."""
    out: list[str] = []
    run_start = -1
    for i, e in enumerate(edges):
        if e.unknown:
            run_start = e.start if run_start < 0 else run_start
            if i + 1 < len(edges) and edges[i + 1].unknown:
                continue
            out.append(text[run_start:e.end])
            run_start = -1
        else:
            out.append(text[e.start:e.end])
    return out
