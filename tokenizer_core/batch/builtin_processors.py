"""``tokenizers``' fixed post-processors: Bert, Roberta, ByteLevel (offset trimming) and Sequence.

>>> BertProcessing().process(Encoding()).tokens
['[CLS]', '[SEP]']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenizer_core.batch.encodings import copy_encoding, with_type_ids_everywhere
from tokenizer_core.batch.processor_base import PartsProcessor, check_parts
from tokenizer_core.batch.special_tokens import SpecialToken, TokenSpec, token_spec
from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import build, register
from tokenizer_core.types import Encoding


@register("post_processor", "BertProcessing")
class BertProcessing(PartsProcessor):
    """``tokenizers``' BertProcessing: ``[CLS] A [SEP] B [SEP]``, type ids 0 then 1.

    >>> BertProcessing(sep=("[SEP]", 102), cls=("[CLS]", 101)).to_hf()
    {'type': 'BertProcessing', 'sep': ['[SEP]', 102], 'cls': ['[CLS]', 101]}
    """

    def __init__(self, *, sep: TokenSpec = ("[SEP]", 102), cls: TokenSpec = ("[CLS]", 101)) -> None:
        self.sep = token_spec(sep, "sep")
        self.cls = token_spec(cls, "cls")

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return 3 if is_pair else 2

    def single_unchanged(self) -> bool:
        return True  # without special tokens: the parts as prepared (type id 0)

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        check_parts(parts, self)
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
class RobertaProcessing(PartsProcessor):
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
        self.sep = token_spec(sep, "sep")
        self.cls = token_spec(cls, "cls")
        self.trim_offsets = bool(trim_offsets)
        self.add_prefix_space = bool(add_prefix_space)

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return 4 if is_pair else 2

    def single_unchanged(self) -> bool:
        return not self.trim_offsets

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        check_parts(parts, self)
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
class ByteLevelProcessing(PartsProcessor):
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

    def single_unchanged(self) -> bool:
        return not self.trim_offsets

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
class SequenceProcessing(PartsProcessor):
    """Several post-processors applied in turn (e.g. ByteLevel offsets, then a template).

    >>> from tokenizer_core.batch.templates import TemplateProcessing
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

    def single_unchanged(self) -> bool:
        return all(p.single_unchanged() for p in self.processors)

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        for p in self.processors:
            parts = p.process_parts(parts, add_special_tokens=add_special_tokens)
        return parts

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Sequence", "processors": [p.to_dict() for p in self.processors]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SequenceProcessing":
        return cls([build("post_processor", d) for d in data["processors"]])
