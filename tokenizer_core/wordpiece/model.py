"""WordPiece model: greedy longest-match-first encoding with ``##`` continuations.

Encoding a word (one pre-tokenized piece) takes, from the current position, the
longest vocabulary entry that matches there: the bare string at the start of
the word, the prefixed string (``"##" + ...``) anywhere else. If at some
position nothing matches, the *whole* word becomes the unknown token, and so
does any word longer than ``max_input_chars_per_word`` characters. This is the
BERT / Hugging Face ``tokenizers`` behaviour, token for token.

>>> wp = WordPiece({"[UNK]": 0, "hug": 1, "##s": 2, "b": 3, "##u": 4, "##gs": 5})
>>> [t.text for t in wp.tokenize("hugs")], [t.text for t in wp.tokenize("bugs")]
(['hug', '##s'], ['b', '##u', '##gs'])
>>> [t.text for t in wp.tokenize("mug")]
['[UNK]']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.model_base import VocabLookup, checked_vocab
from tokenizer_core.registry import register
from tokenizer_core.types import CACHE_LIMIT, Token

DEFAULT_MAX_INPUT_CHARS_PER_WORD = 100
# What Rust's str::trim_end removes (Unicode White_Space); Python's str.rstrip()
# would also remove the separators U+001C..U+001F.
_RUST_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) \
    + "\u2028\u2029\u202f\u205f\u3000"


@dataclass(frozen=True, slots=True)
class MatchAttempt:
    """One lookup of the longest-match search: ``candidate`` covers ``word[start:end]``."""

    start: int
    end: int
    candidate: str
    found: bool


@dataclass(frozen=True)
class WordTrace:
    """How one word was encoded: every lookup in order, the tokens, and why it became [UNK].

    >>> t = WordPiece({"[UNK]": 0, "a": 1, "##b": 2}).trace("ab")
    >>> [(a.candidate, a.found) for a in t.attempts], t.unk_reason
    ([('ab', False), ('a', True), ('##b', True)], None)
    """

    word: str
    attempts: tuple[MatchAttempt, ...]
    tokens: tuple[Token, ...]
    unk_reason: Optional[str]


@register("model", "WordPiece")
class WordPiece(VocabLookup):
    """A WordPiece vocabulary and its greedy longest-match encoder.

    ``special_tokens`` lists the vocabulary entries that are special (they are
    exported as added tokens); the unknown token must be in the vocabulary.

    >>> wp = WordPiece({"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3})
    >>> [(t.text, t.offsets) for t in wp.tokenize("unaffable")]
    [('un', (0, 2)), ('##aff', (2, 5)), ('##able', (5, 9))]
    """

    type_name = "WordPiece"

    def __init__(
        self,
        vocab: Mapping[str, int],
        *,
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = DEFAULT_MAX_INPUT_CHARS_PER_WORD,
        special_tokens: Sequence[str] = (),
    ) -> None:
        self._vocab = checked_vocab(vocab, model="WordPiece", allow_empty=True)
        if unk_token not in self._vocab:
            raise TokenizerError(
                f"the unknown token {unk_token!r} is not in the vocabulary; add it or pass the "
                f"unk_token your vocabulary uses"
            )
        if isinstance(max_input_chars_per_word, bool) or not isinstance(max_input_chars_per_word, int) \
                or max_input_chars_per_word < 1:
            raise TokenizerError(f"max_input_chars_per_word must be a positive whole number, "
                                 f"got {max_input_chars_per_word!r}")
        missing = [t for t in special_tokens if t not in self._vocab]
        if missing:
            raise TokenizerError(f"special tokens {missing} are not in the vocabulary; add them first")
        self.unk_token = unk_token
        self.unk_id = self._vocab[unk_token]
        self.continuing_subword_prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self.special_tokens: tuple[str, ...] = tuple(special_tokens)
        self._inv = {i: t for t, i in self._vocab.items()}
        plen = len(continuing_subword_prefix)
        # No vocabulary entry longer than these can match, so the search starts there
        # instead of at the end of the word (same result, far fewer lookups).
        self._max_start_len = max((len(t) for t in self._vocab), default=0)
        self._max_cont_len = max((len(t) - plen for t in self._vocab if t.startswith(continuing_subword_prefix)),
                                 default=0)
        self._cache: dict[str, tuple[Token, ...]] = {}
        #: The training trace (:class:`~tokenizer_core.wordpiece.trainer.WordPieceTraining`) when this
        #: model was trained in this process; not saved with the model.
        self.training: Optional[Any] = None

    # -- encoding --------------------------------------------------------------------------------
    def tokenize(self, piece: str) -> list[Token]:
        """Tokens of one word; offsets are character positions inside ``piece``."""
        cached = self._cache.get(piece)
        if cached is None:
            cached = self._tokenize(piece)
            if len(self._cache) >= CACHE_LIMIT:
                self._cache.clear()
            self._cache[piece] = cached
        return list(cached)

    def _tokenize(self, piece: str) -> tuple[Token, ...]:
        n = len(piece)
        if n > self.max_input_chars_per_word:
            return (Token(self.unk_id, self.unk_token, (0, n)),)
        vocab, prefix = self._vocab, self.continuing_subword_prefix
        out: list[Token] = []
        start = 0
        while start < n:
            end = min(n, start + (self._max_cont_len if start else self._max_start_len))
            while end > start:
                sub = piece[start:end] if start == 0 else prefix + piece[start:end]
                tid = vocab.get(sub)
                if tid is not None:
                    out.append(Token(tid, sub, (start, end)))
                    break
                end -= 1
            else:
                return (Token(self.unk_id, self.unk_token, (0, n)),)
            start = end
        return tuple(out)

    def trace(self, piece: str) -> WordTrace:
        """Every longest-match lookup made for ``piece``, in order (the textbook search).

        The search at each position starts from the whole rest of the word, as
        in the textbook description; :meth:`tokenize` gives the same tokens.

        >>> t = WordPiece({"[UNK]": 0, "a": 1}).trace("ab")
        >>> [a.candidate for a in t.attempts], [x.text for x in t.tokens], t.unk_reason
        (['ab', 'a', '##b'], ['[UNK]'], "no vocabulary entry matches '##b' at position 1")
        """
        n = len(piece)
        if n > self.max_input_chars_per_word:
            reason = f"the word has {n} characters, more than max_input_chars_per_word={self.max_input_chars_per_word}"
            return WordTrace(piece, (), (Token(self.unk_id, self.unk_token, (0, n)),), reason)
        prefix = self.continuing_subword_prefix
        attempts: list[MatchAttempt] = []
        out: list[Token] = []
        start = 0
        while start < n:
            for end in range(n, start, -1):
                sub = piece[start:end] if start == 0 else prefix + piece[start:end]
                tid = self._vocab.get(sub)
                attempts.append(MatchAttempt(start, end, sub, tid is not None))
                if tid is not None:
                    out.append(Token(tid, sub, (start, end)))
                    start = end
                    break
            else:
                single = piece[start] if start == 0 else prefix + piece[start]
                reason = f"no vocabulary entry matches {single!r} at position {start}"
                return WordTrace(piece, tuple(attempts), (Token(self.unk_id, self.unk_token, (0, n)),), reason)
        return WordTrace(piece, tuple(attempts), tuple(out), None)

    # -- vocabulary ------------------------------------------------------------------------------

    # -- serialisation ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            "vocab": dict(self._vocab),
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "special_tokens": list(self.special_tokens),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "WordPiece":
        return cls(
            data["vocab"],
            unk_token=data.get("unk_token", "[UNK]"),
            continuing_subword_prefix=data.get("continuing_subword_prefix", "##"),
            max_input_chars_per_word=data.get("max_input_chars_per_word", DEFAULT_MAX_INPUT_CHARS_PER_WORD),
            special_tokens=tuple(data.get("special_tokens", ())),
        )

    def to_hf(self) -> dict[str, Any]:
        """The ``"model"`` object of a Hugging Face ``tokenizer.json``."""
        return {
            "type": "WordPiece",
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "vocab": dict(self._vocab),
        }

    @classmethod
    def from_hf(cls, data: Mapping[str, Any], *, special_tokens: Sequence[str] = ()) -> "WordPiece":
        """Read the ``"model"`` object of a ``tokenizer.json`` (type ``WordPiece``)."""
        if data.get("type") != "WordPiece":
            raise FormatError(f"expected a WordPiece model, got type {data.get('type')!r}")
        return cls.from_dict({**data, "special_tokens": list(special_tokens)})

    def __repr__(self) -> str:
        return f"WordPiece(vocab_size={self.vocab_size}, unk_token={self.unk_token!r})"


def read_vocab_txt(path: Union[str, Path]) -> dict[str, int]:
    """Read a BERT ``vocab.txt``: one token per line, the id is the line number (from 0).

    As in ``tokenizers``: trailing whitespace (a ``\\r``, spaces) is removed,
    an empty line is the empty token, and a token repeated on a later line takes
    that later id (the earlier id is left without a token). A leading UTF-8 byte
    order mark is dropped.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "vocab.txt")
    ...     _ = open(p, "w", encoding="utf-8").write("[UNK]\\nhug\\n##s\\n")
    ...     read_vocab_txt(p)
    {'[UNK]': 0, 'hug': 1, '##s': 2}
    """
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise FormatError(f"cannot read vocabulary file {str(path)!r}: {err.strerror or err}") from err
    if b"\x00" in data:
        raise FormatError(f"{str(path)!r} looks binary; a vocab.txt is UTF-8 text with one token per line")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise FormatError(f"{str(path)!r} is not UTF-8 (bad byte at offset {err.start}); "
                          f"a vocab.txt is UTF-8 text with one token per line") from err
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline after the last token
    vocab: dict[str, int] = {}
    for i, line in enumerate(lines):
        vocab[line.rstrip(_RUST_WHITESPACE)] = i
    if not vocab:
        raise FormatError(f"{str(path)!r} is empty; a vocab.txt has one token per line")
    return vocab
