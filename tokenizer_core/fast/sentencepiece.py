"""The fast path of SentencePiece models (BPE and Unigram): encodings from cached chunks.

A SentencePiece model segments its normalized text, in which every space is a "▁". When no piece holds a "▁" after
another character, no token crosses the start of a run of "▁". That is so when
:func:`~tokenizer_core.bpe.sentencepiece_bpe.chunk_mode` is ``"before"`` or ``"before_run"``: Llama's, Mistral's and
the trainer's defaults. The text is then the concatenation of its chunks, each a run of spaces and the word after it.
Spaces here are the characters the rule table maps to a space, such as tab, newline and NBSP under ``nmt_nfkc``.

Where the rule table replaces each character on its own (no longer key applies), a chunk's normalized form and its
alignment with the original depend on the chunk alone. Its first "▁" and the dummy prefix depend on where it stands:
first, in the middle, or a trailing run of spaces. Each distinct chunk is segmented once and remembered as ids,
tokens and offsets relative to it. A text is a lookup per chunk.

A Unigram model's Viterbi adds 32-bit float scores along the whole text. So which of two near-equal segmentations of
a chunk wins depends on the score accumulated before it (x + xxx against xxx + x). The path keeps that running
score, rounded as the whole text's Viterbi rounds it. Each chunk remembers the smallest gap between two of its
candidates. Where rounding at the running score could close that gap, the chunk is segmented again from that score.

With the compiled kernel the chunks are kept in its ``ChunkTable`` (:mod:`tokenizer_core.fast.chunk_table`). It cuts,
looks up and assembles texts and batches in C, and segments Unigram near ties again itself. This module then only
computes the chunks it lacks. Without the kernel the Python assembly below does the same.

The result equals the general path's :class:`~tokenizer_core.types.Encoding`, field for field;
``tests/core/fast/test_sentencepiece_fast.py`` compares them on hostile texts. Texts the path does not cover take the general
path: a literal "▁", added tokens, keys of several characters, characters deleted or replaced by text holding a space.

>>> from tokenizer_core.pipeline import Tokenizer
>>> from tokenizer_core.unigram.sentencepiece_normalizer import SentencePieceNormalizer
>>> from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram
>>> vocab = [("<unk>", 0.0, "unknown"), ("▁", -2.0, "normal"), ("▁hi", -1.0, "normal"), ("h", -3.0, "normal"),
...          ("i", -3.0, "normal")]
>>> tok = Tokenizer(SentencePieceUnigram(vocab), normalizer=SentencePieceNormalizer())
>>> enc = tok.encode("hi  hi")
>>> enc.tokens, enc.offsets
(['▁hi', '▁hi'], [(0, 2), (2, 6)])
"""

from __future__ import annotations

import math
from array import array
from typing import Any, NamedTuple, Optional, Union

import regex

from tokenizer_core.bpe.sentencepiece_bpe import SentencePieceBPE, chunk_mode
from tokenizer_core.fast.assembly import ChunkEntry, assemble, match_spans
from tokenizer_core.fast.chunk_table import RULE_SPACES, CompiledChunks, TablePath, token_strings
from tokenizer_core.fast.protocol import stage_name
from tokenizer_core.types import CACHE_LIMIT, Encoding, Offsets
from tokenizer_core.unigram.sentencepiece_normalizer import SPACE_SYMBOL, SentencePieceNormalizer
from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram

__all__ = ["SentencePieceFastPath"]

#: A run of spaces and the word after it, or the spaces that end the text.
_CHUNKS = regex.compile(r" *[^ ]+| +")
#: Characters besides " " the kernel's table may treat as spaces in one call (ChunkTable's limit).
_MAX_SPACES = 64

class Entry(NamedTuple):
    """A chunk's tokens (the first four fields are :class:`ChunkEntry`'s, so :func:`assemble` reads
    either), and for a Unigram model the scores its best path adds, the smallest gap between two
    candidates on the way and the chunk's normalized text (see :meth:`SentencePieceFastPath._at_score`)."""

    ids: list[int]
    tokens: list[str]
    starts: list[int]
    ends: list[int]
    scores: tuple[float, ...]
    gap: float
    text: str

    def chunk_entry(self) -> ChunkEntry:
        """The chunk as the kernel's table stores it: one word (no pre-tokenizer), no pieces to count."""
        return ChunkEntry(self.ids, self.tokens, self.starts, self.ends, [0] * len(self.ids), 0)


