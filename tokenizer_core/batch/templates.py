"""Template post-processing: ``tokenizers``' template syntax, its parsing and :class:`TemplateProcessing`.

Templates use the ``tokenizers`` syntax: ``$A``/``$B`` are the texts, ``$A:1``
gives a type id, a bare ``$1`` means ``$A`` with type id 1, and any other word is a
special token (``[SEP]:1`` gives it type id 1).

>>> TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]).templates()
('[CLS] $A [SEP]', '$A $B:1')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from tokenizer_core.batch.encodings import copy_encoding
from tokenizer_core.batch.processor_base import PartsProcessor, check_parts
from tokenizer_core.batch.special_tokens import SpecialToken, TokenSpec, resolve_token
from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import register
from tokenizer_core.types import Encoding


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


@register("post_processor", "TemplateProcessing")
class TemplateProcessing(PartsProcessor):
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
        c, s = resolve_token(cls, vocab, "CLS"), resolve_token(sep, vocab, "SEP")
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
        b = resolve_token(bos, vocab, "BOS")
        e = resolve_token(eos, vocab, "EOS")
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
        c, s = resolve_token(cls, vocab, "CLS"), resolve_token(sep, vocab, "SEP")
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

    def single_unchanged(self) -> bool:
        sequences = [p for p in self.single if p.kind == "sequence"]
        return len(sequences) == 1 and sequences[0].id == "A" and sequences[0].type_id == 0

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        check_parts(parts, self)
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
