"""Post-processors: the special tokens and type ids a model expects around its text, and presets.

A post-processor turns the model tokens of one text (``$A``) or a pair (``$A``,
``$B``) into the final :class:`~tokenizer_core.types.Encoding`, e.g. BERT's
``[CLS] A [SEP] B [SEP]`` with token type ids 0 for the first part and 1 for the
second. Everything agrees with Hugging Face ``tokenizers``, including how
overflow windows left by truncation are combined (see :func:`merge_encodings`).

This module picks a processor by family name (:func:`preset`) or from a
``tokenizer.json``, and re-exports the pieces it is built from, so callers can
import any of them from here: encodings (:mod:`~tokenizer_core.batch.encodings`),
special tokens (:mod:`~tokenizer_core.batch.special_tokens`), templates
(:mod:`~tokenizer_core.batch.templates`) and ``tokenizers``' fixed processors
(:mod:`~tokenizer_core.batch.builtin_processors`).

>>> from tokenizer_core.types import Encoding, Token
>>> bert = TemplateProcessing.bert(cls=("[CLS]", 101), sep=("[SEP]", 102))
>>> a = Encoding.from_tokens([Token(7, "hi", (0, 2))])
>>> b = Encoding.from_tokens([Token(8, "yo", (0, 2))], type_id=1, sequence_id=1)
>>> enc = bert.process(a, b, add_special_tokens=True)
>>> enc.tokens, enc.type_ids, enc.special_tokens_mask
(['[CLS]', 'hi', '[SEP]', 'yo', '[SEP]'], [0, 0, 0, 1, 1], [1, 0, 1, 0, 1])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from tokenizer_core.batch.builtin_processors import (
    BertProcessing,
    ByteLevelProcessing,
    RobertaProcessing,
    SequenceProcessing,
    trim_offsets,
)
from tokenizer_core.batch.encodings import (
    copy_encoding,
    default_process,
    merge_all,
    merge_encodings,
    with_type_ids_everywhere,
)
from tokenizer_core.batch.processor_base import PostProcessor
from tokenizer_core.batch.special_tokens import SpecialToken, TokenSpec
from tokenizer_core.batch.templates import Piece, TemplateProcessing, TemplateSpec, parse_template
from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import build

__all__ = [
    "PRESETS",
    "BertProcessing",
    "ByteLevelProcessing",
    "Piece",
    "PostProcessor",
    "RobertaProcessing",
    "SequenceProcessing",
    "SpecialToken",
    "TemplateProcessing",
    "TemplateSpec",
    "TokenSpec",
    "copy_encoding",
    "default_process",
    "merge_all",
    "merge_encodings",
    "parse_template",
    "post_processor_from_hf",
    "preset",
    "trim_offsets",
    "with_type_ids_everywhere",
]


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
