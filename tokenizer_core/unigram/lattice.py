"""Unigram lattices: every way to cut one text into vocabulary pieces, as plain data.

Nodes are the positions ``0..len(text)`` between characters; an edge
``(start, end, piece, id, log_prob)`` says that ``text[start:end]`` is the
vocabulary piece ``piece`` with that log-probability. A segmentation is a path
of edges from node 0 to node ``len(text)`` and its score is the sum of its
edges' log-probabilities (the log-probability of the piece sequence under the
unigram language model). On top of that the lattice gives the Viterbi path,
the n best paths, forward-backward marginals of every edge, the probability of
any segmentation, and sampling of segmentations as in SentencePiece's subword
regularisation (Kudo 2018).

Positions no single-character piece covers get an *unknown* edge of length one,
so every text has at least one segmentation.

>>> trie = PieceTrie([("a", 0, -1.0), ("b", 1, -1.5), ("ab", 2, -2.0)])
>>> lat = Lattice.build("ab", trie)
>>> [(e.start, e.end, e.piece) for e in lat.edges]
[(0, 1, 'a'), (0, 2, 'ab'), (1, 2, 'b')]
>>> lat.viterbi().pieces
['ab']
>>> [(p.pieces, p.log_prob) for p in lat.nbest(2)]
[(['ab'], -2.0), (['a', 'b'], -2.5)]
>>> round(sum(lat.marginals()[i] for i in (0, 1)), 6)   # the edges leaving node 0
1.0
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from tokenizer_core.errors import TokenizerError
from tokenizer_core.unigram.segmentation import LatticeEdge, Segmentation
from tokenizer_core.unigram.trie import PieceTrie

# Re-exported: the model, tests and the app import the trie and path records from here.
__all__ = ["UNK_PENALTY", "Lattice", "LatticeEdge", "PieceTrie", "Segmentation"]

#: Log-probability of unknown characters is this much below the least likely piece
#: (the value SentencePiece and Hugging Face ``tokenizers`` use).
UNK_PENALTY = 10.0


def _logsumexp(values: Sequence[float]) -> float:
    m = max(values)
    if m == -math.inf:
        return -math.inf
    return m + math.log(math.fsum(math.exp(v - m) for v in values))


@dataclass(frozen=True)
class Lattice:
    """All vocabulary pieces over one text. Build it with :meth:`build`.

    ``edges`` are sorted by ``(start, end)``; results that are one number per edge
    (such as :meth:`marginals`) follow that order.
    """

    text: str
    edges: tuple[LatticeEdge, ...]
    _starting: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    _ending: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.text)
        starting: list[list[int]] = [[] for _ in range(n + 1)]
        ending: list[list[int]] = [[] for _ in range(n + 1)]
        for i, e in enumerate(self.edges):
            if not 0 <= e.start < e.end <= n:
                raise TokenizerError(f"edge {e.piece!r} spans {e.start}..{e.end}, outside the text of length {n}")
            if not e.unknown and self.text[e.start:e.end] != e.piece:
                raise TokenizerError(f"edge {e.piece!r} does not match the text {self.text[e.start:e.end]!r}")
            starting[e.start].append(i)
            ending[e.end].append(i)
        for pos in range(n):
            if not starting[pos]:
                raise TokenizerError(f"no edge starts at position {pos}; add an unknown edge for it")
        # Edges are sorted by (start, end), so ending[pos] lists starts in increasing order:
        # the Viterbi tie-break below (earliest start wins) relies on it, as SentencePiece does.
        object.__setattr__(self, "_starting", tuple(tuple(s) for s in starting))
        object.__setattr__(self, "_ending", tuple(tuple(s) for s in ending))

    @classmethod
    def build(
        cls,
        text: str,
        trie: PieceTrie,
        *,
        unk_id: int = -1,
        unk_piece: Optional[str] = None,
        unk_log_prob: Optional[float] = None,
    ) -> "Lattice":
        """Every piece of ``trie`` at every position of ``text``, plus unknown edges where needed.

        An unknown edge (id ``unk_id``, text ``unk_piece`` or the character itself) is
        added at each position that no single-character piece covers; its
        log-probability defaults to the trie's lowest minus :data:`UNK_PENALTY`.

        >>> lat = Lattice.build("a?", PieceTrie([("a", 1, -1.0)]), unk_id=0)
        >>> [(e.piece, e.id, e.log_prob, e.unknown) for e in lat.edges]
        [('a', 1, -1.0, False), ('?', 0, -11.0, True)]
        """
        if unk_log_prob is None:
            unk_log_prob = trie.min_log_prob - UNK_PENALTY
        edges: list[LatticeEdge] = []
        for start in range(len(text)):
            has_single = False
            for end, pid, lp in trie.matches(text, start):
                has_single = has_single or end == start + 1
                edges.append(LatticeEdge(start, end, text[start:end], pid, lp))
            if not has_single:
                edges.append(LatticeEdge(start, start + 1, unk_piece or text[start], unk_id, unk_log_prob, True))
        edges.sort(key=lambda e: (e.start, e.end))
        return cls(text, tuple(edges))

    # ------------------------------------------------------------------ structure
    @property
    def nodes(self) -> list[int]:
        """The positions ``0..len(text)``."""
        return list(range(len(self.text) + 1))

    def edges_from(self, pos: int) -> list[LatticeEdge]:
        """Edges starting at node ``pos`` (shortest first)."""
        return [self.edges[i] for i in self._starting[pos]]

    def edges_to(self, pos: int) -> list[LatticeEdge]:
        """Edges ending at node ``pos`` (earliest start first)."""
        return [self.edges[i] for i in self._ending[pos]]

    def __len__(self) -> int:
        return len(self.edges)

    # ------------------------------------------------------------------- best paths
    def _path(self, back: list[int], end: int) -> tuple[LatticeEdge, ...]:
        out = []
        pos = end
        while pos > 0:
            e = self.edges[back[pos]]
            out.append(e)
            pos = e.start
        return tuple(reversed(out))

    def viterbi(self) -> Segmentation:
        """The most likely segmentation; on exact ties the edge starting earliest wins
        (as in SentencePiece and Hugging Face ``tokenizers``).
        """
        n = len(self.text)
        best = [-math.inf] * (n + 1)
        back = [-1] * (n + 1)
        best[0] = 0.0
        for pos in range(n):
            base = best[pos]
            for i in self._starting[pos]:
                e = self.edges[i]
                score = base + e.log_prob
                # Strict ">" keeps the first (earliest-start) candidate on ties.
                if back[e.end] < 0 or score > best[e.end]:
                    best[e.end], back[e.end] = score, i
        return Segmentation(self._path(back, n), best[n] if n else 0.0)

    def _best_to_end(self) -> list[float]:
        """Best score from each node to the end (the exact A* heuristic of :meth:`nbest`)."""
        n = len(self.text)
        h = [-math.inf] * (n + 1)
        h[n] = 0.0
        for pos in range(n - 1, -1, -1):
            h[pos] = max(self.edges[i].log_prob + h[self.edges[i].end] for i in self._starting[pos])
        return h

    def nbest(self, n: int) -> list[Segmentation]:
        """The ``n`` most likely segmentations, best first (fewer if the lattice has fewer).

        A* search from node 0 with the exact best-completion score as heuristic, so
        complete paths come out in order of score.
        """
        if not isinstance(n, int) or n < 1:
            raise TokenizerError(f"nbest needs a positive number of segmentations, got {n!r}")
        length = len(self.text)
        if length == 0:
            return [Segmentation((), 0.0)]
        h = self._best_to_end()
        # Heap entries: (-priority, -position, counter, position, score, path). Preferring
        # deeper partial paths on equal priority finishes paths quickly when scores tie.
        heap: list[tuple[float, int, int, int, float, tuple[int, ...]]] = [(-h[0], 0, 0, 0, 0.0, ())]
        counter = 1
        out: list[Segmentation] = []
        while heap and len(out) < n:
            _, _, _, pos, score, path = heapq.heappop(heap)
            if pos == length:
                out.append(Segmentation(tuple(self.edges[i] for i in path), score))
                continue
            for i in self._starting[pos]:
                e = self.edges[i]
                g = score + e.log_prob
                heapq.heappush(heap, (-(g + h[e.end]), -e.end, counter, e.end, g, path + (i,)))
                counter += 1
        return out

    # -------------------------------------------------------------- probabilities
    def forward(self, *, alpha: float = 1.0) -> list[float]:
        """Log of the summed ``exp(alpha * score)`` of all partial paths from node 0 to each node."""
        n = len(self.text)
        fwd = [-math.inf] * (n + 1)
        fwd[0] = 0.0
        for pos in range(1, n + 1):
            idx = self._ending[pos]
            if idx:
                fwd[pos] = _logsumexp([fwd[self.edges[i].start] + alpha * self.edges[i].log_prob for i in idx])
        return fwd

    def backward(self, *, alpha: float = 1.0) -> list[float]:
        """Log of the summed ``exp(alpha * score)`` of all partial paths from each node to the end."""
        n = len(self.text)
        bwd = [-math.inf] * (n + 1)
        bwd[n] = 0.0
        for pos in range(n - 1, -1, -1):
            bwd[pos] = _logsumexp([alpha * self.edges[i].log_prob + bwd[self.edges[i].end] for i in self._starting[pos]])
        return bwd

    def log_partition(self, *, alpha: float = 1.0) -> float:
        """``log Z``: log of the summed ``exp(alpha * score)`` over every segmentation."""
        return self.forward(alpha=alpha)[len(self.text)]

    def marginals(self, *, alpha: float = 1.0) -> list[float]:
        """Probability that each edge (in :attr:`edges` order) is on the path, with paths
        weighted by ``exp(alpha * score)`` (``alpha=1``: the model's own posterior).
        """
        fwd, bwd = self.forward(alpha=alpha), self.backward(alpha=alpha)
        z = fwd[len(self.text)]
        return [math.exp(fwd[e.start] + alpha * e.log_prob + bwd[e.end] - z) for e in self.edges]

    def boundary_marginals(self, *, alpha: float = 1.0) -> list[float]:
        """Probability that a token boundary falls at each node (1.0 at both ends)."""
        fwd, bwd = self.forward(alpha=alpha), self.backward(alpha=alpha)
        z = fwd[len(self.text)]
        return [math.exp(f + b - z) for f, b in zip(fwd, bwd)]

    def _edges_of(self, segmentation: Union[Segmentation, Sequence[str]]) -> tuple[LatticeEdge, ...]:
        """The lattice edges of a segmentation given as pieces (or a :class:`Segmentation`)."""
        pieces = segmentation.pieces if isinstance(segmentation, Segmentation) else list(segmentation)
        out = []
        pos = 0
        for piece in pieces:
            match = None
            for i in self._starting[pos] if pos < len(self.text) else ():
                e = self.edges[i]
                if e.piece == piece or (e.unknown and self.text[e.start:e.end] == piece):
                    match = e
                    break
            if match is None:
                raise TokenizerError(
                    f"{pieces!r} is not a segmentation of {self.text!r}: no piece {piece!r} at position {pos}"
                )
            out.append(match)
            pos = match.end
        if pos != len(self.text):
            raise TokenizerError(f"{pieces!r} covers only {pos} of the {len(self.text)} characters of {self.text!r}")
        return tuple(out)

    def score(self, segmentation: Union[Segmentation, Sequence[str]]) -> float:
        """Sum of the log-probabilities of a segmentation's pieces (its unigram log-probability)."""
        return math.fsum(e.log_prob for e in self._edges_of(segmentation))

    def log_probability(self, segmentation: Union[Segmentation, Sequence[str]], *, alpha: float = 1.0) -> float:
        """Log-probability of a segmentation among all segmentations of the text:
        ``alpha * score - log Z(alpha)``.
        """
        return alpha * self.score(segmentation) - self.log_partition(alpha=alpha)

    def probability(self, segmentation: Union[Segmentation, Sequence[str]], *, alpha: float = 1.0) -> float:
        """``exp`` of :meth:`log_probability`."""
        return math.exp(self.log_probability(segmentation, alpha=alpha))

    # ------------------------------------------------------------------- sampling
    def sample(self, *, rng: random.Random, alpha: float = 1.0, nbest_size: int = -1) -> Segmentation:
        """Draw one segmentation, as SentencePiece's subword regularisation does.

        ``nbest_size < 0``: from all segmentations, each with probability proportional to
        ``exp(alpha * score)`` (forward filtering, backward sampling); ``nbest_size`` 0 or 1:
        the Viterbi path; ``nbest_size > 1``: from the ``nbest_size`` best, weighted the same
        way. ``alpha = 0`` makes the choice uniform; large ``alpha`` approaches Viterbi.
        """
        if alpha < 0 or not math.isfinite(alpha):
            raise TokenizerError(f"alpha must be a finite number 0 or more, got {alpha}")
        n = len(self.text)
        if nbest_size in (0, 1) or n == 0:
            return self.viterbi()
        if nbest_size > 1:
            cands = self.nbest(nbest_size)
            z = _logsumexp([alpha * c.log_prob for c in cands])
            return cands[_draw(rng, [math.exp(alpha * c.log_prob - z) for c in cands])]
        fwd = self.forward(alpha=alpha)
        path: list[LatticeEdge] = []
        pos = n
        while pos > 0:
            idx = self._ending[pos]
            weights = [math.exp(fwd[self.edges[i].start] + alpha * self.edges[i].log_prob - fwd[pos]) for i in idx]
            e = self.edges[idx[_draw(rng, weights)]]
            path.append(e)
            pos = e.start
        path.reverse()
        return Segmentation(tuple(path), math.fsum(e.log_prob for e in path))

    # ---------------------------------------------------------------------- views
    def to_dict(self, *, nbest: int = 0, alpha: float = 1.0) -> dict[str, Any]:
        """Everything the app draws: nodes, edges with marginals, Viterbi path, optional n-best."""
        marg = self.marginals(alpha=alpha)
        out: dict[str, Any] = {
            "text": self.text,
            "nodes": self.nodes,
            "edges": [{**e.to_dict(), "marginal": m} for e, m in zip(self.edges, marg)],
            "viterbi": self.viterbi().to_dict(),
            "log_partition": self.log_partition(alpha=alpha),
            "alpha": alpha,
        }
        if nbest:
            out["nbest"] = [s.to_dict() for s in self.nbest(nbest)]
        return out


def _draw(rng: random.Random, weights: Sequence[float]) -> int:
    """Index drawn with probability proportional to ``weights`` (one ``rng.random()`` call)."""
    total = math.fsum(weights)
    r = rng.random() * total
    acc = 0.0
    for i, w in enumerate(weights):
        acc += w
        if r < acc:
            return i
    # Rounding can leave r a hair above the running sum: fall back to the last positive weight.
    return max(i for i, w in enumerate(weights) if w > 0)
