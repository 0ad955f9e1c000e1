"""The fast path of pre-tokenizer chains that stay inside chunks: encodings from cached chunks.

A chain such as ``Sequence([Digits(individual_digits=True), Punctuation(), Metaspace()])`` before a BPE, WordPiece or
Unigram model splits the text into pieces and tokenizes each piece alone. If the text can be cut into chunks that no
piece crosses, each distinct chunk is encoded once, by the general path's steps, and a text is a lookup per chunk.
There are two chunk rules (:attr:`LocalChainFastPath.chunk_rule`):

* ``"words"``: chunks are runs of characters other than space, tab, LF and CR; separators produce no token. The chain
  needs a *dropper*, whose pieces hold no white space and whose matches never cross it: ``Whitespace``,
  ``WhitespaceSplit``, ``WordSplit`` or ``BertPreTokenizer``.
* ``"spaces"``: chunks are ``" *[^ ]+| +"``, a run of spaces and what follows up to the next space. Every character
  is in a chunk, so a space can start a token ("▁word"). Tab and newline are ordinary characters here. The chain
  needs a *cutter* at spaces: a dropper; ``Metaspace(split=True)``, where every "▁" after a piece's first character
  starts a piece, whatever ``prepend_scheme`` says; or a literal ``Split(" ")`` that removes or isolates the space or
  glues it to what follows.

Before the dropper or cutter only *run splitters* may come: ``Digits``, ``Punctuation`` (every behaviour), literal
``Split`` patterns holding no boundary character, and under ``"spaces"`` ``Split(" ", "merged_with_previous")``. They
cut where a character class changes, never change the text, and leave boundary characters in their gaps. So at a
boundary at most one piece crosses: a gap run, or a delimiter glued across. Each later stage sees the boundary
inside that piece, so this holds until the cutter cuts exactly there. After the cut, pieces equal the chunks' pieces
and any stage may follow: its result depends only on a piece's text and on whether the piece begins the text. With
``Metaspace(prepend_scheme="first")`` a text's first chunk therefore has an entry of its own. Refused before the
cutter: ``Metaspace(split=False)`` and ``ByteLevel``, which change the text, and regex splits that may match across
a boundary (:func:`~tokenizer_core.fast.locality.regex_split_role`).

Normalizers: those :mod:`tokenizer_core.fast.locality` accepts. A leading ``Precompiled`` and ``Replace(" {2,}", " ")``,
as in the T5 and XLM-R chains, come with a guard: texts it finds take the general path. ``BertNormalizer`` qualifies
under ``"words"``: separators become spaces, which the dropper drops. Models: ``BPE``, ``WordPiece`` and ``Unigram``,
whose best segmentation of a piece is fixed.

>>> from tokenizer_core.bpe.model import BPE
>>> from tokenizer_core.pipeline import Tokenizer
>>> from tokenizer_core.text.pre_tokenizers import Metaspace, Punctuation, Sequence
>>> from tokenizer_core.text.splitting import Digits
>>> bpe = BPE({c: i for i, c in enumerate("▁hi2,")} | {"▁h": 5, "▁hi": 6}, [("▁", "h"), ("▁h", "i")])
>>> chain = Sequence([Digits(individual_digits=True), Punctuation(), Metaspace()])
>>> fast = LocalChainFastPath.build(normalizer=None, pre_tokenizer=chain, model=bpe)
>>> fast.chunk_rule
'spaces'
>>> enc = fast.encode("hi2, hi", added=Tokenizer(bpe).added, split_special=True, sequence_id=0)
>>> enc.tokens, enc.offsets, enc.word_ids
(['▁hi', '▁', '2', '▁', ',', '▁hi'], [(0, 2), (2, 3), (2, 3), (3, 4), (3, 4), (4, 7)], [0, 1, 1, 2, 2, 3])
"""

from __future__ import annotations

from typing import Any, Optional, Union

import regex

from tokenizer_core.bpe.model import BPE
from tokenizer_core.fast.assembly import ChunkEntry, ChunkSteps, assembled_encoding, match_spans
from tokenizer_core.fast.chunk_table import RULE_SPACES, RULE_WORDS, CompiledChunks, TablePath, token_strings
from tokenizer_core.fast.locality import BOUNDARY, normalizer_plan, regex_split_role, unmatched_before_space
from tokenizer_core.fast.protocol import stage_name
from tokenizer_core.text.byte_level import ByteLevel
from tokenizer_core.text.normalizers import BertNormalizer
from tokenizer_core.text.pre_tokenizer_base import Sequence
from tokenizer_core.text.splitting import Digits, Split
from tokenizer_core.text.word_splitters import (
    BertPreTokenizer,
    Metaspace,
    Punctuation,
    Regex,
    Whitespace,
    WhitespaceSplit,
    WordSplit,
)
from tokenizer_core.types import CACHE_LIMIT, Encoding
from tokenizer_core.unigram.model import Unigram
from tokenizer_core.wordpiece.model import WordPiece

