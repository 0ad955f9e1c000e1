"""The tokenizer pipeline: normalizer -> pre-tokenizer -> model -> post-processor, and back.

Offsets in every :class:`~tokenizer_core.types.Encoding` point into the text the
caller gave, whatever the normalizer did. Added tokens written in the input
("[CLS]", "<|endoftext|>") are kept whole, matched and numbered as in Hugging Face
``tokenizers`` (see :mod:`~tokenizer_core.text.added_vocabulary`): each is a word of its
own, and only the tokens a post-processor adds are marked in ``special_tokens_mask``.

>>> from tokenizer_core.classic.word import WordLevel
>>> from tokenizer_core.text.pre_tokenizers import Whitespace
>>> from tokenizer_core.text.normalizers import Lowercase
>>> tok = Tokenizer(WordLevel({"[UNK]": 0, "hello": 1, "world": 2}), normalizer=Lowercase(),
...                 pre_tokenizer=Whitespace(), special_tokens=["[UNK]"])
>>> enc = tok.encode("Hello big World")
>>> enc.tokens, enc.ids, enc.offsets
(['hello', '[UNK]', 'world'], [1, 0, 2], [(0, 5), (6, 9), (10, 15)])
>>> tok.decode(enc.ids)
'hello world'
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import is_
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

# Imported so that their models and components register and saved files can name them (none imports us back).
import tokenizer_core.batch as _batch_stage  # noqa: F401
import tokenizer_core.boundless as _boundless  # noqa: F401
import tokenizer_core.bpe as _bpe  # noqa: F401
import tokenizer_core.classic as _classic  # noqa: F401
import tokenizer_core.pickybpe as _pickybpe  # noqa: F401
import tokenizer_core.text as _text_stage  # noqa: F401
import tokenizer_core.unigram as _unigram  # noqa: F401
import tokenizer_core.wordpiece as _wordpiece  # noqa: F401
from tokenizer_core.batch import batching
from tokenizer_core.errors import TokenizerError, UnknownIdError, UnknownTokenError
from tokenizer_core.fast.registry import FastPathReport, FastPathSlot, explain_fast_path
from tokenizer_core.gc_pause import paused_gc
from tokenizer_core.jsonfile import read_json_file
from tokenizer_core.parts import TokenizerParts
from tokenizer_core.pipeline_files import hf_document, own_document, read_header
from tokenizer_core.registry import build, malformed_as_format_error
from tokenizer_core.text.added_vocabulary import AddedToken, AddedVocabulary
from tokenizer_core.text.input_checks import guarded as _guarded
from tokenizer_core.text.normalized import NormalizedString
from tokenizer_core.text.pre_tokenizer_base import Piece, PieceTrace
from tokenizer_core.types import Encoding, Offsets, Sampling, Token

if TYPE_CHECKING:
    from tokenizer_core.batch.batching import BatchEncoding, PaddingParams, TruncationParams

_PROBE = "Hello, world! It's 2024: naïve café ﬁ 中文 😀\n\tend"


@dataclass(frozen=True, slots=True)
class PipelineTrace:
    """What each stage did to one text (for the app's stage-by-stage view)."""

    original: str
    normalized: str
    pieces: list[PieceTrace]
    encoding: Encoding


class Tokenizer:
    """A complete tokenizer. Build one with a trainer, an importer, or by hand."""

    @classmethod
    def from_parts(cls, parts: TokenizerParts) -> "Tokenizer":
        """Assemble the stages an algorithm described (see :class:`~tokenizer_core.parts.TokenizerParts`)."""
        return cls(parts.model, normalizer=parts.normalizer, pre_tokenizer=parts.pre_tokenizer,
                   post_processor=parts.post_processor, decoder=parts.decoder,
                   special_tokens=parts.special_tokens, metadata=parts.metadata)

    def __init__(
        self,
        model: Any,
        *,
        normalizer: Any = None,
        pre_tokenizer: Any = None,
        post_processor: Any = None,
        decoder: Any = None,
        special_tokens: Iterable[str] = (),
        added_tokens: Iterable[AddedToken] = (),
        metadata: Optional[dict[str, Any]] = None,
    ) -> None:
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.post_processor = post_processor
        self.decoder = decoder
        specials = []
        for t in special_tokens:  # our own special tokens are always part of the vocabulary
            if model.token_to_id(t) is None:
                raise TokenizerError(f"special token {t!r} is not in the model's vocabulary")
            specials.append(AddedToken(t, special=True))
        self.added = AddedVocabulary([*specials, *added_tokens], model_ids=model.token_to_id,
                                     model_size=model.vocab_size)
        self.special_tokens: list[str] = [t.content for t, _ in self.added.entries if t.special]
        self._special_id_set = self.added.special_ids
        self._beyond_model = sum(1 for _, i in self.added.entries if model.id_to_token(i) is None)
        self.metadata: dict[str, Any] = dict(metadata or {})
        self._fast = FastPathSlot()  # bulk encoding: byte-level BPE, or stages that stay inside chunks

    # ----------------------------------------------------------------- encoding
    def _normalized(self, segment: str) -> tuple[NormalizedString, Any]:
        """The normalized segment and the map from its spans back to the segment's."""
        if self.normalizer is None:  # the alignment is never read without a normalizer
            return NormalizedString(segment, [], len(segment)), _identity_span
        ns = self.normalizer.normalize(segment)
        return ns, ns.original_span

    def _pieces(self, text: str, *, at_start: bool = True) -> list[Piece]:
        if self.pre_tokenizer is None:
            return [Piece(text, 0, len(text))] if text else []
        return self.pre_tokenizer.split_at(text, at_start=at_start)

    def _tokenize_piece(self, piece: str, rng: Optional[random.Random], sampling: Optional[Sampling]) -> list[Token]:
        if sampling is None or rng is None:
            return self.model.tokenize(piece)
        return self.model.tokenize_sampled(piece, rng=rng, sampling=sampling)

    def _trace_text(self, text: str, *, split_special: bool, sampling: Optional[Sampling],
                    sequence_id: int, rng: Optional[random.Random] = None) -> tuple[list[PieceTrace], Encoding, str]:
        if sampling is not None and rng is None:
            rng = sampling.generator()
        tokens: list[Token] = []
        word_ids: list[Optional[int]] = []
        traces: list[PieceTrace] = []
        normalized_parts: list[str] = []
        added, skip = self.added, not split_special

        def emit(piece: str, offsets: Offsets, piece_tokens: list[Token]) -> None:
            # Every piece is a word, added tokens too (tokenizers numbers its splits).
            word_ids.extend([len(traces)] * len(piece_tokens))
            traces.append(PieceTrace(piece, offsets, piece_tokens))
            tokens.extend(piece_tokens)

        # Added tokens are cut out of the raw text first; each remaining segment is normalized
        # on its own and searched for the added tokens that match normalized text.
        for base, end, entry in added.split(text, normalized=False, skip_special=skip):
            segment = text[base:end]
            if entry is not None:
                emit(segment, (base, end), [Token(entry[1], segment, (base, end))])
                normalized_parts.append(segment)
                continue
            ns, to_original = self._normalized(segment)
            normalized_parts.append(ns.text)
            for s, e, entry in added.split(ns.text, normalized=True, normalizer=self.normalizer, skip_special=skip):
                o0, o1 = to_original(s, e)
                if entry is not None:
                    emit(ns.text[s:e], (o0 + base, o1 + base), [Token(entry[1], ns.text[s:e], (o0 + base, o1 + base))])
                    continue
                for piece in self._pieces(ns.text[s:e] if e - s < len(ns.text) else ns.text, at_start=o0 + base == 0):
                    piece_tokens = []
                    span = piece.token_span
                    for t in self._tokenize_piece(piece.text, rng, sampling):
                        a, b = span(*t.offsets)
                        a, b = to_original(a + s, b + s)
                        piece_tokens.append(Token(t.id, t.text, (a + base, b + base)))
                    a, b = to_original(piece.start + s, piece.end + s)
                    emit(piece.text, (a + base, b + base), piece_tokens)
        enc = Encoding.from_tokens(tokens, word_ids=word_ids, type_id=sequence_id, sequence_id=sequence_id)
        return traces, enc, "".join(normalized_parts)

    def encode_sequence(self, text: str, *, sequence_id: int = 0, sampling: Optional[Sampling] = None,
                        rng: Optional[random.Random] = None, split_special_tokens: bool = True) -> Encoding:
        """Model tokens of one text, with offsets and word ids, before any special tokens are added.

        With ``sampling``, samples are drawn from ``rng``, or from a new ``sampling.generator()``
        when none is given (see :meth:`encode`)."""
        fast = None if sampling is not None else self._fast.get(self.normalizer, self.pre_tokenizer, self.model)
        if fast is not None:  # the same encoding, assembled in bulk from cached pieces (None: not this text)
            enc = _guarded(fast.encode, text, added=self.added, split_special=split_special_tokens,
                           sequence_id=sequence_id)
            if enc is not None:
                return enc
        return _guarded(self._trace_text, text, split_special=split_special_tokens, sampling=sampling,
                        sequence_id=sequence_id, rng=rng)[1]

    def encode(
        self,
        text: str,
        pair: Optional[str] = None,
        *,
        add_special_tokens: bool = True,
        truncation: Optional["TruncationParams"] = None,
        sampling: Optional[Sampling] = None,
        rng: Optional[random.Random] = None,
    ) -> Encoding:
        """Encode a text (or a pair of texts) into an :class:`Encoding`.

        ``sampling`` draws a segmentation instead of the best one. Every draw comes from
        ``rng``; without one the call is a run of its own, seeded by ``sampling.seed``. To
        encode many texts as one reproducible run, make ``rng = sampling.generator()`` once
        and pass it to every call (as :meth:`encode_batch` and ``encode --seed`` do): equal
        texts then get independent samples.

        >>> from tokenizer_core.bpe.model import BPE
        >>> tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
        >>> s = Sampling(seed=1, dropout=0.5)
        >>> len({tuple(tok.encode("ab", sampling=s).tokens) for _ in range(20)})   # each call restarts
        1
        >>> rng = s.generator()
        >>> len({tuple(tok.encode("ab", sampling=s, rng=rng).tokens) for _ in range(20)})   # one run
        2
        """
        if sampling is not None and rng is None:
            rng = sampling.generator()  # one generator for both texts of a pair
        a = self.encode_sequence(text, sequence_id=0, sampling=sampling, rng=rng)
        if pair is None and self._as_is(add_special_tokens, truncation):
            return a  # finish_encoding would return a copy of it: type and sequence ids 0, nothing added
        b = None if pair is None else self.encode_sequence(pair, sequence_id=1, sampling=sampling, rng=rng)
        return batching.finish_encoding(a, b, post_processor=self.post_processor,
                                        add_special_tokens=add_special_tokens, truncation=truncation)

    def encode_batch(
        self,
        texts: Sequence[str],
        *,
        pairs: Optional[Sequence[str]] = None,
        add_special_tokens: bool = True,
        padding: Optional["PaddingParams"] = None,
        truncation: Optional["TruncationParams"] = None,
        sampling: Optional[Sampling] = None,
        rng: Optional[random.Random] = None,
        return_overflowing: bool = False,
        threads: Optional[int] = None,
    ) -> "BatchEncoding":
        """Encode many texts (optionally pairs) and pad/truncate them into a batch.

        With ``sampling`` the whole batch is one run: the texts, in order, draw from ``rng``
        (by default one new ``sampling.generator()``), so equal texts get independent samples
        and the same seed gives the same batch. With ``return_overflowing`` the windows cut off
        by truncation become rows of their own (see ``BatchEncoding.overflow_to_sample_mapping``).
        ``threads``: how many threads the compiled kernel encodes a byte-level BPE batch on
        (default: every core this process may use); results do not depend on it."""
        if pairs is not None and len(pairs) != len(texts):
            raise TokenizerError(f"got {len(texts)} texts but {len(pairs)} pair texts; give one pair per text")
        with paused_gc():
            if pairs is None and sampling is None:
                encs = self._encode_sequences(texts, threads=threads)
                if not self._as_is(add_special_tokens, truncation):
                    encs = [batching.finish_encoding(a, None, post_processor=self.post_processor,
                                                     add_special_tokens=add_special_tokens, truncation=truncation)
                            for a in encs]
            else:
                if sampling is not None and rng is None:
                    rng = sampling.generator()
                encs = [
                    self.encode(t, None if pairs is None else pairs[i], add_special_tokens=add_special_tokens,
                                truncation=truncation, sampling=sampling, rng=rng)
                    for i, t in enumerate(texts)
                ]
            return batching.make_batch(encs, padding=padding, return_overflowing=return_overflowing)

    def _as_is(self, add_special_tokens: bool, truncation: Optional["TruncationParams"]) -> bool:
        """Whether one text's model tokens are its final encoding (no truncation; no post-processor, or
        one adding nothing here that leaves the tokens alone): then no row is copied."""
        if truncation is not None and truncation.enabled:
            return False
        p = self.post_processor
        return p is None or not add_special_tokens and bool(getattr(p, "single_unchanged", lambda: False)())

    def _encode_sequences(self, texts: Sequence[str], *, threads: Optional[int] = None) -> list[Encoding]:
        """:meth:`encode_sequence` of each text; byte-level BPE encodes the whole batch at once."""
        fast = self._fast.get(self.normalizer, self.pre_tokenizer, self.model)
        batch = None if fast is None else fast.encode_batch(texts, added=self.added, split_special=True,
                                                             sequence_id=0, threads=threads)
        if batch is None:
            return [self.encode_sequence(t) for t in texts]
        # None rows: texts for the general path (``is`` in C; ``None in batch`` would compare rows).
        if not any(map(is_, batch, repeat(None))):
            return batch
        return [self.encode_sequence(t) if e is None else e for t, e in zip(texts, batch)]

    def explain_fast_path(self) -> FastPathReport:
        """Which fast path encodes this tokenizer's texts (kernel or not), when a text still takes the
        general path, and why each other kind does not fit (:mod:`tokenizer_core.fast.registry`)."""
        return explain_fast_path(self)

    def explain(self, text: str) -> PipelineTrace:
        """Every stage for one text: normalized text, pieces with offsets, tokens per piece."""
        traces, enc, normalized = _guarded(self._trace_text, text, split_special=True, sampling=None, sequence_id=0)
        return PipelineTrace(text, normalized, traces, enc)

    def tokenize(self, text: str) -> list[str]:
        """Token strings of ``text`` (no special tokens added)."""
        return self.encode_sequence(text).tokens

    # ----------------------------------------------------------------- decoding
    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = True) -> str:
        """Text for a list of ids; unknown ids are an error."""
        tokens = []
        specials = self.added.special_contents if skip_special_tokens else ()
        for i in ids:
            if not isinstance(i, int) or isinstance(i, bool):
                raise TokenizerError(f"token ids must be integers, got {i!r}")
            t = self.id_to_token(i)
            if t is None:
                raise UnknownIdError(f"id {i} is not in the vocabulary (0..{self.vocab_size - 1})")
            if t not in specials:  # tokenizers skips by the token's text
                tokens.append(t)
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder.decode(tokens)

    def decode_batch(self, batch: Iterable[Iterable[int]], *, skip_special_tokens: bool = True) -> list[str]:
        return [self.decode(ids, skip_special_tokens=skip_special_tokens) for ids in batch]

    # ------------------------------------------------------------- vocabulary
    # Added tokens first, then the model (as tokenizers looks them up).
    def token_to_id(self, token: str) -> Optional[int]:
        tid = self.added.token_to_id(token)
        return self.model.token_to_id(token) if tid is None else tid

    def id_to_token(self, token_id: int) -> Optional[str]:
        token = self.added.id_to_token(token_id, normalizer=self.normalizer)
        return self.model.id_to_token(token_id) if token is None else token

    def get_vocab(self) -> dict[str, int]:
        vocab = self.model.get_vocab()
        vocab.update((t.content, i) for t, i in self.added.entries)
        return vocab

    @property
    def vocab_size(self) -> int:
        """Model vocabulary plus the added tokens it does not hold."""
        return self.model.vocab_size + self._beyond_model

    def is_special_id(self, token_id: int) -> bool:
        return token_id in self._special_id_set

    # ---------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """The package's own versioned JSON form (:mod:`~tokenizer_core.pipeline_files`)."""
        return own_document(self)

    @classmethod
    def from_dict(cls, data: Any) -> "Tokenizer":
        """Rebuild from :meth:`to_dict` output, checking the format name and version."""
        specials, added, metadata = read_header(data)
        with malformed_as_format_error("tokenizer file"):
            if added is not None:
                added, specials = [AddedToken.from_dict(a) for a in added], []
            tok = cls(
                build("model", data["model"]),
                normalizer=build("normalizer", data.get("normalizer")),
                pre_tokenizer=build("pre_tokenizer", data.get("pre_tokenizer")),
                post_processor=build("post_processor", data.get("post_processor")),
                decoder=build("decoder", data.get("decoder")),
                special_tokens=specials,
                added_tokens=added or (),
                metadata=metadata,
            )
        tok.self_check()
        return tok

    def self_check(self) -> None:
        """Encode and decode a probe text (and a pair) once, so that a file whose parts load but
        do not fit together is refused when it is opened, not in the middle of a lesson."""
        with malformed_as_format_error("tokenizer (it fails on a test sentence)"):
            try:
                for enc in (self.encode(_PROBE), self.encode(_PROBE, _PROBE)):
                    self.decode(enc.ids, skip_special_tokens=False)
            except (UnknownTokenError, UnknownIdError):
                # Properties of the vocabulary, not a broken file: an unknown character without an
                # unknown token, or a post-processor id outside the vocabulary (tokenizers loads
                # both; its decode skips such ids).
                pass

    def save(self, path: Union[str, Path]) -> None:
        """Write the own JSON format (UTF-8)."""
        Path(path).write_text(json.dumps(self.to_dict(), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Union[str, Path]) -> "Tokenizer":
        """Read a file written by :meth:`save`; malformed files raise :class:`FormatError`."""
        return cls.from_dict(read_json_file(path))

    def to_hf_json(self) -> dict[str, Any]:
        """A Hugging Face ``tokenizer.json`` document for this tokenizer."""
        return hf_document(self)

    def save_hf(self, path: Union[str, Path]) -> None:
        """Write a ``tokenizer.json`` that ``tokenizers.Tokenizer.from_file`` loads."""
        Path(path).write_text(json.dumps(self.to_hf_json(), ensure_ascii=False), encoding="utf-8")

    def __repr__(self) -> str:
        return f"Tokenizer(model={type(self.model).__name__}, vocab_size={self.vocab_size})"


def _identity_span(start: int, end: int) -> Offsets:
    return (start, end)
