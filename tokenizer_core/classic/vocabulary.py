"""A vocabulary: token strings with ids, special tokens first.

Built from token counts, most frequent first, ties broken alphabetically (by
code point), after the special tokens. ``max_size`` counts the special tokens,
like ``vocab_size`` in Hugging Face ``tokenizers``.

>>> v = Vocabulary.build({"low": 5, "lower": 2, "newest": 6, "widest": 3})
>>> [v.id_to_token(i) for i in range(len(v))]
['[PAD]', '[UNK]', '[BOS]', '[EOS]', 'newest', 'low', 'widest', 'lower']
>>> v.token_to_id("newest"), v.unk_id
(4, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import DEFAULT_SPECIAL_TOKENS


class Vocabulary:
    """Bidirectional token <-> id map with the special tokens at the lowest ids."""

    def __init__(
        self,
        tokens: Iterable[str],
        *,
        special_tokens: Iterable[str] = DEFAULT_SPECIAL_TOKENS,
        unk_token: Optional[str] = "[UNK]",
    ) -> None:
        specials = list(special_tokens)
        ordered = specials + [t for t in tokens if t not in set(specials)]
        self._ids: dict[str, int] = {}
        for t in ordered:
            if t in self._ids:
                raise TokenizerError(f"token {t!r} appears twice in the vocabulary")
            if t == "":
                raise TokenizerError("the empty string cannot be a token")
            self._ids[t] = len(self._ids)
        self._tokens = ordered
        self.special_tokens: tuple[str, ...] = tuple(specials)
        if unk_token is not None and unk_token not in self._ids:
            raise TokenizerError(f"unknown-token {unk_token!r} is not among the special tokens {specials}")
        self.unk_token = unk_token

    @classmethod
    def build(
        cls,
        counts: Mapping[str, int],
        *,
        special_tokens: Iterable[str] = DEFAULT_SPECIAL_TOKENS,
        unk_token: Optional[str] = "[UNK]",
        min_frequency: int = 0,
        max_size: Optional[int] = None,
    ) -> "Vocabulary":
        """Vocabulary of the tokens counted at least ``min_frequency`` times, frequent first."""
        specials = list(special_tokens)
        if max_size is not None and max_size < len(specials):
            raise TokenizerError(
                f"a vocabulary of {max_size} cannot hold the {len(specials)} special tokens; use at least {len(specials)}"
            )
        ranked = sorted((t for t, c in counts.items() if c >= min_frequency and t not in specials),
                        key=lambda t: (-counts[t], t))
        if max_size is not None:
            ranked = ranked[: max_size - len(specials)]
        return cls(ranked, special_tokens=specials, unk_token=unk_token)

    @property
    def unk_id(self) -> Optional[int]:
        return None if self.unk_token is None else self._ids[self.unk_token]

    def token_to_id(self, token: str) -> Optional[int]:
        return self._ids.get(token)

    def id_to_token(self, token_id: int) -> Optional[str]:
        return self._tokens[token_id] if 0 <= token_id < len(self._tokens) else None

    def get_vocab(self) -> dict[str, int]:
        return dict(self._ids)

    def __len__(self) -> int:
        return len(self._tokens)

    def __contains__(self, token: object) -> bool:
        return token in self._ids

    def tokens(self) -> list[str]:
        return list(self._tokens)

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self._tokens, "special_tokens": list(self.special_tokens), "unk_token": self.unk_token}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Vocabulary":
        specials = list(data["special_tokens"])
        return cls(data["tokens"][len(specials):], special_tokens=specials, unk_token=data.get("unk_token"))