__all__ = ["LocalChainFastPath", "chain_plan"]

_CHUNKS = {"words": regex.compile(r"[^ \t\n\r]+"), "spaces": regex.compile(r" *[^ ]+| +")}
#: Their regexes match no white space, so they cut at it and drop it.
_DROPPERS = (Whitespace, WhitespaceSplit, WordSplit, BertPreTokenizer)
#: Stages whose pieces depend only on a piece's text and whether it begins the text: any of them
#: may follow the cut.
_PER_PIECE = (*_DROPPERS, Digits, Punctuation, Split, Metaspace, Regex, ByteLevel)
_MODELS = (BPE, WordPiece, Unigram)  # their tokenize() is deterministic (sampling takes other calls)


def _flat(pre_tokenizer: Any) -> Optional[tuple[list[Any], bool]]:
    """The chain's stages in order, and whether a Sequence was nested in another; None when some
    stage is not one of ours (a subclass may behave otherwise)."""
    if type(pre_tokenizer) is not Sequence:
        return ([pre_tokenizer], False) if type(pre_tokenizer) in _PER_PIECE else None
    stages: list[Any] = []
    nested = False
    for stage in pre_tokenizer.pre_tokenizers:
        inner = _flat(stage)
        if inner is None:
            return None
        stages += inner[0]
        nested = nested or inner[1] or type(stage) is Sequence
    return stages, nested


def _normalizer_fit(normalizer: Any, rule: str) -> Optional[tuple[bool, Any]]:
    """None when ``normalizer`` is refused under ``rule``, else whether it may write new spaces and
    None or the guard its proof needs (``Precompiled``: :func:`~tokenizer_core.fast.locality.normalizer_plan`)."""
    if type(normalizer) is BertNormalizer:  # separators become spaces, which the dropper drops
        return (True, None) if rule == "words" else None
    return normalizer_plan(normalizer, rule)


def _role(stage: Any, rule: str, new_spaces: bool) -> Optional[str]:
    """``"cut"`` when ``stage`` cuts every piece at each boundary of ``rule`` (the pieces of ``u + v``
    are those of ``u`` and of ``v``), ``"runs"`` when it may leave one piece across a boundary but
    changes nothing else, None when neither is proven. ``new_spaces``: the normalizer may write
    spaces, so under ``"spaces"`` a boundary may also come inside a run of spaces (a chunk's text
    may end in one), where ``Split(" ", "contiguous")`` would keep the run one piece (inverted
    "isolated" keeps each space, a match of its own, a piece)."""
    kind = type(stage)
    if kind in _DROPPERS:
        return "cut"
    if kind in (Digits, Punctuation):  # a boundary character is neither a digit nor punctuation
        return "runs"
    if kind is Metaspace:  # a space becomes a "▁" that starts a piece (the text changes: a cutter only)
        return "cut" if rule == "spaces" and stage.split_pieces else None
    if kind is Split and stage.is_regex:
        return regex_split_role(stage, rule)
    if kind is Split:
        if not any(c in stage.pattern for c in BOUNDARY[rule]):  # no match holds a boundary
            return "runs"
        if rule == "spaces" and stage.pattern == " " and (not stage.invert or stage.behavior == "isolated"):
            # The space after a boundary is a match: a piece starts there, unless it is glued back
            # (inverted, only "isolated" keeps every run a piece of its own, whichever class matches).
            if stage.behavior == "merged_with_previous":
                return "runs"
            return None if new_spaces and stage.behavior == "contiguous" else "cut"
    return None


def chain_plan(*, normalizer: Any, pre_tokenizer: Any, model: Any) -> Optional[tuple[str, bool, Any]]:
    """``(chunk_rule, first_apart, guard)`` when these stages encode chunk by chunk, else None;
    ``first_apart``: the first chunk of a text needs an entry of its own (a Metaspace stage
    puts its "▁" only in front of the piece that begins the text); ``guard``: None, or a compiled
    regex finding what makes a text take the general path (a gap of an isolated regex split that
    would run across a "spaces" boundary: :func:`~tokenizer_core.fast.locality.unmatched_before_space`;
    a space in one grapheme cluster with its neighbour, and the like, before ``Precompiled``:
    :func:`~tokenizer_core.fast.locality.normalizer_plan`).

    >>> chain_plan(normalizer=None, pre_tokenizer=Sequence([Punctuation(), Metaspace()]), model=BPE({"a": 0}))
    ('spaces', False, None)
    >>> chain_plan(normalizer=None, pre_tokenizer=Metaspace(split=False), model=BPE({"a": 0})) is None
    True
    """
    found = _flat(pre_tokenizer) if type(model) in _MODELS else None
    if found is None:
        return None
    stages, nested = found
    first_apart = any(type(s) is Metaspace and s.prepend_scheme == "first" for s in stages)
    if first_apart and nested:
        # A nested Sequence tells its inner stages "begins the text" by the inner piece's own start,
        # which a prepended "▁" may blur; too rare to prove.
        return None
    for rule in ("words", "spaces"):  # "words" first: fewer, shorter chunks
        fit = _normalizer_fit(normalizer, rule)
        if fit is None:
            continue
        new_spaces, normalizer_guard = fit
        for stage in stages:
            role = _role(stage, rule, new_spaces)
            if role == "cut":
                return rule, first_apart, normalizer_guard
            # A guarded cut: only the raw text is checked, so no normalizer may come first.
            regex_split = type(stage) is Split and stage.is_regex
            guard = unmatched_before_space(stage) if regex_split and rule == "spaces" and normalizer is None else None
            if guard is not None:
                return rule, first_apart, guard
            if role is None:
                break
    return None


