"""The tokenizer pipeline: normalizer -> pre-tokenizer -> model -> post-processor, and back.

Offsets in every :class:`~tokenizer_core.types.Encoding` point into the text the
caller gave, whatever the normalizer did. Special tokens written in the input
("[CLS]", "<|endoftext|>") are kept whole, as in Hugging Face ``tokenizers``.

>>> from tokenizer_core.models.word import WordLevel
>>> from tokenizer_core.pre_tokenizers import Whitespace
>>> from tokenizer_core.normalizers import Lowercase
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
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import regex

from . import batching
from .errors import FormatError, TokenizerError
from .normalized import NormalizedString
from .pre_tokenizers import Piece
from .registry import build, malformed_as_format_error
from .types import Encoding, Offsets, Sampling, Token

if TYPE_CHECKING:
    from .batching import BatchEncoding, PaddingParams, TruncationParams

_PROBE = "Hello, world! It's 2024: naïve café ﬁ 中文 😀\n\tend"
FORMAT_NAME = "tokenizer-playground"
FORMAT_VERSION = 1
MAX_INPUT_CHARS = 50_000_000  # one call; beyond this, callers should stream lines


@dataclass(frozen=True, slots=True)
class PieceTrace:
    """One pre-tokenized piece, where it came from, and the model's tokens for it."""

    text: str
    offsets: Offsets
    tokens: list[Token]


@dataclass(frozen=True, slots=True)
class PipelineTrace:
    """What each stage did to one text (for the app's stage-by-stage view)."""

    original: str
    normalized: str
    pieces: list[PieceTrace]
    encoding: Encoding


