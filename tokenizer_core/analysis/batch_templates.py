"""Post-processing templates of well-known models, for any tokenizer that has their tokens.

>>> from tokenizer_core.classic.word import WordLevel
>>> from tokenizer_core.pipeline import Tokenizer
>>> tok = Tokenizer(WordLevel({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hi": 3}, unk_token="[UNK]"))
>>> with_template(tok, "bert").encode("hi").tokens
['[CLS]', 'hi', '[SEP]']
>>> with_template(tok, "llama")
Traceback (most recent call last):
...
tokenizer_core.errors.TokenizerError: the llama template needs the token(s) <s>, which this tokenizer's vocabulary does not have
"""

from __future__ import annotations

import copy
from typing import Optional

from tokenizer_core.batch.templates import TemplateProcessing, parse_template
from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer

__all__ = ["TEMPLATES", "template_processor", "with_template"]

#: name -> (single template, pair template), in the ``tokenizers`` template syntax.
TEMPLATES: dict[str, tuple[str, str]] = {
    "bert": ("[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1"),
    "roberta": ("<s> $A </s>", "<s> $A </s> </s> $B </s>"),
    "gpt2": ("$A", "$A $B:1"),  # GPT-2 adds no special tokens
    "llama": ("<s> $A", "<s> $A <s>:1 $B:1"),
}


def template_processor(tok: Tokenizer, *, single: str, pair: str, name: str = "custom") -> TemplateProcessing:
    """A template processor whose special tokens take their ids from ``tok``'s vocabulary."""
    words = {p.id for t in (single, pair) for p in parse_template(t) if p.kind == "special"}
    missing = sorted(w for w in words if tok.token_to_id(w) is None)
    if missing:
        raise TokenizerError(f"the {name} template needs the token(s) {', '.join(missing)}, which this "
                             "tokenizer's vocabulary does not have")
    return TemplateProcessing(single=single, pair=pair, special_tokens=[(w, tok.token_to_id(w)) for w in sorted(words)])


def with_template(tok: Tokenizer, name: Optional[str], *, single: str = "$A", pair: str = "$A $B:1") -> Tokenizer:
    """A copy of ``tok`` with another post-processor: a named template, ``"custom"`` (``single``
    and ``pair``), ``"none"`` (no special tokens), or None / ``"own"`` for ``tok`` unchanged."""
    if name in (None, "own"):
        return tok
    out = copy.copy(tok)  # the stages are shared, never changed: only the post-processor differs
    if name == "none":
        out.post_processor = None
    elif name == "custom":
        out.post_processor = template_processor(tok, single=single, pair=pair)
    elif name in TEMPLATES:
        out.post_processor = template_processor(tok, single=TEMPLATES[name][0], pair=TEMPLATES[name][1], name=name)
    else:
        raise TokenizerError(f"unknown template {name!r}; use one of own, none, custom, {', '.join(TEMPLATES)}")
    return out