class SentencePieceFastPath(TablePath):
    """Encodings of one SentencePiece tokenizer's texts, from the cached encodings of their chunks."""

    name = "SentencePiece chunks (a run of spaces and the word after it)"

    def __init__(self, normalizer: SentencePieceNormalizer, model: Any) -> None:
        self._norm, self._model = normalizer, model
        self._cache: dict[str, Entry] = {}
        self._unigram = type(model) is SentencePieceUnigram
        self._max_score = 0.0
        if self._unigram:  # the largest score a piece adds: bounds the sums whose rounding matters
            self._max_score = max(abs(model.piece_score(i)) for i in range(len(model._vocab)))

    @classmethod
    def plan(cls, *, normalizer: Any, pre_tokenizer: Any, model: Any) -> Union[SentencePieceFastPath, str]:
        """The fast path for these stages, or why a token may cross a chunk."""
        if type(normalizer) is not SentencePieceNormalizer:
            return f"the normalizer ({stage_name(normalizer)}) is not a SentencePiece model's own"
        if pre_tokenizer is not None:
            return f"a pre-tokenizer ({stage_name(pre_tokenizer)}) follows SentencePiece's normalizer"
        if not normalizer.escape_whitespaces or normalizer.treat_whitespace_as_suffix:
            return "its spaces are not escaped as a prefix \"▁\""
        if type(model) is SentencePieceBPE:
            mode = model._chunks
        elif type(model) is SentencePieceUnigram:
            mode = chunk_mode([p for p, _, kind in model._vocab if kind in ("normal", "user_defined")])
        else:
            return f"the model ({stage_name(model)}) is not SentencePiece's BPE or Unigram"
        if mode not in ("before", "before_run"):
            return "a piece of its vocabulary holds \"▁\" after other characters, so it may cross a chunk"
        return cls(normalizer, model)

    def limits(self) -> tuple[str, ...]:
        return super().limits() + ("A text whose characters the rule table could join across a space "
                                   "(a longer rule may match, a character vanishes) takes the general path.",)

    def _replacements(self, text: str) -> Optional[tuple[dict[str, str], str]]:
        """What the rule table does to each character of ``text`` (those it changes), and ``text``
        with every character it maps to a space written as a space; None when the chunks would not
        be independent (a longer key may match, a character vanishes or becomes text with a space,
        a user-defined symbol or a literal "▁" occurs)."""
        reps = None if SPACE_SYMBOL in text else self._norm.replacements(text)
        if reps is None or any(not rep or SPACE_SYMBOL in rep or (" " in rep and rep != " ") for rep in reps.values()):
            return None
        spaces = {ord(c): " " for c, rep in reps.items() if rep == " "}
        return reps, text.translate(spaces) if spaces else text

    def _normal_form(self, chunk: str, k: int, reps: dict[str, str], *, first: bool) -> tuple[str, list[Offsets]]:
        """A chunk's normalized text in place and each character's span in the chunk (the
        normalizer's steps on a chunk of ``k`` spaces and a word whose characters the rule table
        replaces one at a time)."""
        space, n, word = SPACE_SYMBOL, len(chunk), chunk[k:]
        if reps:
            parts = [reps.get(c, c) for c in word]
            word = "".join(parts)
            word_align = [(k + i, k + i + 1) for i, rep in enumerate(parts) for _ in rep]
        else:
            word_align = list(zip(range(k, n), range(k + 1, n + 1)))
        if self._norm.remove_extra_whitespaces:
            if not word:  # the spaces that end the text go
                return "", []
            if first:  # leading spaces go; the dummy prefix points at the word
                head, head_align = (space, [(k, k)]) if self._norm.add_dummy_prefix else ("", [])
            else:  # a run of spaces becomes its first space
                head, head_align = space, [(0, 1)]
            return head + word, head_align + word_align
        text = space * k + word
        align = list(zip(range(k), range(1, k + 1))) + word_align
        if first and self._norm.add_dummy_prefix:
            return space + text, [(0, 0)] + align
        return text, align

    def _entry(self, chunk: str, k: int, reps: dict[str, str], *, first: bool, remember: bool = True) -> Entry:
        entry = None if first or not remember else self._cache.get(chunk)
        if entry is not None:
            return entry
        text, align = self._normal_form(chunk, k, reps, first=first)
        if self._unigram:
            path, gap = self._model.viterbi_margin(text) if text else ([], math.inf)
            entry = Entry(*self._relative(self._model.path_tokens(text, path), align),
                          tuple(self._model.piece_score(i) for _, _, i in path), gap, text)
        else:
            entry = Entry(*self._relative(self._model.tokenize(text) if text else [], align), (), math.inf, text)
        if remember and not first and len(self._cache) < CACHE_LIMIT:
            self._cache[chunk] = entry
        return entry

    @staticmethod
    def _relative(tokens: list[Any], align: list[Offsets]) -> tuple[list[int], list[str], list[int], list[int]]:
        """Ids, texts, and spans in the chunk (NormalizedString.original_span: from the first
        character's start to the last one's end)."""
        return ([t.id for t in tokens], [t.text for t in tokens], [align[t.offsets[0]][0] for t in tokens],
                [align[t.offsets[1] - 1][1] for t in tokens])

    def _at_score(self, entry: Entry, total: float, chunk: str, k: int, reps: dict[str, str], *,
                  first: bool) -> Entry:
        """A Unigram chunk's entry when its path starts from ``total``: the cached one unless the
        rounding of sums near ``total`` could close the gap between two of its candidates (near
        ties: then the chunk is segmented again from that score, as the whole text's Viterbi is)."""
        text = entry.text
        # Each candidate's sum rounds at most once a piece, by half a float32 unit at its size.
        size = abs(total) + len(text) * self._max_score + 1.0
        if entry.gap > 4.0 * len(text) * size * 2.0**-24:
            return entry
        return self._segmented_at(total, chunk, k, reps, first=first)

    def _segmented_at(self, total: float, chunk: str, k: int, reps: dict[str, str], *, first: bool) -> Entry:
        """A Unigram chunk's entry with its path found from the score ``total``."""
        text, align = self._normal_form(chunk, k, reps, first=first)
        path = self._model.viterbi(text, base=total)
        return Entry(*self._relative(self._model.path_tokens(text, path), align),
                     tuple(self._model.piece_score(i) for _, _, i in path), math.inf, text)

    def _new_table(self) -> Optional[CompiledChunks]:
        table = CompiledChunks.build(token_strs=token_strings(self._model), rule=RULE_SPACES, first_entries=True,
                                     scored=self._unigram, max_score=self._max_score)
        if table is not None and self._unigram:  # near ties are segmented again in C
            model = self._model
            table.set_lattice(model.matched_pieces(), unk_id=model.unk_id, unk_score=model.unk_score,
                              byte_ids=model.byte_ids())
        return table

    def _callbacks(self, reps: dict[str, str]) -> tuple[str, Any, Any]:
        """The characters the rule table maps to a space (the table's chunks end before them) and
        the table's entry_of and resolve for texts with these replacements."""
        spaces = "".join(c for c, rep in reps.items() if rep == " " and c != " ")
        strip = " " + spaces

        def entry_of(chunk: str, first: bool) -> tuple[Any, ...]:
            k = len(chunk) - len(chunk.lstrip(strip))
            ids, tokens, starts, ends, scores, gap, text = self._entry(chunk, k, reps, first=first, remember=False)
            if not self._unigram or gap == math.inf:
                return ids, tokens, starts, ends, [0] * len(ids), 0, scores, gap, len(text)
            # A chunk that may be a near tie somewhere: its normalized text and spans, for the kernel's Viterbi.
            _, align = self._normal_form(chunk, k, reps, first=first)
            return (ids, tokens, starts, ends, [0] * len(ids), 0, scores, gap, len(text), text,
                    [a for a, _ in align], [b for _, b in align])

        def resolve(chunk: str, first: bool, total: float) -> tuple[ChunkEntry, float]:
            k = len(chunk) - len(chunk.lstrip(strip))
            # The kernel stops only where rounding at ``total`` could decide (see _at_score).
            entry = self._segmented_at(total, chunk, k, reps, first=first)
            f32 = array("f", [0.0])  # this call's own: storing a sum in it rounds it to float32
            for score in entry.scores:
                f32[0] = total + score
                total = f32[0]
            return entry.chunk_entry(), total

        return spaces, entry_of, (resolve if self._unigram else None)  # BPE: only long chunks stop: their entry

    def encode(self, text: str, *, added: Any, split_special: bool, sequence_id: int) -> Optional[Encoding]:
        """The model tokens of ``text`` as the general path gives them; None for the general path."""
        if self._added_in(text, added, split_special=split_special):
            return None
        found = self._replacements(text)
        if found is None:
            return None
        reps, spaced = found
        table = self._table()
        if table is not None:
            spaces, entry_of, resolve = self._callbacks(reps)
            if len(spaces) <= _MAX_SPACES:
                enc = table.encode(text, entry_of=entry_of, resolve=resolve, sequence_id=sequence_id, spaces=spaces)
                if enc is not None:
                    return enc
        if not self._unigram:
            return self._assembled(text, spaced, reps, sequence_id)
        ids: list[int] = []
        tokens: list[str] = []
        offsets: list[Offsets] = []
        # f32: this call's own one-slot array (a module-level one would be shared by the server's
        # threads); storing a sum in it rounds it to float32, as sentencepiece's float additions do.
        entry_of, unigram, total, f32 = self._entry, self._unigram, 0.0, array("f", [0.0])
        for m in _CHUNKS.finditer(spaced):
            base, end = m.span()
            group = m.group()
            # The chunk as typed is its key (the table's replacements depend on it alone).
            chunk, k, first = text[base:end], len(group) - len(group.lstrip(" ")), base == 0
            entry = entry_of(chunk, k, reps, first=first)
            if unigram:  # the whole text's Viterbi score so far, rounded as it rounds
                entry = self._at_score(entry, total, chunk, k, reps, first=first)
                for score in entry.scores:
                    f32[0] = total + score
                    total = f32[0]
            c_ids, c_tokens, starts, ends = entry.ids, entry.tokens, entry.starts, entry.ends
            ids += c_ids
            tokens += c_tokens
            offsets += zip([a + base for a in starts], [b + base for b in ends])
        return _encoding(ids, tokens, offsets, sequence_id)

    def _assembled(self, text: str, spaced: str, reps: dict[str, str], sequence_id: int) -> Encoding:
        """A BPE model's encoding: cached chunks put together in C (no score runs along the text)."""
        starts, groups = match_spans(list(_CHUNKS.finditer(spaced)))
        if not starts:
            return _encoding([], [], [], sequence_id)
        ends = starts[1:] + [len(text)]
        chunks = list(map(text.__getitem__, map(slice, starts, ends))) if reps else groups
        entries = list(map(self._cache.get, chunks))
        entries[0] = None  # the first chunk has an entry of its own (dummy prefix, leading spaces)
        entries = [self._entry(c, len(g) - len(g.lstrip(" ")), reps, first=not i) if e is None else e
                   for i, (e, c, g) in enumerate(zip(entries, chunks, groups))]
        ids, tokens, offsets, _ = assemble(starts, entries, words=False)
        return _encoding(ids, tokens, offsets, sequence_id)

    def encode_batch(self, texts: Any, *, added: Any, split_special: bool, sequence_id: int,
                     threads: Optional[int] = None) -> Optional[list[Optional[Encoding]]]:
        """Every text's encoding, the kernel's table assembling them on ``threads`` threads; None in
        the rows the general path must take (an added token), None for all when the texts are not
        chunked alike (see :meth:`_replacements`) or there is no kernel."""
        table = self._table()
        texts = list(texts)
        if table is None or not all(type(t) is str for t in texts):
            return None
        # One check of the joined texts: each text passes when they pass together (the checks look
        # at characters and at keys inside a text, which the joined text holds too).
        found = self._replacements("\n".join(texts))
        if found is None:
            return None
        spaces, entry_of, resolve = self._callbacks(found[0])
        if len(spaces) > _MAX_SPACES:
            return None
        return table.encode_batch_added(texts, added=added, split_special=split_special, entry_of=entry_of,
                                        resolve=resolve, sequence_id=sequence_id, threads=threads, spaces=spaces)


def _encoding(ids: list[int], tokens: list[str], offsets: list[Offsets], sequence_id: int) -> Encoding:
    # The whole normalized text is one piece (no pre-tokenizer): one word.
    return Encoding.from_columns(ids, tokens, offsets, word_ids=[0] * len(ids), sequence_id=sequence_id)