class Tokenizer:
    """A complete tokenizer. Build one with a trainer, an importer, or by hand."""

    def __init__(
        self,
        model: Any,
        *,
        normalizer: Any = None,
        pre_tokenizer: Any = None,
        post_processor: Any = None,
        decoder: Any = None,
        special_tokens: Iterable[str] = (),
        metadata: Optional[dict[str, Any]] = None,
    ) -> None:
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.post_processor = post_processor
        self.decoder = decoder
        self.special_tokens: list[str] = []
        self._special_ids: dict[str, int] = {}
        for t in special_tokens:
            tid = model.token_to_id(t)
            if tid is None:
                raise TokenizerError(f"special token {t!r} is not in the model's vocabulary")
            if t not in self._special_ids:
                self.special_tokens.append(t)
                self._special_ids[t] = tid
        self._special_id_set = set(self._special_ids.values())
        self._special_re = (
            regex.compile("|".join(regex.escape(t) for t in sorted(self.special_tokens, key=len, reverse=True)))
            if self.special_tokens else None
        )
        self.metadata: dict[str, Any] = dict(metadata or {})

    # ----------------------------------------------------------------- encoding
    def _segments(self, text: str, split_special: bool) -> list[tuple[str, int, bool]]:
        """Cut the input at special tokens: ``(segment, start, is_special)``."""
        if self._special_re is None or not split_special:
            return [(text, 0, False)]
        out: list[tuple[str, int, bool]] = []
        pos = 0
        for m in self._special_re.finditer(text):
            if m.start() > pos:
                out.append((text[pos:m.start()], pos, False))
            out.append((m.group(), m.start(), True))
            pos = m.end()
        if pos < len(text):
            out.append((text[pos:], pos, False))
        return out

    def _pieces(self, text: str) -> tuple[NormalizedString, list[Piece]]:
        if self.normalizer is not None:
            ns = self.normalizer.normalize(text)
        else:  # the alignment is never read without a normalizer (see _trace)
            ns = NormalizedString(text, [], len(text))
        if self.pre_tokenizer is None:
            pieces = [Piece(ns.text, 0, len(ns.text))] if ns.text else []
        else:
            pieces = self.pre_tokenizer.split(ns.text)
        return ns, pieces

    def _tokenize_piece(self, piece: str, rng: Optional[random.Random], sampling: Optional[Sampling]) -> list[Token]:
        if sampling is None:
            return self.model.tokenize(piece)
        sampler = getattr(self.model, "tokenize_sampled", None)
        if sampler is None:
            raise TokenizerError(f"the {type(self.model).__name__} model cannot sample segmentations")
        return sampler(piece, rng=rng, sampling=sampling)

    def _trace(self, text: str, *, split_special: bool, sampling: Optional[Sampling],
               sequence_id: int) -> tuple[list[PieceTrace], Encoding, str]:
        if not isinstance(text, str):
            raise TokenizerError(f"can only encode text (str), got {type(text).__name__}")
        if len(text) > MAX_INPUT_CHARS:
            raise TokenizerError(
                f"input of {len(text):,} characters is too long for one call; encode it line by line"
            )
        rng = random.Random(sampling.seed) if sampling is not None else None
        tokens: list[Token] = []
        word_ids: list[Optional[int]] = []
        special: list[int] = []
        traces: list[PieceTrace] = []
        normalized_parts: list[str] = []
        word = 0
        for segment, base, is_special in self._segments(text, split_special):
            if is_special:
                tok = Token(self._special_ids[segment], segment, (base, base + len(segment)))
                tokens.append(tok)
                word_ids.append(None)
                special.append(1)
                traces.append(PieceTrace(segment, tok.offsets, [tok]))
                normalized_parts.append(segment)
                continue
            ns, pieces = self._pieces(segment)
            normalized_parts.append(ns.text)
            # Without a normalizer the normalized text is the input: skip the alignment lookups.
            to_original = ns.original_span if self.normalizer is not None else _identity_span
            for piece in pieces:
                piece_tokens = []
                for t in self._tokenize_piece(piece.text, rng, sampling):
                    o0, o1 = to_original(*piece.token_span(*t.offsets))
                    piece_tokens.append(Token(t.id, t.text, (o0 + base, o1 + base)))
                o0, o1 = to_original(piece.start, piece.end)
                traces.append(PieceTrace(piece.text, (o0 + base, o1 + base), piece_tokens))
                tokens.extend(piece_tokens)
                word_ids.extend([word] * len(piece_tokens))
                special.extend([0] * len(piece_tokens))
                word += 1
        enc = Encoding.from_tokens(tokens, word_ids=word_ids, type_id=sequence_id, sequence_id=sequence_id)
        enc.special_tokens_mask = special
        return traces, enc, "".join(normalized_parts)

    def encode_sequence(self, text: str, *, sequence_id: int = 0, sampling: Optional[Sampling] = None,
                        split_special_tokens: bool = True) -> Encoding:
        """Model tokens of one text, with offsets and word ids, before any special tokens are added."""
        return self._trace(text, split_special=split_special_tokens, sampling=sampling, sequence_id=sequence_id)[1]

    def encode(
        self,
        text: str,
        pair: Optional[str] = None,
        *,
        add_special_tokens: bool = True,
        truncation: Optional["TruncationParams"] = None,
        sampling: Optional[Sampling] = None,
    ) -> Encoding:
        """Encode a text (or a pair of texts) into an :class:`Encoding`."""
        a = self.encode_sequence(text, sequence_id=0, sampling=sampling)
        b = None if pair is None else self.encode_sequence(pair, sequence_id=1, sampling=sampling)
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
        return_overflowing: bool = False,
    ) -> "BatchEncoding":
        """Encode many texts (optionally pairs) and pad/truncate them into a batch.

        With ``return_overflowing`` the windows cut off by truncation become rows of their own
        (see ``BatchEncoding.overflow_to_sample_mapping``)."""
        if pairs is not None and len(pairs) != len(texts):
            raise TokenizerError(f"got {len(texts)} texts but {len(pairs)} pair texts; give one pair per text")
        encs = [
            self.encode(t, None if pairs is None else pairs[i], add_special_tokens=add_special_tokens,
                        truncation=truncation, sampling=sampling)
            for i, t in enumerate(texts)
        ]
        return batching.make_batch(encs, padding=padding, return_overflowing=return_overflowing)

    def explain(self, text: str) -> PipelineTrace:
        """Every stage for one text: normalized text, pieces with offsets, tokens per piece."""
        traces, enc, normalized = self._trace(text, split_special=True, sampling=None, sequence_id=0)
        return PipelineTrace(text, normalized, traces, enc)

    def tokenize(self, text: str) -> list[str]:
        """Token strings of ``text`` (no special tokens added)."""
        return self.encode_sequence(text).tokens

    # ----------------------------------------------------------------- decoding
    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = True) -> str:
        """Text for a list of ids; unknown ids are an error."""
        tokens = []
        for i in ids:
            if not isinstance(i, int) or isinstance(i, bool):
                raise TokenizerError(f"token ids must be integers, got {i!r}")
            if skip_special_tokens and i in self._special_id_set:
                continue
            t = self.model.id_to_token(i)
            if t is None:
                raise TokenizerError(f"id {i} is not in the vocabulary (0..{self.vocab_size - 1})")
            tokens.append(t)
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder.decode(tokens)

    def decode_batch(self, batch: Iterable[Iterable[int]], *, skip_special_tokens: bool = True) -> list[str]:
        return [self.decode(ids, skip_special_tokens=skip_special_tokens) for ids in batch]

    # ------------------------------------------------------------- vocabulary
    def token_to_id(self, token: str) -> Optional[int]:
        return self.model.token_to_id(token)

    def id_to_token(self, token_id: int) -> Optional[str]:
        return self.model.id_to_token(token_id)

    def get_vocab(self) -> dict[str, int]:
        return self.model.get_vocab()

    @property
    def vocab_size(self) -> int:
        return self.model.vocab_size

    def is_special_id(self, token_id: int) -> bool:
        return token_id in self._special_id_set

    # ---------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """The package's own versioned JSON form."""
        def opt(c: Any) -> Optional[dict[str, Any]]:
            return None if c is None else c.to_dict()

        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "special_tokens": list(self.special_tokens),
            "normalizer": opt(self.normalizer),
            "pre_tokenizer": opt(self.pre_tokenizer),
            "model": self.model.to_dict(),
            "post_processor": opt(self.post_processor),
            "decoder": opt(self.decoder),
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, data: Any) -> "Tokenizer":
        """Rebuild from :meth:`to_dict` output, checking the format name and version."""
        _register_all()
        if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
            raise FormatError(f"not a {FORMAT_NAME} tokenizer file (missing \"format\": \"{FORMAT_NAME}\")")
        version = data.get("version")
        if not isinstance(version, int):
            raise FormatError("tokenizer file has no integer \"version\" field")
        if version > FORMAT_VERSION:
            raise FormatError(
                f"tokenizer file version {version} is newer than this program understands ({FORMAT_VERSION}); upgrade"
            )
        if "model" not in data:
            raise FormatError("tokenizer file has no \"model\"")
        specials = data.get("special_tokens", [])
        if not isinstance(specials, list) or not all(isinstance(t, str) for t in specials):
            raise FormatError("\"special_tokens\" must be a list of strings")
        metadata = data.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise FormatError("\"metadata\" must be an object")
        with malformed_as_format_error("tokenizer file"):
            tok = cls(
                build("model", data["model"]),
                normalizer=build("normalizer", data.get("normalizer")),
                pre_tokenizer=build("pre_tokenizer", data.get("pre_tokenizer")),
                post_processor=build("post_processor", data.get("post_processor")),
                decoder=build("decoder", data.get("decoder")),
                special_tokens=specials,
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
            except TokenizerError as err:
                if isinstance(err, FormatError):
                    raise
                # An unknown character without an unknown token is a property of the vocabulary,
                # not a broken file.
                if "no unknown token" not in str(err) and "not in the vocabulary" not in str(err):
                    raise

    def save(self, path: Union[str, Path]) -> None:
        """Write the own JSON format (UTF-8)."""
        Path(path).write_text(json.dumps(self.to_dict(), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Union[str, Path]) -> "Tokenizer":
        """Read a file written by :meth:`save`; malformed files raise :class:`FormatError`."""
        return cls.from_dict(_read_json(path))

    def to_hf_json(self) -> dict[str, Any]:
        """A Hugging Face ``tokenizer.json`` document for this tokenizer."""
        def opt(c: Any) -> Optional[dict[str, Any]]:
            return None if c is None else c.to_hf()

        added = [
            {"id": self._special_ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for t in self.special_tokens
        ]
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": sorted(added, key=lambda a: a["id"]),
            "normalizer": opt(self.normalizer),
            "pre_tokenizer": opt(self.pre_tokenizer),
            "post_processor": opt(self.post_processor),
            "decoder": opt(self.decoder),
            "model": self.model.to_hf(),
        }

    def save_hf(self, path: Union[str, Path]) -> None:
        """Write a ``tokenizer.json`` that ``tokenizers.Tokenizer.from_file`` loads."""
        Path(path).write_text(json.dumps(self.to_hf_json(), ensure_ascii=False), encoding="utf-8")

    def __repr__(self) -> str:
        return f"Tokenizer(model={type(self.model).__name__}, vocab_size={self.vocab_size})"


def _identity_span(start: int, end: int) -> Offsets:
    return (start, end)


def _read_json(path: Union[str, Path]) -> Any:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as err:
        raise FormatError(f"cannot read {p}: {err.strerror or err}") from err
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise FormatError(f"{p} is not UTF-8 text (bad byte at offset {err.start})") from err
    except json.JSONDecodeError as err:
        raise FormatError(f"{p} is not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}") from err


def _register_all() -> None:
    """Import every module that registers components, so saved files can name them."""
    import importlib

    from . import models  # noqa: F401

    for name in ("processors", "bpe_train", "wordpiece_train", "unigram_train", "bert"):
        try:
            importlib.import_module(f"{__package__}.{name}")
        except ImportError:  # pragma: no cover - optional component modules
            pass
