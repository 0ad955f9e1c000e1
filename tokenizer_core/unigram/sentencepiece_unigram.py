"""SentencePiece's Unigram encoder, exactly as ``sentencepiece`` segments a normalized text.

Where it differs from our :class:`~tokenizer_core.unigram.model.Unigram` (which follows
Hugging Face ``tokenizers``):

* the best path runs over the whole normalized text, not word by word, and adds scores in
  32-bit floats as SentencePiece does, rounding after every addition; exact and
  near-exact ties therefore fall the same way;
* user-defined pieces are matched in raw text with a score of their own that wins over
  ordinary pieces: 0.1 for each UTF-8 byte after the first (measured against
  ``sentencepiece``; the score in the file is ignored);
* control, unknown, byte and unused pieces are never matched in text;
* unknown characters score 10 below the least likely ordinary piece and only where no
  one-character piece starts; a run of them is one unknown token, or with byte fallback the
  byte pieces of its UTF-8 bytes, where a byte whose piece the model lacks becomes the
  unknown token.

Pieces carry SentencePiece's types: ``normal``, ``unknown``, ``control``,
``user_defined``, ``unused`` and ``byte``.

>>> m = SentencePieceUnigram([("<unk>", 0.0, "unknown"), ("<s>", 0.0, "control"), ("▁", -2.0, "normal"),
...                           ("▁hug", -3.0, "normal"), ("s", -2.5, "normal"), ("h", -4.0, "normal")])
>>> [(t.text, t.id) for t in m.tokenize("▁hugs▁<x>")]
[('▁hug', 3), ('s', 4), ('▁', 2), ('<x>', 0)]
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional

from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.model_base import ScoredPieceLookup
from tokenizer_core.registry import register
from tokenizer_core.types import Token
from tokenizer_core.unigram.lattice import Lattice, PieceTrie
from tokenizer_core.unigram.segmentation import backtrack

if TYPE_CHECKING:
    from tokenizer_core.types import Sampling

PIECE_TYPES = ("normal", "unknown", "control", "user_defined", "unused", "byte")
UNK_PENALTY = 10.0
_CACHE_LIMIT = 50_000  # normalized texts remembered by tokenize(); cleared wholesale when full
def as_float32(x: float) -> float:
    """``x`` rounded to the nearest 32-bit float (the precision SentencePiece adds in).

    >>> as_float32(0.1)
    0.10000000149011612
    """
    # A new one-slot array each call: a module-level one would be shared by the server's threads,
    # and another thread's store could land between this store and this read.
    return array("f", (x,))[0]


def user_defined_score(piece: str) -> float:
    """The score a user-defined piece gets in SentencePiece's search: 0.1 per byte after the first.

    >>> user_defined_score("<sep>"), user_defined_score("x")
    (0.4000000059604645, 0.0)
    """
    return as_float32(0.1 * (len(piece.encode("utf-8")) - 1))


def check_sentencepiece_vocab(vocab: Sequence[Any], what: str) -> list[tuple[str, float, str]]:
    """Validate ``[(piece, score, type), ...]``: unique non-empty pieces, finite scores, known types,
    exactly one unknown piece. Shared by the Unigram and BPE encoders' constructors."""
    out: list[tuple[str, float, str]] = []
    seen: set[str] = set()
    for entry in vocab:
        if not isinstance(entry, (tuple, list)) or len(entry) != 3:
            raise TokenizerError(f"{what} vocab entries must be (piece, score, type) triples, got {entry!r:.60}")
        piece, score, kind = entry
        if not isinstance(piece, str) or not piece:
            raise TokenizerError(f"{what} pieces must be non-empty strings, got {piece!r:.40}")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise TokenizerError(f"piece {piece!r} has score {score!r}; scores must be finite numbers")
        if kind not in PIECE_TYPES:
            raise TokenizerError(f"piece {piece!r} has type {kind!r}; expected one of {', '.join(PIECE_TYPES)}")
        if piece in seen:
            raise TokenizerError(f"piece {piece!r} appears twice in the {what} vocabulary")
        seen.add(piece)
        out.append((piece, float(score), kind))
    unknown = [p for p, _, k in out if k == "unknown"]
    if len(unknown) != 1:
        raise TokenizerError(f"a {what} model needs exactly one unknown piece (like <unk>), found {len(unknown)}")
    return out


