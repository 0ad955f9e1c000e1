"""SentencePiece's BPE encoder: merges chosen by piece score, not by merge rank.

A SentencePiece BPE model has no merge list. To encode a normalized text, ``sentencepiece``
starts from single characters (a user-defined symbol is one frozen symbol that never
merges) and repeatedly joins the adjacent pair whose concatenation is the vocabulary piece
with the highest score, the leftmost one on equal scores, until no adjacent pair forms a
piece. A merge that makes an *unused* piece is undone at the end, back into the two
symbols it joined. Symbols that are not pieces are unknown: a run of them becomes one unknown
token, or with byte fallback the byte pieces of its UTF-8 bytes (a byte whose piece the model
lacks becoming the unknown token).

Our :class:`~tokenizer_core.bpe.model.BPE` follows ``tokenizers`` instead (merge ranks,
word by word), hence this separate encoder.

>>> m = SentencePieceBPE([("<unk>", 0.0, "unknown"), ("▁", -1.0, "normal"), ("a", -2.0, "normal"),
...                       ("b", -3.0, "normal"), ("ab", -4.0, "normal"), ("▁a", -5.0, "normal"),
...                       ("▁ab", -6.0, "normal")])
>>> [t.text for t in m.tokenize("▁ab▁aab")]
['▁ab', '▁a', 'ab']
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Collection, Sequence
from typing import Any, Optional

import regex

from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.model_base import ScoredPieceLookup
from tokenizer_core.registry import register
from tokenizer_core.types import CACHE_LIMIT, Token

PIECE_TYPES = ("normal", "unknown", "control", "user_defined", "unused", "byte")
SPACE_SYMBOL = "\u2581"
_MERGEABLE = ("normal", "user_defined", "unused")


def _check_vocab(vocab: Sequence[Any]) -> list[tuple[str, float, str]]:
    out: list[tuple[str, float, str]] = []
    seen: set[str] = set()
    for entry in vocab:
        if not isinstance(entry, (tuple, list)) or len(entry) != 3:
            raise TokenizerError(f"SentencePiece BPE vocab entries must be (piece, score, type), got {entry!r:.60}")
        piece, score, kind = entry
        if not isinstance(piece, str) or not piece or piece in seen:
            raise TokenizerError(f"SentencePiece BPE pieces must be distinct non-empty strings, got {piece!r:.40}")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise TokenizerError(f"piece {piece!r} has score {score!r}; scores must be finite numbers")
        if kind not in PIECE_TYPES:
            raise TokenizerError(f"piece {piece!r} has type {kind!r}; expected one of {', '.join(PIECE_TYPES)}")
        seen.add(piece)
        out.append((piece, float(score), kind))
    if sum(k == "unknown" for _, _, k in out) != 1:
        raise TokenizerError("a SentencePiece BPE model needs exactly one unknown piece (like <unk>)")
    return out


def chunk_mode(pieces: Collection[str]) -> Optional[str]:
    """Where texts may be cut into independent chunks without changing the result.

    If no piece has "▁" after its first character, no merge ever joins across a "▁" that
    starts a symbol, so cutting before each "▁" is exact (and lets chunks be cached); the
    mirror case cuts after each "▁" (``treat_whitespace_as_suffix`` models). Models with pieces
    of several "▁" (Llama's and Mistral's, for indentation) but none with "▁" after another
    character are cut before each run of "▁" instead ("before_run"; mirror: "after_run"). Without
    a "▁" piece a run of unknown symbols could run across the cut, so nothing is cut.

    >>> chunk_mode(["▁", "▁a", "a"]), chunk_mode(["▁", "▁▁", "▁a"]), chunk_mode(["▁", "a▁"])
    ('before', 'before_run', 'after')
    """
    if SPACE_SYMBOL not in pieces:
        return None
    if all(SPACE_SYMBOL not in p[1:] for p in pieces):
        return "before"
    if all(SPACE_SYMBOL not in p[:-1] for p in pieces):
        return "after"
    if not any(_RUN_START.search(p) for p in pieces):  # no "x▁": nothing joins a word to the next run
        return "before_run"
    if not any(_RUN_END.search(p) for p in pieces):  # no "▁x"
        return "after_run"
    return None


_RUN_START = regex.compile(f"(?<=[^{SPACE_SYMBOL}]){SPACE_SYMBOL}")  # a "▁" after another character
_RUN_END = regex.compile(f"{SPACE_SYMBOL}(?=[^{SPACE_SYMBOL}])")  # a "▁" before another character


@register("model", "SentencePieceBPE")
class SentencePieceBPE(ScoredPieceLookup):
    """A SentencePiece BPE model: ``vocab`` is ``[(piece, score, type), ...]`` in id order."""

    type_name = "SentencePieceBPE"

    def __init__(self, vocab: Sequence[tuple[str, float, str]], *, byte_fallback: bool = False) -> None:
        self._vocab = _check_vocab(vocab)
        self._ids = {p: i for i, (p, _, _) in enumerate(self._vocab)}
        self.byte_fallback = bool(byte_fallback)
        self.unk_id = next(i for i, (_, _, k) in enumerate(self._vocab) if k == "unknown")
        self.special_tokens = [p for p, _, k in self._vocab if k in ("unknown", "control", "unused")]
        # piece -> (id, score, unused?) for everything a merge may form
        self._mergeable = {p: (i, s, k == "unused") for i, (p, s, k) in enumerate(self._vocab) if k in _MERGEABLE}
        self._user_defined: dict[str, list[str]] = {}
        for p, _, k in sorted(self._vocab, key=lambda v: -len(v[0])):
            if k == "user_defined":
                self._user_defined.setdefault(p[0], []).append(p)
        self._byte_ids = {b: self._ids.get(f"<0x{b:02X}>", self.unk_id) for b in range(256)}
        self._chunks = chunk_mode(self._mergeable.keys())
        self._cache: dict[str, list[Token]] = {}

    # ------------------------------------------------------------------ encoding
    def _symbols(self, text: str) -> tuple[list[int], list[bool]]:
        """Start of each initial symbol (one character or a frozen user-defined piece), then len(text)."""
        starts: list[int] = []
        frozen: list[bool] = []
        i, n, user = 0, len(text), self._user_defined
        while i < n:
            starts.append(i)
            sym = next((p for p in user.get(text[i], ()) if text.startswith(p, i)), None) if user else None
            frozen.append(sym is not None)
            i += len(sym) if sym is not None else 1
        starts.append(n)
        return starts, frozen

    def merge(self, text: str) -> list[tuple[int, int]]:
        """Spans of the symbols left when no more merges apply (before unused pieces are undone)."""
        starts, frozen = self._symbols(text)
        count = len(starts) - 1
        end = starts[1:]
        nxt = list(range(1, count + 1))
        prv = list(range(-1, count - 1))
        alive = [True] * count
        pieces = self._mergeable
        heap: list[tuple[float, int, int, str]] = []
        undo: dict[str, tuple[int, int]] = {}

        def consider(left: int, right: int) -> None:
            if left < 0 or right >= count or frozen[left] or frozen[right]:
                return
            piece = text[starts[left]:end[right]]
            hit = pieces.get(piece)
            if hit is not None:
                heapq.heappush(heap, (-hit[1], left, right, piece))
                if hit[2]:  # an unused piece: remember how to split it again
                    undo[piece] = (starts[left], starts[right])

        for k in range(count - 1):
            consider(k, k + 1)
        while heap:
            _, left, right, piece = heapq.heappop(heap)
            # Skip pairs made stale by earlier merges (a side gone or grown).
            if not (alive[left] and alive[right] and nxt[left] == right
                    and end[right] - starts[left] == len(piece)):
                continue
            end[left] = end[right]
            alive[right] = False
            nxt[left] = nxt[right]
            if nxt[right] < count:
                prv[nxt[right]] = left
            consider(prv[left], left)
            consider(left, nxt[left])
        spans = [(starts[k], end[k]) for k in range(count) if alive[k]]
        if undo:
            spans = [s for span in spans for s in self._undo_unused(text, span, undo)]
        return spans

    def _undo_unused(self, text: str, span: tuple[int, int], undo: dict[str, tuple[int, int]]) -> list[tuple[int, int]]:
        s, e = span
        piece = text[s:e]
        hit = self._mergeable.get(piece)
        if hit is None or not hit[2] or piece not in undo:
            return [span]
        a, b = undo[piece]
        cut = s + (b - a)  # the split point, measured from where the piece was first merged
        return self._undo_unused(text, (s, cut), undo) + self._undo_unused(text, (cut, e), undo)

    def _encode(self, text: str) -> list[Token]:
        out: list[Token] = []
        run = -1  # start of the current run of unknown symbols: sentencepiece makes it one token
        spans = self.merge(text)
        for k, (s, e) in enumerate(spans):
            piece = text[s:e]
            hit = self._mergeable.get(piece)
            if hit is not None:
                out.append(Token(hit[0], piece, (s, e)))
                continue
            if run < 0:
                run = s
            if k + 1 < len(spans) and text[spans[k + 1][0]:spans[k + 1][1]] not in self._mergeable:
                continue
            surface = text[run:e]
            if self.byte_fallback:
                out.extend(Token(i, self._vocab[i][0], (run, e)) for i in
                           [self._byte_ids[b] for b in surface.encode("utf-8")])
            else:
                out.append(Token(self.unk_id, surface, (run, e)))
            run = -1
        return out

    def tokenize(self, text: str) -> list[Token]:
        """Tokens of a normalized text; offsets are positions inside ``text``."""
        if self._chunks is None or SPACE_SYMBOL not in text:
            return self._cached(text)
        if self._chunks == "before_run":
            cuts = [m.start() for m in _RUN_START.finditer(text)]
        elif self._chunks == "after_run":
            cuts = [m.end() for m in _RUN_END.finditer(text)]
        else:
            cuts = [i + (self._chunks == "after") for i, ch in enumerate(text) if ch == SPACE_SYMBOL]
        bounds = sorted({0, len(text), *cuts})
        tokens: list[Token] = []
        for a, b in zip(bounds, bounds[1:]):
            for t in self._cached(text[a:b]):
                tokens.append(Token(t.id, t.text, (t.offsets[0] + a, t.offsets[1] + a)) if a else t)
        return tokens

    def _cached(self, chunk: str) -> list[Token]:
        hit = self._cache.get(chunk)
        if hit is None:
            hit = self._encode(chunk)
            if len(self._cache) >= CACHE_LIMIT:
                self._cache.clear()
            self._cache[chunk] = hit
        return list(hit)

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type_name, "vocab": [list(v) for v in self._vocab], "byte_fallback": self.byte_fallback}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SentencePieceBPE":
        vocab = data.get("vocab")
        if not isinstance(vocab, list):
            raise FormatError("a SentencePieceBPE model needs a \"vocab\" list of [piece, score, type] triples")
        return cls([tuple(v) if isinstance(v, list) else v for v in vocab],
                   byte_fallback=bool(data.get("byte_fallback", False)))

    def to_hf(self) -> dict[str, Any]:
        """The nearest ``tokenizers`` model: a BPE whose merges rank every split of each piece
        (into two pieces) by the score of the piece it makes, highest first.

        ``tokenizers`` applies the lowest-ranked merge first, leftmost on ties, which is
        SentencePiece's order whenever no unused piece is involved."""
        vocab = {p: i for i, (p, _, _) in enumerate(self._vocab)}
        merges = []
        for piece, score, kind in self._vocab:
            if kind not in ("normal", "user_defined") or len(piece) < 2:
                continue
            for k in range(1, len(piece)):
                left, right = piece[:k], piece[k:]
                if left in self._mergeable and right in self._mergeable:
                    merges.append((-score, vocab[piece], vocab[left], vocab[right], [left, right]))
        merges.sort(key=lambda m: m[:4])
        return {"type": "BPE", "dropout": None, "unk_token": self._vocab[self.unk_id][0],
                "continuing_subword_prefix": None, "end_of_word_suffix": None, "fuse_unk": True,
                "byte_fallback": self.byte_fallback, "ignore_merges": False, "vocab": vocab,
                "merges": [m[4] for m in merges]}

    def __repr__(self) -> str:
        return f"SentencePieceBPE(vocab_size={self.vocab_size}, byte_fallback={self.byte_fallback})"
