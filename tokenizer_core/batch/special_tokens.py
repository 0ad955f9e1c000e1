"""Special tokens of post-processors: ``(token, id)`` specs, checked and looked up in a vocabulary.

>>> SpecialToken.coerce(("[CLS]", 101)).encoding(0).special_tokens_mask
[1]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional, Union

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding

#: A special token given as ``(token, id)``, as in ``tokenizers``.
TokenSpec = tuple[str, int]


@dataclass(frozen=True)
class SpecialToken:
    """A special token of a template; one name may stand for several tokens.

    >>> SpecialToken.coerce(("[SEP]", 102))
    SpecialToken(id='[SEP]', ids=(102,), tokens=('[SEP]',))
    """

    id: str
    ids: tuple[int, ...]
    tokens: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.tokens):
            raise TokenizerError(
                f"special token {self.id!r}: ids {list(self.ids)} and tokens {list(self.tokens)} "
                "must have the same length"
            )
        if not self.ids:
            raise TokenizerError(f"special token {self.id!r} needs at least one id")

    @classmethod
    def coerce(cls, value: Any) -> "SpecialToken":
        """Accept ``(token, id)``, ``{"id", "ids", "tokens"}`` or a :class:`SpecialToken`."""
        if isinstance(value, SpecialToken):
            return value
        if isinstance(value, Mapping):
            try:
                return cls(str(value["id"]), tuple(int(i) for i in value["ids"]), tuple(map(str, value["tokens"])))
            except KeyError as err:
                raise TokenizerError(f"special token {dict(value)!r} needs 'id', 'ids' and 'tokens'") from err
        if isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[0], str):
            token, token_id = value
            if not isinstance(token_id, int) or isinstance(token_id, bool) or token_id < 0:
                raise TokenizerError(f"special token {token!r} needs a token id (0 or more), got {token_id!r}")
            return cls(token, (token_id,), (token,))
        raise TokenizerError(f"cannot read a special token from {value!r}; give (token, id)")

    def to_hf(self) -> dict[str, Any]:
        return {"id": self.id, "ids": list(self.ids), "tokens": list(self.tokens)}

    def encoding(self, type_id: int) -> Encoding:
        n = len(self.ids)
        return Encoding(
            ids=list(self.ids),
            tokens=list(self.tokens),
            offsets=[(0, 0)] * n,
            type_ids=[type_id] * n,
            attention_mask=[1] * n,
            special_tokens_mask=[1] * n,
            word_ids=[None] * n,
            sequence_ids=[None] * n,
        )


def resolve_token(spec: Union[str, TokenSpec, None], vocab: Optional[Mapping[str, int]], role: str) -> Optional[TokenSpec]:
    if spec is None or isinstance(spec, tuple):
        return spec
    if vocab is None:
        raise TokenizerError(f"{role} token {spec!r} given without its id: pass ({spec!r}, id) or vocab=...")
    if spec not in vocab:
        raise TokenizerError(f"{role} token {spec!r} is not in the vocabulary; add it as a special token first")
    return (spec, int(vocab[spec]))


def token_spec(value: Any, role: str) -> TokenSpec:
    try:
        token, token_id = value
    except (TypeError, ValueError) as err:
        raise TokenizerError(f"{role} must be (token, id), got {value!r}") from err
    if not isinstance(token, str) or not isinstance(token_id, int) or isinstance(token_id, bool) or token_id < 0:
        raise TokenizerError(f"{role} must be (token, id) with a string token and an id of 0 or more, got {value!r}")
    return (token, token_id)
