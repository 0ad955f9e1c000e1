"""Unigram language-model tokenization (Kudo 2018), as in SentencePiece and Hugging Face.

Every vocabulary piece has a log-probability; a word is cut into the pieces
whose log-probabilities sum highest (the Viterbi path through its
:class:`~tokenizer_core.unigram.lattice.Lattice`). Characters no piece covers become the
unknown token (consecutive ones fused into one token, as both reference
libraries do) or, with ``byte_fallback``, the ``<0xXX>`` tokens of their UTF-8
bytes (when the vocabulary has all of them; otherwise the run is unknown, as in
``tokenizers``). Special tokens (and the byte tokens) are never matched inside text
(the pipeline adds them), unless ``literal_pieces``: models read from a
``tokenizer.json`` match every piece, as ``tokenizers`` does.

>>> m = Unigram([("<unk>", 0.0), ("▁hug", -1.0), ("▁", -2.0), ("h", -3.0), ("u", -3.0),
...              ("g", -3.0), ("s", -3.5)], unk_id=0, special_tokens=["<unk>"])
>>> [(t.text, t.offsets) for t in m.tokenize("▁hugs")]
[('▁hug', (0, 4)), ('s', (4, 5))]
>>> [(t.id, t.text) for t in m.tokenize("▁hex")]
[(2, '▁'), (3, 'h'), (0, 'ex')]
>>> fb = Unigram([("<unk>", 0.0), ("a", -1.0), ("<0x41>", -1.0)], unk_id=0, byte_fallback=True)
>>> [t.text for t in fb.tokenize("aAé")]
['a', 'Aé']
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional

from tokenizer_core.errors import FormatError, TokenizerError, UnknownTokenError
from tokenizer_core.model_base import SamplingModel
from tokenizer_core.registry import register
from tokenizer_core.types import CACHE_LIMIT, Token
from tokenizer_core.unigram.lattice import UNK_PENALTY, Lattice, PieceTrie, Segmentation
from tokenizer_core.unigram.segmentation import backtrack

if TYPE_CHECKING:
    from tokenizer_core.types import Sampling

_BYTE_TOKEN = re.compile(r"<0x[0-9A-F]{2}>")


def byte_token(b: int) -> str:
    """The byte-fallback token of one byte: ``byte_token(10) == '<0x0A>'``."""
    return f"<0x{b:02X}>"


@register("model", "Unigram")
class Unigram(SamplingModel):
    """A unigram model: ``vocab`` is ``[(piece, log_prob), ...]`` in id order.

    ``unk_id`` is the id of the unknown token (``None``: unknown characters are an
    error); ``special_tokens`` are pieces never matched inside text.
    """

    type_name = "Unigram"

    def __init__(
        self,
        vocab: Sequence[tuple[str, float]],
        *,
        unk_id: Optional[int] = None,
        byte_fallback: bool = False,
        special_tokens: Iterable[str] = (),
        literal_pieces: bool = False,
    ) -> None:
        pieces: list[tuple[str, float]] = []
        ids: dict[str, int] = {}
        for entry in vocab:
            if not isinstance(entry, (tuple, list)) or len(entry) != 2:
                raise TokenizerError(f"Unigram vocab entries must be (piece, log_prob) pairs, got {entry!r:.60}")
            piece, score = entry
            if not isinstance(piece, str) or not piece:
                raise TokenizerError(f"Unigram pieces must be non-empty strings, got {piece!r:.40}")
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise TokenizerError(f"piece {piece!r} has score {score!r}; scores must be finite numbers")
            if piece in ids:
                raise TokenizerError(f"piece {piece!r} appears twice in the Unigram vocabulary")
            ids[piece] = len(pieces)
            # Scores are kept exactly as given: imported models must add up the very same
            # numbers as their source to break ties alike (our trainer rounds its own scores).
            pieces.append((piece, float(score)))
        if not pieces:
            raise TokenizerError("a Unigram model needs at least one piece")
        if unk_id is not None and not (isinstance(unk_id, int) and 0 <= unk_id < len(pieces)):
            raise TokenizerError(f"unk_id {unk_id!r} is not an id of the vocabulary (0..{len(pieces) - 1})")
        self._pieces = pieces
        self._ids = ids
        self.unk_id = unk_id
        self.byte_fallback = bool(byte_fallback)
        self.special_tokens: list[str] = [t for t in special_tokens]
        for t in self.special_tokens:
            if t not in ids:
                raise TokenizerError(f"special token {t!r} is not in the Unigram vocabulary")
        # tokenizers matches every piece in text, "<unk>" and "<0x41>" too (``literal_pieces``);
        # SentencePiece and our trainer never match the unknown, byte and special pieces.
        self.literal_pieces = bool(literal_pieces)
        unmatched = set(self.special_tokens)
        if unk_id is not None:
            unmatched.add(pieces[unk_id][0])
        if self.byte_fallback:
            # Some byte pieces may be missing (as in tokenizers): a run needing one becomes the
            # unknown token. With none at all the option can only be a mistake (tokenizers
            # files are read as they are).
            byte_pieces = {p for p, _ in pieces if _BYTE_TOKEN.fullmatch(p)}
            if not byte_pieces and not self.literal_pieces:
                raise TokenizerError("byte_fallback needs byte tokens <0x00>..<0xFF> in the vocabulary, and it "
                                     "has none; add them or turn byte_fallback off")
            unmatched.update(byte_pieces)
        if self.literal_pieces:
            unmatched.clear()
        self._trie = PieceTrie((p, i, s) for i, (p, s) in enumerate(pieces) if p not in unmatched)
        # Like SentencePiece and tokenizers: unknown characters score 10 below the least likely piece.
        self.unk_log_prob = min(s for _, s in pieces) - UNK_PENALTY
        self._cache: dict[str, list[Token]] = {}
        self.training: Any = None  # the trainer's result (trace), when this model was trained here

    # ------------------------------------------------------------------ vocabulary
    def token_to_id(self, token: str) -> Optional[int]:
        return self._ids.get(token)

    def id_to_token(self, token_id: int) -> Optional[str]:
        return self._pieces[token_id][0] if 0 <= token_id < len(self._pieces) else None

    def get_vocab(self) -> dict[str, int]:
        return dict(self._ids)

    @property
    def vocab_size(self) -> int:
        return len(self._pieces)

    @property
    def pieces(self) -> list[tuple[str, float]]:
        """``[(piece, log_prob), ...]`` in id order."""
        return list(self._pieces)

    def score(self, token: str) -> Optional[float]:
        """Log-probability of a piece (``None`` if it is not in the vocabulary)."""
        i = self._ids.get(token)
        return None if i is None else self._pieces[i][1]

    # ------------------------------------------------------------------ tokenizing
    def lattice(self, piece: str) -> Lattice:
        """The lattice of one pre-tokenized piece (what the app draws)."""
        unk = self.unk_id if self.unk_id is not None else -1
        unk_piece = self._pieces[self.unk_id][0] if self.unk_id is not None else None
        return Lattice.build(piece, self._trie, unk_id=unk, unk_piece=unk_piece, unk_log_prob=self.unk_log_prob)

    def viterbi(self, piece: str) -> list[tuple[int, int, int]]:
        """Best path as ``(start, end, id)`` triples; id ``-1`` marks an unknown character.

        Same result as ``self.lattice(piece).viterbi()`` without building edge objects.
        """
        n = len(piece)
        best = [-math.inf] * (n + 1)
        best[0] = 0.0
        back_start = [0] * (n + 1)
        back_id = [-1] * (n + 1)
        root = self._trie._root
        maxlen = self._trie.max_piece_length
        unk_lp = self.unk_log_prob
        for s in range(n):
            base = best[s]
            node = root
            single = False
            for e in range(s, min(n, s + maxlen)):
                node = node.get(piece[e])
                if node is None:
                    break
                hit = node.get("")
                if hit is not None:
                    single = single or e == s
                    score = base + hit[1]
                    # Strict ">" keeps the earliest start on ties, as SentencePiece does.
                    if score > best[e + 1]:
                        best[e + 1], back_start[e + 1], back_id[e + 1] = score, s, hit[0]
            if not single:
                score = base + unk_lp
                if score > best[s + 1]:
                    best[s + 1], back_start[s + 1], back_id[s + 1] = score, s, -1
        return backtrack(back_start, back_id, n)

    def _tokens(self, piece: str, path: Iterable[tuple[int, int, int]]) -> list[Token]:
        """Tokens of a path, fusing runs of unknown characters (or spelling them as bytes)."""
        out: list[Token] = []
        run_start = -1
        run_end = -1

        def flush() -> None:
            if run_start < 0:
                return
            text = piece[run_start:run_end]
            byte_ids = [self._ids.get(byte_token(b)) for b in text.encode("utf-8")] if self.byte_fallback else [None]
            if None not in byte_ids:
                # Every byte token carries the span of the whole unknown run, as in tokenizers.
                for b, tid in zip(text.encode("utf-8"), byte_ids):
                    out.append(Token(tid, byte_token(b), (run_start, run_end)))  # type: ignore[arg-type]
            elif self.unk_id is None:
                raise UnknownTokenError(
                    f"{text!r} is not covered by the vocabulary and the model has no unknown token; "
                    "train with an unknown token or byte_fallback"
                )
            else:
                out.append(Token(self.unk_id, text, (run_start, run_end)))

        for s, e, tid in path:
            if tid < 0:
                if run_start < 0:
                    run_start = s
                run_end = e
                continue
            flush()
            run_start = -1
            out.append(Token(tid, self._pieces[tid][0], (s, e)))
        flush()
        return out

    def tokenize(self, piece: str) -> list[Token]:
        """Viterbi tokens of one piece; offsets are positions inside ``piece``."""
        hit = self._cache.get(piece)
        if hit is not None:
            return list(hit)
        tokens = self._tokens(piece, self.viterbi(piece))
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        self._cache[piece] = tokens
        return list(tokens)

    def _segmentation_path(self, seg: Segmentation) -> list[tuple[int, int, int]]:
        return [(e.start, e.end, -1 if e.unknown else e.id) for e in seg.edges]

    def tokenize_sampled(self, piece: str, *, rng: random.Random, sampling: "Sampling") -> list[Token]:
        """A sampled segmentation (subword regularisation) with ``sampling.alpha`` and
        ``sampling.nbest_size`` meaning what they mean in SentencePiece. ``sampling.dropout`` is
        refused: it is BPE-dropout, and ignoring it would hand back a sample the caller did not ask for.
        """
        if sampling.dropout:
            raise TokenizerError("dropout is BPE-dropout and a Unigram model has no merges to drop; "
                                 "sample with alpha and nbest_size instead")
        seg = self.lattice(piece).sample(rng=rng, alpha=sampling.alpha, nbest_size=sampling.nbest_size)
        return self._tokens(piece, self._segmentation_path(seg))

    def nbest(self, piece: str, n: int) -> list[tuple[list[Token], float]]:
        """The ``n`` best segmentations of one piece as tokens with their log-probabilities."""
        return [(self._tokens(piece, self._segmentation_path(s)), s.log_prob) for s in self.lattice(piece).nbest(n)]

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "Unigram",
            "vocab": [[p, s] for p, s in self._pieces],
            "unk_id": self.unk_id,
            "byte_fallback": self.byte_fallback,
            "special_tokens": list(self.special_tokens),
            **({"literal_pieces": True} if self.literal_pieces else {}),
        }

    @classmethod
    def from_frequencies(cls, frequencies: Mapping[str, float]) -> "Unigram":
        """A model whose pieces' probabilities are their shares of the frequencies (``log(f / sum)``):
        a toy model from counts or from probabilities that need not add up.

        >>> round(Unigram.from_frequencies({"a": 3, "b": 1}).score("a"), 4)
        -0.2877
        """
        if not frequencies or any(not f > 0 for f in frequencies.values()):
            raise TokenizerError("every piece's frequency must be above 0 (and there must be a piece)")
        total = math.fsum(frequencies.values())
        return cls([(piece, math.log(f / total)) for piece, f in frequencies.items()])

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Unigram":
        vocab = data.get("vocab")
        if not isinstance(vocab, list):
            raise FormatError("a Unigram model needs a \"vocab\" list of [piece, score] pairs")
        return cls(
            [tuple(v) if isinstance(v, list) else v for v in vocab],
            unk_id=data.get("unk_id"),
            byte_fallback=bool(data.get("byte_fallback", False)),
            special_tokens=data.get("special_tokens", []),
            literal_pieces=bool(data.get("literal_pieces", False)),
        )

    def to_hf(self) -> dict[str, Any]:
        """The ``"model"`` object of a ``tokenizer.json`` (``tokenizers`` Unigram)."""
        return {
            "type": "Unigram",
            "unk_id": self.unk_id,
            "vocab": [[p, s] for p, s in self._pieces],
            "byte_fallback": self.byte_fallback,
        }

    @classmethod
    def from_hf(cls, data: dict[str, Any], *, special_tokens: Sequence[str] = ()) -> "Unigram":
        """Read the ``"model"`` object of a ``tokenizer.json`` (type ``Unigram``)."""
        if data.get("type") != "Unigram":
            raise FormatError(f"expected a Unigram model, got type {data.get('type')!r}")
        return cls.from_dict({**data, "special_tokens": list(special_tokens), "literal_pieces": True})

    def __repr__(self) -> str:
        return f"Unigram(vocab_size={self.vocab_size}, unk_id={self.unk_id}, byte_fallback={self.byte_fallback})"
