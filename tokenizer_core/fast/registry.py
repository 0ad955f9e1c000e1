"""The ordered registry of fast paths: which one encodes a tokenizer's texts, and why the others do not.

Each kind of fast path (:class:`~tokenizer_core.fast.protocol.PlannedPath`) is asked in the order
of :data:`FAST_PATHS`; the first whose plan fits the tokenizer's stages encodes its texts. The
answers of all of them are kept, so :func:`explain_fast_path` can say, once per tokenizer, which
path runs (and whether in the compiled kernel), when a text still takes the general path, and why
each other kind refused. Adding a kind of fast path is adding a class with a ``plan`` here.

>>> from tokenizer_core.wordpiece.model import WordPiece
>>> from tokenizer_core.text.pre_tokenizers import WhitespaceSplit
>>> from tokenizer_core.pipeline import Tokenizer
>>> report = explain_fast_path(Tokenizer(WordPiece({"[UNK]": 0, "a": 1}), pre_tokenizer=WhitespaceSplit()))
>>> report.chosen
"chunks cut at white space (BERT's and plain word splitters)"
>>> report.refused[0]
("byte-level BPE (GPT-2's family, Llama 3, Qwen)", 'the model (WordPiece) is not BPE')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from tokenizer_core.fast.byte_level import ByteLevelFastPath
from tokenizer_core.fast.chain import LocalChainFastPath
from tokenizer_core.fast.chunked import ChunkedFastPath
from tokenizer_core.fast.protocol import FastPath, PlannedPath
from tokenizer_core.fast.replaced_spaces import ReplacedSpacesFastPath
from tokenizer_core.fast.sentencepiece import SentencePieceFastPath
from tokenizer_core.fast.split import SplitFastPath

__all__ = ["FAST_PATHS", "FastPathReport", "FastPathSlot", "choose", "explain_fast_path"]

#: Every kind of fast path, in the order they are asked: the most specific (and fastest) first.
FAST_PATHS: tuple[type[PlannedPath], ...] = (ByteLevelFastPath, ChunkedFastPath, SplitFastPath, LocalChainFastPath,
                                             SentencePieceFastPath, ReplacedSpacesFastPath)

Refusals = tuple[tuple[str, str], ...]  # (a kind's name, why it does not fit), in registry order


def choose(normalizer: Any, pre_tokenizer: Any, model: Any) -> tuple[Optional[FastPath], Refusals]:
    """The first fast path whose plan fits these stages (None: the general path), and why each kind
    asked before it (all of them, when none fits) did not."""
    refused: list[tuple[str, str]] = []
    for kind in FAST_PATHS:
        made = kind.plan(normalizer=normalizer, pre_tokenizer=pre_tokenizer, model=model)
        if not isinstance(made, str):
            return made, tuple(refused)  # type: ignore[return-value]
        refused.append((kind.name, made))
    return None, tuple(refused)


class FastPathSlot:
    """A tokenizer's fast path, chosen again when one of its stages is swapped (``tok.model = ...``)."""

    __slots__ = ("_stages", "_fast", "_refused")

    def __init__(self) -> None:
        self._stages: tuple[Any, ...] = ()
        self._fast: Optional[FastPath] = None
        self._refused: Refusals = ()

    def get(self, normalizer: Any, pre_tokenizer: Any, model: Any) -> Optional[FastPath]:
        """The fast path for these stages, or None when they need the general path."""
        stages = self._stages
        if not stages or stages[0] is not normalizer or stages[1] is not pre_tokenizer or stages[2] is not model:
            self._stages = (normalizer, pre_tokenizer, model)
            self._fast, self._refused = choose(normalizer, pre_tokenizer, model)
        return self._fast

    def refused(self, normalizer: Any, pre_tokenizer: Any, model: Any) -> Refusals:
        """Why the kinds asked before the chosen one (or all, with none) did not fit these stages."""
        self.get(normalizer, pre_tokenizer, model)
        return self._refused


@dataclass(frozen=True)
class FastPathReport:
    """How one tokenizer's texts are encoded, for people.

    ``chosen``: the fast path's name, or None (every text takes the general path); ``compiled``:
    the kernel does its work; ``limits``: when a text still takes the general path; ``refused``:
    each other kind asked first, with why it does not fit."""

    chosen: Optional[str]
    compiled: bool
    limits: tuple[str, ...]
    refused: Refusals

    def sentences(self) -> list[str]:
        """The report as sentences.

        >>> FastPathReport(None, False, (), (("x", "the model is odd"),)).sentences()
        ['Every text takes the general path (exact, one token at a time in Python).', 'Not x: the model is odd.']
        """
        if self.chosen is None:
            head = "Every text takes the general path (exact, one token at a time in Python)."
        else:
            head = f"Fast path: {self.chosen}, " + ("in the compiled kernel." if self.compiled
                                                    else "in Python (the compiled kernel is not built here).")
        return [head, *self.limits, *(f"Not {name}: {why}." for name, why in self.refused)]


def explain_fast_path(tok: Any) -> FastPathReport:
    """Which fast path encodes ``tok``'s texts, when a text still takes the general path, and why
    each kind asked before it refused (see the module's example)."""
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    refused = tok._fast.refused(tok.normalizer, tok.pre_tokenizer, tok.model)
    if fast is None:
        return FastPathReport(None, False, (), refused)
    limits = fast.limits()
    if tok.added.has_tokens(normalized=True, skip_special=False) and not isinstance(fast, ByteLevelFastPath):
        limits = ("It has added tokens matched in normalized text, found only by normalizing a whole text: every "
                  "text takes the general path.", *limits)
    return FastPathReport(fast.name, fast.compiled(), limits, refused)