class LocalChainFastPath(TablePath):
    """Encodings of one tokenizer's texts from the cached encodings of their chunks (see the
    module's docstring for which stages qualify and why)."""

    name = "a chain of chunk-local pre-tokenizers"
    #: Word ids count on from one chunk to the next (each entry's are relative to its first piece).
    count_words = True

    def __init__(self, normalizer: Any, pre_tokenizer: Any, model: Any, *, chunk_rule: str,
                 first_apart: bool, guard: Any = None) -> None:
        self._normalizer, self._pre_tokenizer, self._model = normalizer, pre_tokenizer, model
        #: ``"words"`` or ``"spaces"``: how texts are cut into chunks (module docstring).
        self.chunk_rule = chunk_rule
        #: Whether a text's first chunk (when it starts at offset 0) is encoded apart.
        self.first_apart = first_apart
        #: None, or a compiled regex: texts it finds something in take the general path.
        self.guard = guard
        self._chunks = _CHUNKS[chunk_rule]
        self._cache: dict[str, ChunkEntry] = {}
        self._first_cache: dict[str, ChunkEntry] = {}
        self._steps = ChunkSteps(normalizer, pre_tokenizer, model, limit=CACHE_LIMIT)

    def _new_table(self) -> Optional[CompiledChunks]:
        rule = RULE_WORDS if self.chunk_rule == "words" else RULE_SPACES
        return CompiledChunks.build(token_strs=token_strings(self._model), rule=rule, first_entries=self.first_apart)

    def _entry_of(self, chunk: str, first: bool) -> ChunkEntry:
        return self._encoded(chunk, at_start=first)  # the kernel's table keeps it

    @classmethod
    def plan(cls, *, normalizer: Any, pre_tokenizer: Any, model: Any) -> Union[LocalChainFastPath, str]:
        """The fast path for these stages, or why not (a piece may cross every chunk rule)."""
        if type(model) not in _MODELS:
            return f"the model ({stage_name(model)}) is not BPE, WordPiece or Unigram"
        found = chain_plan(normalizer=normalizer, pre_tokenizer=pre_tokenizer, model=model)
        if found is None:
            return (f"no chunk rule is proven for these stages (normalizer {stage_name(normalizer)}, "
                    f"pre-tokenizer {stage_name(pre_tokenizer)}): a piece might cross a space")
        return cls(normalizer, pre_tokenizer, model, chunk_rule=found[0], first_apart=found[1], guard=found[2])


    def _encoded(self, chunk: str, *, at_start: bool) -> ChunkEntry:
        return self._steps.entry(chunk, at_start=at_start)

    def entry(self, chunk: str, *, first: bool) -> ChunkEntry:
        """The tokens of ``chunk`` alone: ids, tokens, starts and ends relative to the chunk, word ids
        relative to its first piece, and its number of pieces. ``first``: the chunk begins the text
        (offset 0); it matters only where :attr:`first_apart` is set."""
        cache = self._first_cache if first and self.first_apart else self._cache
        found = cache.get(chunk)
        if found is None:
            found = self._encoded(chunk, at_start=first)
            if len(cache) < CACHE_LIMIT:
                cache[chunk] = found
        return found

    def encode(self, text: str, *, added: Any, split_special: bool, sequence_id: int) -> Optional[Encoding]:
        """The model tokens of ``text`` as the general path gives them; None when ``text`` may hold
        an added token (the general path cuts those out first) or something :attr:`guard` finds."""
        if (self.guard is not None and self.guard.search(text)) or self._added_in(text, added,
                                                                                 split_special=split_special):
            return None
        enc = self._from_table(text, sequence_id)
        if enc is not None:
            return enc
        starts, chunks = match_spans(list(self._chunks.finditer(text)))
        entries = list(map(self._cache.get, chunks))
        lead = bool(starts) and starts[0] == 0  # under "words" a text may open with separators
        if lead and self.first_apart:
            entries[0] = None
        if None in entries:
            entries = [self.entry(c, first=lead and not i) if e is None else e
                       for i, (e, c) in enumerate(zip(entries, chunks))]
        return assembled_encoding(starts, entries, sequence_id)