@register("model", "SentencePieceUnigram")
class SentencePieceUnigram(ScoredPieceLookup):
    """A SentencePiece Unigram model: ``vocab`` is ``[(piece, score, type), ...]`` in id order."""

    type_name = "SentencePieceUnigram"

    def __init__(self, vocab: Sequence[tuple[str, float, str]], *, byte_fallback: bool = False) -> None:
        self._vocab = check_sentencepiece_vocab(vocab, "SentencePiece Unigram")
        self._ids = {p: i for i, (p, _, _) in enumerate(self._vocab)}
        self.byte_fallback = bool(byte_fallback)
        self.unk_id = next(i for i, (_, _, k) in enumerate(self._vocab) if k == "unknown")
        # Pieces never produced by matching text (the pipeline must not match them either).
        self.special_tokens = [p for p, _, k in self._vocab if k in ("unknown", "control", "unused")]
        normal = [s for _, s, k in self._vocab if k == "normal"]
        self.unk_score = as_float32((min(normal) if normal else 0.0) - UNK_PENALTY)
        self._byte_ids = {b: self._ids.get(f"<0x{b:02X}>", self.unk_id) for b in range(256)}
        self._trie: dict[Any, Any] = {}
        self.max_piece_length = 0
        for i, (piece, score, kind) in enumerate(self._vocab):
            if kind not in ("normal", "user_defined"):
                continue
            node = self._trie
            for ch in piece:
                node = node.setdefault(ch, {})
            node[None] = (i, user_defined_score(piece) if kind == "user_defined" else as_float32(score))
            self.max_piece_length = max(self.max_piece_length, len(piece))
        self._cache: dict[str, list[Token]] = {}
        self._lattice_trie: Any = None

    # ------------------------------------------------------------------ encoding
    def viterbi(self, text: str, *, base: float = 0.0) -> list[tuple[int, int, int]]:
        """Best path as ``(start, end, id)`` triples; id ``-1`` marks an unknown character.

        Path scores are 32-bit floats, rounded after each addition; on equal scores the
        piece that starts earlier wins (the first one found). ``base`` is the score the path
        starts from: a text's part after a forced cut starts from the score before the cut, and
        the rounding, so the choice between near-equal paths, depends on it."""
        return self._viterbi(text, base, None)

    def viterbi_margin(self, text: str) -> tuple[list[tuple[int, int, int]], float]:
        """:meth:`viterbi` from a score of 0, and the smallest gap between a winning and a losing
        candidate score met on the way (``inf`` when no choice was made): a path is the best from
        any other ``base`` as long as the rounding there cannot close that gap."""
        gap = [math.inf]
        return self._viterbi(text, 0.0, gap), gap[0]

    # Mirrored in C by kernels/src/chunks_viterbi.c (a chunk table's near ties): change both together.
    def _viterbi(self, text: str, start_score: float, gap: Optional[list[float]]) -> list[tuple[int, int, int]]:
        n = len(text)
        best = [-math.inf] * (n + 1)
        best[0] = as_float32(start_score)
        back_start = [0] * (n + 1)
        back_id = [-1] * (n + 1)
        root, maxlen, unk_score = self._trie, self.max_piece_length, self.unk_score
        f32 = array("f", [0.0])  # this call's own (storing a sum in it rounds it to float32)
        for s in range(n):
            base = best[s]
            node = root
            single = False
            e = s
            for ch in text[s:s + maxlen]:
                e += 1
                node = node.get(ch)
                if node is None:
                    break
                hit = node.get(None)
                if hit is not None:
                    if e == s + 1:
                        single = True
                    # Two 32-bit floats add exactly in a double, and rounding to float32 never
                    # lifts a sum past a float32 it was below: only a sum above the best so far
                    # needs rounding (storing it in a float32 array rounds as C's float addition).
                    score = base + hit[1]
                    if gap is not None and best[e] > -math.inf:
                        gap[0] = min(gap[0], abs(score - best[e]))
                    if score > best[e]:
                        f32[0] = score
                        score = f32[0]
                        if score > best[e]:
                            best[e], back_start[e], back_id[e] = score, s, hit[0]
            if not single:
                f32[0] = base + unk_score
                score = f32[0]
                if gap is not None and best[s + 1] > -math.inf:
                    gap[0] = min(gap[0], abs(score - best[s + 1]))
                if score > best[s + 1]:
                    best[s + 1], back_start[s + 1], back_id[s + 1] = score, s, -1
        return backtrack(back_start, back_id, n)

    def path_tokens(self, text: str, path: list[tuple[int, int, int]]) -> list[Token]:
        """The tokens of a path of :meth:`viterbi` (see :meth:`tokenize`)."""
        return self._path_tokens(text, path)

    def matched_pieces(self) -> list[tuple[str, int, float]]:
        """``(piece, id, score)`` of every piece the Viterbi matches in text (normal and user-defined),
        with the float32 score a path adds for it; where two share a text, the later id, as the
        Viterbi's trie keeps it, comes first."""
        out = [(piece, i, user_defined_score(piece) if kind == "user_defined" else as_float32(score))
               for i, (piece, score, kind) in enumerate(self._vocab) if kind in ("normal", "user_defined")]
        return out[::-1]

    def byte_ids(self) -> Optional[list[int]]:
        """With byte fallback, each byte's token id (the unknown id for a byte without one); else None."""
        return [self._byte_ids[b] for b in range(256)] if self.byte_fallback else None

    def piece_score(self, piece_id: int) -> float:
        """The score a path adds for a piece (an unknown character's for the unknown id, and for
        -1, which marks an unknown character in a path of :meth:`viterbi`)."""
        if piece_id == self.unk_id or piece_id == -1:
            return self.unk_score
        piece, score, kind = self._vocab[piece_id]
        return user_defined_score(piece) if kind == "user_defined" else as_float32(score)

    def _unknown(self, text: str, start: int, end: int) -> list[Token]:
        surface = text[start:end]
        if not self.byte_fallback:
            return [Token(self.unk_id, surface, (start, end))]
        # Every byte token carries the span of the whole unknown run, as in tokenizers.
        ids = [self._byte_ids[b] for b in surface.encode("utf-8")]
        return [Token(i, self._vocab[i][0], (start, end)) for i in ids]

    def tokenize(self, text: str) -> list[Token]:
        """Tokens of a normalized text; offsets are positions inside ``text``."""
        hit = self._cache.get(text)
        if hit is not None:
            return list(hit)
        tokens = self._path_tokens(text, self.viterbi(text))
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[text] = tokens
        return list(tokens)

    def tokenize_sampled(self, text: str, *, rng: random.Random, sampling: "Sampling") -> list[Token]:
        """A segmentation drawn from :meth:`lattice` (subword regularisation) with
        ``sampling.alpha`` and ``sampling.nbest_size`` meaning what they mean in SentencePiece.

        >>> from tokenizer_core.types import Sampling
        >>> m = SentencePieceUnigram([("<unk>", 0.0, "unknown"), ("▁a", -1.0, "normal"), ("▁", -1.0, "normal"),
        ...                           ("a", -1.0, "normal")])
        >>> [t.text for t in m.tokenize_sampled("▁a", rng=random.Random(0), sampling=Sampling(nbest_size=1))]
        ['▁a']
        """
        if sampling.dropout:
            raise TokenizerError("dropout is BPE-dropout and a Unigram model has no merges to drop; "
                                 "sample with alpha and nbest_size instead")
        seg = self.lattice(text).sample(rng=rng, alpha=sampling.alpha, nbest_size=sampling.nbest_size)
        return self._path_tokens(text, [(e.start, e.end, -1 if e.unknown else e.id) for e in seg.edges])

    def _path_tokens(self, text: str, path: list[tuple[int, int, int]]) -> list[Token]:
        """Tokens of a best or sampled path: a run of unknown characters is one unknown token
        (or its bytes, with byte fallback)."""
        tokens: list[Token] = []
        run = -1  # start of the current run of unknown characters
        for k, (s, e, tid) in enumerate(path):
            if tid < 0:
                if run < 0:
                    run = s
                if k + 1 == len(path) or path[k + 1][2] >= 0:
                    tokens.extend(self._unknown(text, run, e))
                    run = -1
                continue
            tokens.append(Token(tid, self._vocab[tid][0], (s, e)))
        return tokens

    def lattice(self, text: str) -> Lattice:
        """Every piece SentencePiece may match at every position of a normalized ``text``
        (normal and user-defined pieces with the scores :meth:`viterbi` adds), unknown edges
        where no one-character piece starts: what its n-best search and sampling walk.

        >>> m = SentencePieceUnigram([("<unk>", 0.0, "unknown"), ("▁a", -1.0, "normal"), ("a", -2.0, "normal")])
        >>> [(e.piece, e.log_prob) for e in m.lattice("▁a?").edges]
        [('<unk>', -12.0), ('▁a', -1.0), ('a', -2.0), ('<unk>', -12.0)]
        """
        if self._lattice_trie is None:  # built on first use: plain encoding never needs it
            self._lattice_trie = PieceTrie(
                (p, i, user_defined_score(p) if k == "user_defined" else as_float32(s))
                for i, (p, s, k) in enumerate(self._vocab) if k in ("normal", "user_defined"))
        return Lattice.build(text, self._lattice_trie, unk_id=self.unk_id, unk_piece=self._vocab[self.unk_id][0],
                             unk_log_prob=self.unk_score)

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type_name, "vocab": [list(v) for v in self._vocab], "byte_fallback": self.byte_fallback}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SentencePieceUnigram":
        vocab = data.get("vocab")
        if not isinstance(vocab, list):
            raise FormatError("a SentencePieceUnigram model needs a \"vocab\" list of [piece, score, type] triples")
        return cls([tuple(v) if isinstance(v, list) else v for v in vocab],
                   byte_fallback=bool(data.get("byte_fallback", False)))

    def to_hf(self) -> dict[str, Any]:
        """The nearest ``tokenizers`` model: a Unigram over the same pieces and scores."""
        return {"type": "Unigram", "unk_id": self.unk_id, "vocab": [[p, s] for p, s, _ in self._vocab],
                "byte_fallback": self.byte_fallback}

    def __repr__(self) -> str:
        return f"SentencePieceUnigram(vocab_size={self.vocab_size}, byte_fallback={self.byte_fallback})"
