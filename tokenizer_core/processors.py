"""Post-processors: the special tokens and type ids a model expects around its text.

A post-processor turns the model tokens of one text (``$A``) or a pair (``$A``,
``$B``) into the final :class:`~tokenizer_core.types.Encoding`, e.g. BERT's
``[CLS] A [SEP] B [SEP]`` with token type ids 0 for the first part and 1 for the
second. Everything here agrees with Hugging Face ``tokenizers``, including how
overflow windows left by truncation are combined (see :func:`merge_encodings`).

Templates use the ``tokenizers`` syntax: ``$A``/``$B`` are the texts, ``$A:1``
gives a type id, a bare ``$1`` means ``$A`` with type id 1, and any other word is a
special token (``[SEP]:1`` gives it type id 1).

>>> from tokenizer_core.types import Encoding, Token
>>> bert = TemplateProcessing.bert(cls=("[CLS]", 101), sep=("[SEP]", 102))
>>> a = Encoding.from_tokens([Token(7, "hi", (0, 2))])
>>> b = Encoding.from_tokens([Token(8, "yo", (0, 2))], type_id=1, sequence_id=1)
>>> enc = bert.process(a, b, add_special_tokens=True)
>>> enc.tokens, enc.type_ids, enc.special_tokens_mask
(['[CLS]', 'hi', '[SEP]', 'yo', '[SEP]'], [0, 0, 0, 1, 1], [1, 0, 1, 0, 1])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Protocol, Union, runtime_checkable

from .errors import TokenizerError
from .registry import build, register
from .types import Encoding

#: A special token given as ``(token, id)``, as in ``tokenizers``.
TokenSpec = tuple[str, int]


@runtime_checkable
class PostProcessor(Protocol):
    """What the pipeline needs from a post-processor."""

    def process(self, encoding: Encoding, pair: Optional[Encoding] = None, *, add_special_tokens: bool = True) -> Encoding: ...

    def num_special_tokens_to_add(self, is_pair: bool) -> int: ...

    def to_dict(self) -> dict[str, Any]: ...

    def to_hf(self) -> dict[str, Any]: ...


# ---------------------------------------------------------------- encodings


def copy_encoding(enc: Encoding, *, type_id: Optional[int] = None, overflowing: bool = True) -> Encoding:
    """A copy of ``enc``; ``type_id`` replaces the type ids of the main part only."""
    out = Encoding(
        ids=list(enc.ids),
        tokens=list(enc.tokens),
        offsets=list(enc.offsets),
        type_ids=[type_id] * len(enc) if type_id is not None else list(enc.type_ids),
        attention_mask=list(enc.attention_mask),
        special_tokens_mask=list(enc.special_tokens_mask),
        word_ids=list(enc.word_ids),
        sequence_ids=list(enc.sequence_ids),
    )
    if overflowing:
        out.overflowing = list(enc.overflowing)
    return out


def with_type_ids_everywhere(enc: Encoding, type_id: int) -> Encoding:
    """A copy with ``type_id`` on every token, overflow windows included."""
    out = copy_encoding(enc, type_id=type_id, overflowing=False)
    out.overflowing = [with_type_ids_everywhere(o, type_id) for o in enc.overflowing]
    return out


def merge_encodings(a: Encoding, b: Encoding) -> Encoding:
    """``a`` followed by ``b``, combining their overflow windows like ``tokenizers``.

    Every overflow window of ``a`` is paired with ``b`` (that result in turn
    holds ``a``'s window paired with each window of ``b``) and with each window of
    ``b``; then ``a`` itself is paired with each window of ``b``. This is why a
    truncated pair gives a nested, partly repeated list of windows.

    >>> from tokenizer_core.types import Token
    >>> a = Encoding.from_tokens([Token(1, "a", (0, 1))])
    >>> a.overflowing = [Encoding.from_tokens([Token(2, "b", (1, 2))])]
    >>> c = Encoding.from_tokens([Token(3, "c", (0, 1))])
    >>> m = merge_encodings(a, c)
    >>> m.ids, [o.ids for o in m.overflowing]
    ([1, 3], [[2, 3]])
    """
    overflowing: list[Encoding] = []
    for a_o in a.overflowing:
        overflowing.append(merge_encodings(a_o, b))
        overflowing.extend(merge_encodings(a_o, b_o) for b_o in b.overflowing)
    overflowing.extend(merge_encodings(a, b_o) for b_o in b.overflowing)
    out = Encoding(
        ids=a.ids + b.ids,
        tokens=a.tokens + b.tokens,
        offsets=a.offsets + b.offsets,
        type_ids=a.type_ids + b.type_ids,
        attention_mask=a.attention_mask + b.attention_mask,
        special_tokens_mask=a.special_tokens_mask + b.special_tokens_mask,
        word_ids=a.word_ids + b.word_ids,
        sequence_ids=a.sequence_ids + b.sequence_ids,
    )
    out.overflowing = overflowing
    return out


def merge_all(parts: Iterable[Encoding]) -> Encoding:
    """Merge parts left to right, starting from an empty encoding (as ``tokenizers``)."""
    out = Encoding()
    for part in parts:
        out = merge_encodings(out, part)
    return out


def _prepare(encoding: Encoding, pair: Optional[Encoding]) -> list[Encoding]:
    # tokenizers gives the i-th text type id i before any processor runs; only the
    # main part is relabelled, overflow windows keep what they had.
    parts = [copy_encoding(encoding, type_id=0)]
    if pair is not None:
        parts.append(copy_encoding(pair, type_id=1))
    return parts


def default_process(encoding: Encoding, pair: Optional[Encoding] = None) -> Encoding:
    """No special tokens: the text (type id 0) followed by the pair (type id 1)."""
    return merge_all(_prepare(encoding, pair))


# ------------------------------------------------------------ special tokens


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


def _resolve(spec: Union[str, TokenSpec, None], vocab: Optional[Mapping[str, int]], role: str) -> Optional[TokenSpec]:
    if spec is None or isinstance(spec, tuple):
        return spec
    if vocab is None:
        raise TokenizerError(f"{role} token {spec!r} given without its id: pass ({spec!r}, id) or vocab=...")
    if spec not in vocab:
        raise TokenizerError(f"{role} token {spec!r} is not in the vocabulary; add it as a special token first")
    return (spec, int(vocab[spec]))


# ----------------------------------------------------------------- templates


@dataclass(frozen=True)
class Piece:
    """One element of a template: a text (``kind="sequence"``, id ``A``/``B``) or a special token."""

    kind: str
    id: str
    type_id: int = 0

    @classmethod
    def parse(cls, text: str) -> "Piece":
        """Parse ``$A``, ``$B:1``, ``$1``, ``[SEP]`` or ``[SEP]:1`` (tokenizers' syntax).

        >>> Piece.parse("$B:1"), Piece.parse("$1"), Piece.parse("[SEP]")
        (Piece(kind='sequence', id='B', type_id=1), Piece(kind='sequence', id='A', type_id=1), Piece(kind='special', id='[SEP]', type_id=0))
        """
        parts = text.split(":")
        if len(parts) > 2:
            raise TokenizerError(f"cannot read template piece {text!r}: use NAME or NAME:TYPE_ID")
        name = parts[0]
        type_id = 0
        if len(parts) == 2:
            if not parts[1].isdigit() or not parts[1].isascii():
                raise TokenizerError(f"cannot read template piece {text!r}: the type id after ':' must be a number")
            type_id = int(parts[1])
        if not name:
            raise TokenizerError(f"cannot read template piece {text!r}: the name before ':' is empty")
        if not name.startswith("$"):
            return cls("special", name, type_id)
        rest = name[1:]
        if rest in ("", "A", "a"):
            return cls("sequence", "A", type_id)
        if rest in ("B", "b"):
            return cls("sequence", "B", type_id)
        if rest.isdigit() and rest.isascii() and len(parts) == 1:
            return cls("sequence", "A", int(rest))
        raise TokenizerError(f"cannot read template piece {text!r}: texts are $A or $B (optionally :TYPE_ID)")

    def to_hf(self) -> dict[str, Any]:
        key = "Sequence" if self.kind == "sequence" else "SpecialToken"
        return {key: {"id": self.id, "type_id": self.type_id}}

    @classmethod
    def from_hf(cls, data: Mapping[str, Any]) -> "Piece":
        if "Sequence" in data:
            return cls("sequence", str(data["Sequence"]["id"]), int(data["Sequence"].get("type_id", 0)))
        if "SpecialToken" in data:
            return cls("special", str(data["SpecialToken"]["id"]), int(data["SpecialToken"].get("type_id", 0)))
        raise TokenizerError(f"cannot read template piece {dict(data)!r}")

    def __str__(self) -> str:
        name = f"${self.id}" if self.kind == "sequence" else self.id
        return name if self.type_id == 0 else f"{name}:{self.type_id}"


TemplateSpec = Union[str, Sequence[Union[str, Mapping[str, Any], Piece]]]
_A, _B1 = Piece("sequence", "A"), Piece("sequence", "B", 1)


def _special(spec: Optional[TokenSpec], type_id: int = 0) -> Piece:
    # Built as a Piece, not parsed from text, so token names may hold spaces or ':'.
    if spec is None:
        raise TokenizerError("a special token is missing")
    return Piece("special", spec[0], type_id)


def parse_template(template: TemplateSpec) -> tuple[Piece, ...]:
    """Pieces of a template given as a string, a list of strings or ``tokenizers`` JSON.

    >>> [str(p) for p in parse_template("[CLS] $A [SEP] $B:1 [SEP]:1")]
    ['[CLS]', '$A', '[SEP]', '$B:1', '[SEP]:1']
    """
    items = template.split() if isinstance(template, str) else list(template)
    pieces = []
    for item in items:
        if isinstance(item, Piece):
            pieces.append(item)
        elif isinstance(item, Mapping):
            pieces.append(Piece.from_hf(item))
        elif isinstance(item, str):
            pieces.append(Piece.parse(item))
        else:
            raise TokenizerError(f"cannot read template piece {item!r}")
    return tuple(pieces)


class _PartsProcessor:
    """Shared driver: relabel type ids, let the subclass build the parts, merge them."""

    def process(self, encoding: Encoding, pair: Optional[Encoding] = None, *, add_special_tokens: bool = True) -> Encoding:
        """The final encoding of ``encoding`` (and ``pair``)."""
        parts = self.process_parts(_prepare(encoding, pair), add_special_tokens=add_special_tokens)
        return merge_all(parts)

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        raise NotImplementedError

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        raise NotImplementedError

    def to_hf(self) -> dict[str, Any]:
        return self.to_dict()  # type: ignore[attr-defined]

    @classmethod
    def from_hf(cls, data: dict[str, Any]) -> Any:
        return cls.from_dict(data)  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.to_dict() == other.to_dict()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()!r})"  # type: ignore[attr-defined]


@register("post_processor", "TemplateProcessing")
class TemplateProcessing(_PartsProcessor):
    """A user-defined template of special tokens around one text or a pair.

    ``pair`` defaults to ``"$A $B:1"`` and ``single`` to ``"$A"``, as in ``tokenizers``.

    >>> t = TemplateProcessing(single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", 1)])
    >>> t.num_special_tokens_to_add(False), t.num_special_tokens_to_add(True)
    (1, 2)
    >>> t.templates()
    ('<s> $A', '<s> $A <s>:1 $B:1')
    >>> TemplateProcessing(single="$A [SEP]", special_tokens=[])
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: template uses special token(s) [SEP] but special_tokens does not define them; pass special_tokens=[("[SEP]", id), ...]
    """

    def __init__(
        self,
        *,
        single: TemplateSpec = "$A",
        pair: Optional[TemplateSpec] = None,
        special_tokens: Union[Iterable[Any], Mapping[str, Any]] = (),
    ) -> None:
        self.single = parse_template(single)
        self.pair = parse_template("$A $B:1" if pair is None else pair)
        values = special_tokens.values() if isinstance(special_tokens, Mapping) else special_tokens
        self.special_tokens: dict[str, SpecialToken] = {}
        for value in values:
            token = SpecialToken.coerce(value)
            self.special_tokens[token.id] = token
        self._validate()

    def _validate(self) -> None:
        if any(p.kind == "sequence" and p.id == "B" for p in self.single):
            raise TokenizerError("the single template can only use $A (there is no second text); move $B to pair")
        if not any(p.kind == "sequence" for p in self.single):
            raise TokenizerError("the single template must contain $A, or the text would be dropped")
        used = {p.id for p in self.pair if p.kind == "sequence"}
        if used != {"A", "B"}:
            raise TokenizerError("the pair template must use both texts, $A and $B")
        missing = [p.id for p in self.single + self.pair if p.kind == "special" and p.id not in self.special_tokens]
        if missing:
            names = ", ".join(dict.fromkeys(missing))
            raise TokenizerError(
                f"template uses special token(s) {names} but special_tokens does not define them; "
                f'pass special_tokens=[("{missing[0]}", id), ...]'
            )

    # Convenience constructors for the usual model families. Each token is
    # ``(token, id)`` or a token string looked up in ``vocab``.
    @classmethod
    def bert(
        klass,  # not "cls": that name is the keyword for the CLS token, as in BertProcessing
        *,
        cls: Union[str, TokenSpec] = "[CLS]",
        sep: Union[str, TokenSpec] = "[SEP]",
        vocab: Optional[Mapping[str, int]] = None,
    ) -> "TemplateProcessing":
        """BERT: ``[CLS] A [SEP]`` and ``[CLS] A [SEP] B [SEP]`` with type ids 0 then 1.

        >>> TemplateProcessing.bert(vocab={"[CLS]": 2, "[SEP]": 3}).templates()
        ('[CLS] $A [SEP]', '[CLS] $A [SEP] $B:1 [SEP]:1')
        """
        c, s = _resolve(cls, vocab, "CLS"), _resolve(sep, vocab, "SEP")
        return klass(
            single=[_special(c), _A, _special(s)],
            pair=[_special(c), _A, _special(s), _B1, _special(s, 1)],
            special_tokens=[c, s],
        )

    @classmethod
    def gpt(
        cls,
        *,
        bos: Union[str, TokenSpec, None] = None,
        eos: Union[str, TokenSpec, None] = None,
        vocab: Optional[Mapping[str, int]] = None,
    ) -> "TemplateProcessing":
        """Decoder style: ``BOS A EOS`` (either may be left out); a pair frames each text.

        >>> TemplateProcessing.gpt(bos=("<|bos|>", 0), eos=("<|eos|>", 1)).templates()
        ('<|bos|> $A <|eos|>', '<|bos|> $A <|eos|> <|bos|>:1 $B:1 <|eos|>:1')
        >>> TemplateProcessing.gpt(eos=("<|endoftext|>", 50256)).templates()[0]
        '$A <|endoftext|>'
        """
        b = _resolve(bos, vocab, "BOS")
        e = _resolve(eos, vocab, "EOS")
        if b is None and e is None:
            raise TokenizerError("gpt template needs bos, eos or both")
        single = ([_special(b)] if b else []) + [_A] + ([_special(e)] if e else [])
        second = ([_special(b, 1)] if b else []) + [_B1] + ([_special(e, 1)] if e else [])
        return cls(single=single, pair=single + second, special_tokens=[t for t in (b, e) if t])

    @classmethod
    def roberta(
        klass,
        *,
        cls: Union[str, TokenSpec] = "<s>",
        sep: Union[str, TokenSpec] = "</s>",
        vocab: Optional[Mapping[str, int]] = None,
    ) -> "TemplateProcessing":
        """RoBERTa: ``<s> A </s></s> B </s>``, all type ids 0.

        (:class:`RobertaProcessing` is the same plus byte-level offset trimming.)

        >>> TemplateProcessing.roberta(vocab={"<s>": 0, "</s>": 2}).templates()[1]
        '<s> $A </s> </s> $B </s>'
        """
        c, s = _resolve(cls, vocab, "CLS"), _resolve(sep, vocab, "SEP")
        return klass(
            single=[_special(c), _A, _special(s)],
            pair=[_special(c), _A, _special(s), _special(s), Piece("sequence", "B"), _special(s)],
            special_tokens=[c, s],
        )

    def templates(self) -> tuple[str, str]:
        """The single and pair templates as strings."""
        return " ".join(map(str, self.single)), " ".join(map(str, self.pair))

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        template = self.pair if is_pair else self.single
        return sum(len(self.special_tokens[p.id].ids) for p in template if p.kind == "special")

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        _check_parts(parts, self)
        template = self.single if len(parts) == 1 else self.pair
        out = []
        for piece in template:
            if piece.kind == "sequence":
                # Only the kept window gets the template's type id: tokenizers
                # leaves overflow windows with the type id they already had.
                out.append(copy_encoding(parts[0 if piece.id == "A" else 1], type_id=piece.type_id))
            elif add_special_tokens:
                out.append(self.special_tokens[piece.id].encoding(piece.type_id))
        return out

    def to_dict(self) -> dict[str, Any]:
        """``tokenizers`` JSON (our own format uses the same shape)."""
        return {
            "type": "TemplateProcessing",
            "single": [p.to_hf() for p in self.single],
            "pair": [p.to_hf() for p in self.pair],
            "special_tokens": {k: v.to_hf() for k, v in self.special_tokens.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TemplateProcessing":
        return cls(single=data["single"], pair=data["pair"], special_tokens=data.get("special_tokens", {}))


def _check_parts(parts: list[Encoding], processor: object) -> None:
    if len(parts) not in (1, 2):
        raise TokenizerError(
            f"{type(processor).__name__} takes one text or a pair, got {len(parts)} parts "
            "(put it first in a Sequence post-processor, or only after ByteLevel)"
        )


def _token_spec(value: Any, role: str) -> TokenSpec:
    try:
        token, token_id = value
    except (TypeError, ValueError) as err:
        raise TokenizerError(f"{role} must be (token, id), got {value!r}") from err
    if not isinstance(token, str) or not isinstance(token_id, int) or isinstance(token_id, bool) or token_id < 0:
        raise TokenizerError(f"{role} must be (token, id) with a string token and an id of 0 or more, got {value!r}")
    return (token, token_id)


@register("post_processor", "BertProcessing")
class BertProcessing(_PartsProcessor):
    """``tokenizers``' BertProcessing: ``[CLS] A [SEP] B [SEP]``, type ids 0 then 1.

    >>> BertProcessing(sep=("[SEP]", 102), cls=("[CLS]", 101)).to_hf()
    {'type': 'BertProcessing', 'sep': ['[SEP]', 102], 'cls': ['[CLS]', 101]}
    """

    def __init__(self, *, sep: TokenSpec = ("[SEP]", 102), cls: TokenSpec = ("[CLS]", 101)) -> None:
        self.sep = _token_spec(sep, "sep")
        self.cls = _token_spec(cls, "cls")

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return 3 if is_pair else 2

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        _check_parts(parts, self)
        if not add_special_tokens:
            return parts
        cls_t, sep = SpecialToken.coerce(self.cls), SpecialToken.coerce(self.sep)
        out = [cls_t.encoding(0), parts[0], sep.encoding(0)]
        if len(parts) == 2:
            out += [parts[1], sep.encoding(1)]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"type": "BertProcessing", "sep": list(self.sep), "cls": list(self.cls)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BertProcessing":
        return cls(sep=tuple(data["sep"]), cls=tuple(data["cls"]))  # type: ignore[arg-type]


# Rust's char::is_whitespace (the Unicode White_Space property); str.isspace()
# differs on a few control characters.
_WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_BYTE_LEVEL_SPACE = "\u0120"  # "Ġ", the byte-level stand-in for a space
_SPACES = _BYTE_LEVEL_SPACE + "".join(sorted(_WHITE_SPACE))


def trim_offsets(enc: Encoding, *, add_prefix_space: bool = True) -> Encoding:
    """Offsets of byte-level tokens shrunk so that they leave out their spaces.

    A token ``"Ġworld"`` covering `` world`` then points at ``world`` only. The
    first token keeps one leading space when ``add_prefix_space`` (that space was
    added by the pre-tokenizer, not taken from the text). Overflow windows are
    trimmed too (one level, as in ``tokenizers``).

    >>> from tokenizer_core.types import Token
    >>> e = Encoding.from_tokens([Token(1, "hi", (0, 2)), Token(2, "Ġyou", (2, 6))])
    >>> trim_offsets(e).offsets
    [(0, 2), (3, 6)]
    """
    offsets = []
    for i, (token, (start, end)) in enumerate(zip(enc.tokens, enc.offsets)):
        leading = len(token) - len(token.lstrip(_SPACES))
        trailing = len(token) - len(token.rstrip(_SPACES))
        if leading and (i == 0 or start == 0) and add_prefix_space and leading == 1:
            leading = 0
        if leading:
            start = min(start + leading, end)
        if trailing and end >= trailing:
            end = max(end - trailing, start)
        offsets.append((start, end))
    out = copy_encoding(enc, overflowing=False)
    out.offsets = offsets
    out.overflowing = [_trim_one_level(o, add_prefix_space) for o in enc.overflowing]
    return out


def _trim_one_level(enc: Encoding, add_prefix_space: bool) -> Encoding:
    trimmed = trim_offsets(copy_encoding(enc, overflowing=False), add_prefix_space=add_prefix_space)
    trimmed.overflowing = list(enc.overflowing)
    return trimmed


@register("post_processor", "RobertaProcessing")
class RobertaProcessing(_PartsProcessor):
    """``tokenizers``' RobertaProcessing: ``<s> A </s></s> B </s>``, all type ids 0.

    With ``trim_offsets`` the offsets of byte-level tokens leave out their spaces.

    >>> RobertaProcessing(sep=("</s>", 2), cls=("<s>", 0)).num_special_tokens_to_add(True)
    4
    """

    def __init__(
        self,
        *,
        sep: TokenSpec = ("</s>", 2),
        cls: TokenSpec = ("<s>", 0),
        trim_offsets: bool = True,
        add_prefix_space: bool = True,
    ) -> None:
        self.sep = _token_spec(sep, "sep")
        self.cls = _token_spec(cls, "cls")
        self.trim_offsets = bool(trim_offsets)
        self.add_prefix_space = bool(add_prefix_space)

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return 4 if is_pair else 2

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        _check_parts(parts, self)
        if self.trim_offsets:
            parts = [trim_offsets(p, add_prefix_space=self.add_prefix_space) for p in parts]
        # RoBERTa has no segment embeddings: every text gets type id 0. Without
        # special tokens tokenizers relabels only the kept windows; with them,
        # the overflow windows too.
        parts = [copy_encoding(p, type_id=0) for p in parts]
        if not add_special_tokens:
            return parts
        cls_t, sep = SpecialToken.coerce(self.cls), SpecialToken.coerce(self.sep)
        out = [cls_t.encoding(0), with_type_ids_everywhere(parts[0], 0), sep.encoding(0)]
        if len(parts) == 2:
            out += [sep.encoding(0), with_type_ids_everywhere(parts[1], 0), sep.encoding(0)]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "RobertaProcessing",
            "sep": list(self.sep),
            "cls": list(self.cls),
            "trim_offsets": self.trim_offsets,
            "add_prefix_space": self.add_prefix_space,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RobertaProcessing":
        return cls(
            sep=tuple(data["sep"]),  # type: ignore[arg-type]
            cls=tuple(data["cls"]),  # type: ignore[arg-type]
            trim_offsets=data.get("trim_offsets", True),
            add_prefix_space=data.get("add_prefix_space", True),
        )


@register("post_processor", "ByteLevel")
class ByteLevelProcessing(_PartsProcessor):
    """``tokenizers``' ByteLevel post-processor (GPT-2): no special tokens, only offset trimming.

    >>> ByteLevelProcessing().to_hf()["type"]
    'ByteLevel'
    """

    def __init__(self, *, trim_offsets: bool = True, add_prefix_space: bool = True, use_regex: bool = True) -> None:
        self.trim_offsets = bool(trim_offsets)
        self.add_prefix_space = bool(add_prefix_space)
        self.use_regex = bool(use_regex)  # only kept for the JSON; it matters to the pre-tokenizer

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return 0

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        if not self.trim_offsets:
            return parts
        return [trim_offsets(p, add_prefix_space=self.add_prefix_space) for p in parts]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "ByteLevel",
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": self.trim_offsets,
            "use_regex": self.use_regex,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ByteLevelProcessing":
        return cls(
            trim_offsets=data.get("trim_offsets", True),
            add_prefix_space=data.get("add_prefix_space", True),
            use_regex=data.get("use_regex", True),
        )


@register("post_processor", "Sequence")
class SequenceProcessing(_PartsProcessor):
    """Several post-processors applied in turn (e.g. ByteLevel offsets, then a template).

    >>> s = SequenceProcessing([ByteLevelProcessing(), TemplateProcessing.gpt(bos=("<s>", 1))])
    >>> s.num_special_tokens_to_add(False)
    1
    """

    def __init__(self, processors: Sequence[Any]) -> None:
        self.processors = list(processors)
        for p in self.processors:
            if not hasattr(p, "process_parts"):
                raise TokenizerError(f"{type(p).__name__} cannot be used inside a Sequence post-processor")

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return sum(p.num_special_tokens_to_add(is_pair) for p in self.processors)

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        for p in self.processors:
            parts = p.process_parts(parts, add_special_tokens=add_special_tokens)
        return parts

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Sequence", "processors": [p.to_dict() for p in self.processors]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SequenceProcessing":
        return cls([build("post_processor", d) for d in data["processors"]])


# Token names tried, in order, for each role of the presets: BERT-style names,
# RoBERTa/GPT-style names, then the defaults of our trainers ([BOS]/[EOS]).
_ROLE_NAMES = {
    "cls": ("[CLS]", "<s>", "[BOS]", "<|bos|>", "<|begin_of_text|>"),
    "sep": ("[SEP]", "</s>", "[EOS]", "<|eos|>", "<|endoftext|>"),
    "bos": ("[BOS]", "<s>", "<|bos|>", "<|begin_of_text|>", "[CLS]", "<|endoftext|>"),
    "eos": ("[EOS]", "</s>", "<|eos|>", "<|endoftext|>", "<|end_of_text|>", "[SEP]"),
}
PRESETS: tuple[str, ...] = ("none", "bert", "roberta", "gpt")


def _find_role(role: str, vocab: Mapping[str, int]) -> TokenSpec:
    for name in _ROLE_NAMES[role]:
        if name in vocab:
            return (name, int(vocab[name]))
    raise TokenizerError(
        f"no {role.upper()} token in the vocabulary (looked for {', '.join(_ROLE_NAMES[role])}); "
        "train with one of them among the special tokens, or build a TemplateProcessing yourself"
    )


def preset(name: str, *, vocab: Mapping[str, int]) -> Optional[PostProcessor]:
    """A ready post-processor by family name, using whichever usual special tokens ``vocab`` has.

    >>> preset("bert", vocab={"[PAD]": 0, "[BOS]": 1, "[EOS]": 2}).templates()
    ('[BOS] $A [EOS]', '[BOS] $A [EOS] $B:1 [EOS]:1')
    >>> preset("none", vocab={}) is None
    True
    """
    if name == "none":
        return None
    if name == "bert":
        return TemplateProcessing.bert(cls=_find_role("cls", vocab), sep=_find_role("sep", vocab))
    if name == "roberta":
        return TemplateProcessing.roberta(cls=_find_role("cls", vocab), sep=_find_role("sep", vocab))
    if name == "gpt":
        return TemplateProcessing.gpt(bos=_find_role("bos", vocab), eos=_find_role("eos", vocab))
    raise TokenizerError(f"unknown post-processor preset {name!r}; use one of {', '.join(PRESETS)}")


def post_processor_from_hf(data: Optional[dict[str, Any]]) -> Optional[PostProcessor]:
    """The post-processor of a ``tokenizer.json`` (its ``"post_processor"`` object).

    >>> post_processor_from_hf({"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}).cls
    ('[CLS]', 2)
    """
    return build("post_processor", data)
