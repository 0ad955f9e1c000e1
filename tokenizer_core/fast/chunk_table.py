"""The chunked fast paths' compiled half: texts assembled from stored chunks by the kernel.

The chunked fast paths of :mod:`tokenizer_core.fast` cut a text into chunks that no token crosses
and encode each distinct chunk once with the general path. Looking every chunk up and putting the lists together
in Python costs about a microsecond a chunk and runs on one core; the kernel's ``ChunkTable`` does
it in C, on every core for a batch, and hands back packed columns
(:class:`~tokenizer_core.fast.packed.PackedEncoding`). Python still computes each chunk's
tokens (``entry_of``) and every chunk the table cannot serve (``resolve``: one too long to store,
or a Unigram near tie that needs the running score), so the general path stays the reference.

A chunk's tokens are stored as ids. A token whose text is not the model's string for its id (a
SentencePiece unknown piece keeps the text it covers) is stored under a stand-in id past the
model's, whose string is that text; rows holding one come back as bare columns and the real ids are
put back here, the texts given as the encoding's fixes.

The C half: kernels/src/chunks.c (cutting, lookup, assembly), chunks_type.c (missing, put),
chunks_encode.c (encode, encode_batch), chunks_joined.c (encode_joined), chunks_viterbi.c (near ties).

>>> chunks = CompiledChunks.build(token_strs=["a", "b", "ab"], rule=RULE_WORDS)
>>> if chunks is None:  # no compiled kernel: the caller keeps its Python path
...     print([2, 0])
... else:
...     def entry(chunk, first):
...         return ([2] + [0] * (len(chunk) - 2), ["ab"] + ["a"] * (len(chunk) - 2), [0] + list(range(2, len(chunk))),
...                 [2] + list(range(3, len(chunk) + 1)), [0] * (len(chunk) - 1), 1)
...     print(chunks.encode("ab  aba", entry_of=entry, resolve=None, sequence_id=0).ids)
[2, 2, 0]
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from operator import eq
from typing import Any, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.fast import columns as packed_columns
from tokenizer_core.fast.assembly import ChunkEntry, match_spans
from tokenizer_core.fast.packed import PackedEncoding
from tokenizer_core.fast.protocol import PlannedPath
from tokenizer_core.kernel import native
from tokenizer_core.kernel.codes import ChunkRule

__all__ = ["RULE_PIECES", "RULE_SPACES", "RULE_WORDS", "CompiledChunks", "TablePath", "token_strings"]

#: Chunks are runs of characters other than space, tab, LF and CR (those dropped).
RULE_WORDS = int(ChunkRule.WORDS)
#: Every character is in a chunk: a run of spaces and the other characters after it.
RULE_SPACES = int(ChunkRule.SPACES)
#: Chunks are the pieces a split program cuts (the table's ``splitter``, a kernel Encoder).
RULE_PIECES = int(ChunkRule.PIECES)

#: ``entry_of(chunk, first)``: the chunk's entry, optionally followed by (scores, gap, normalized length).
EntryOf = Callable[[str, bool], tuple[Any, ...]]
#: ``resolve(chunk, first, total)``: the entry of a chunk the table cannot serve, and the score after it.
Resolve = Callable[[str, bool, float], tuple[ChunkEntry, float]]


class CompiledChunks:
    """One fast path's ``ChunkTable``, filled on demand from ``entry_of``."""

    def __init__(self, table: Any, *, make: Callable[[], Any]) -> None:
        self._table, self._make = table, make
        self._strs: list[str] = []  # the model's token strings by id, then the stand-ins'
        self._real: list[int] = []  # the model's id of each stand-in
        self._stand_in: dict[tuple[int, str], int] = {}
        self._n = 0  # the model's ids: 0.._n-1
        self._lattice: Optional[tuple[Any, ...]] = None
        self.usable = True

    @classmethod
    def build(cls, *, token_strs: list[str], rule: int, first_entries: bool = False, scored: bool = False,
              max_score: float = 0.0, budget: int = 128 << 20, splitter: Any = None) -> Optional[CompiledChunks]:
        """A table over the model's token strings (by id), or None without a kernel that has one;
        ``budget``: the bytes it may hold (past them, each call keeps what it needs in a table of its own)."""
        kernel = native.kernel() if native.available() else None
        if kernel is None or not hasattr(kernel, "ChunkTable"):
            return None

        def make(budget: int = 128 << 20) -> Any:
            return kernel.ChunkTable(token_strs, rule=rule, first_entries=first_entries, scored=scored,
                                     max_score=max_score, budget=budget, splitter=splitter)

        def make_extra() -> Any:  # a call's own table for what the budget leaves out: the same model
            table = make()
            if out._lattice is not None:
                table.set_lattice(*out._lattice)
            return table

        out = cls(make(budget), make=make_extra)
        out._strs, out._n = token_strs, len(token_strs)
        return out

    def _fill(self, texts: Sequence[str], entry_of: EntryOf, spaces: Optional[str]) -> Any:
        """Stores the texts' chunks the table lacks; the call's own table for what the budget leaves
        out (None when all fit); raises _Unusable when an id lies past the model's."""
        extra = None
        for chunk, first in self._table.missing(texts, spaces=spaces):
            ids, tokens, starts, ends, words, pieces, *scored = entry_of(chunk, first)
            if len(ids) != len(tokens) or any(i >= self._n for i in ids):
                self.usable = False
                raise _Unusable
            ids = self._ids_of(ids, tokens)
            args = (chunk, first, ids, starts, ends, words, pieces, *scored)
            if not self._table.put(*args):
                extra = extra if extra is not None else self._make()
                extra.put(*args)
        return extra

    def set_lattice(self, pieces: list[tuple[str, int, float]], *, unk_id: int, unk_score: float,
                    byte_ids: Optional[list[int]]) -> None:
        """A scored table's Unigram model (``SentencePieceUnigram.matched_pieces``): near ties are then
        segmented again in C from the running score, from the normalized text ``entry_of`` gives."""
        self._table.set_lattice(pieces, unk_id, unk_score, byte_ids)
        self._lattice = (pieces, unk_id, unk_score, byte_ids)

    def _ids_of(self, ids: list[int], tokens: list[str]) -> list[int]:
        """The ids to store for these tokens: each token's own, or a stand-in where its text is not
        its id's string."""
        strs = self._strs
        if all(map(eq, tokens, map(strs.__getitem__, ids))):
            return ids
        return [i if strs[i] == t else self._stand_in_id(i, t) for i, t in zip(ids, tokens)]

    def _stand_in_id(self, real: int, token: str) -> int:
        key = (real, token)
        found = self._stand_in.get(key)
        if found is None:
            found = self._stand_in[key] = len(self._strs)
            self._strs.append(token)
            self._real.append(real)
        return found

    def _packed(self, columns: bytes, sequence_id: int) -> PackedEncoding:
        """An encoding of columns that may hold stand-in ids: the real ids put back, their texts as fixes."""
        ids = packed_columns.column(columns, packed_columns.IDS)
        if not self._real or not ids or max(ids) < self._n:
            return PackedEncoding.from_packed(columns, sequence_id, self._strs)
        fixes = []
        for at, i in enumerate(ids):
            if i >= self._n:
                fixes.append((at, self._strs[i]))
                ids[at] = self._real[i - self._n]
        columns = packed_columns.with_ids(columns, ids)
        return PackedEncoding.from_packed(columns, sequence_id, self._strs, tuple(fixes))

    def encode(self, text: str, *, entry_of: EntryOf, resolve: Optional[Resolve], sequence_id: int,
               spaces: Optional[str] = None) -> Optional[PackedEncoding]:
        """The encoding of ``text`` (None when the table turned itself off)."""
        try:
            extra = self._fill([text], entry_of, spaces)
        except _Unusable:
            return None
        parts: list[bytes] = []
        start, total, words, n = 0, 0.0, 0, len(text)
        while True:
            columns, stop, stop_end, total, words = self._table.encode(text, spaces=spaces, start=start, total=total,
                                                                       first_word=words, extra=extra)
            parts.append(columns)
            if stop >= n:
                break
            if stop_end < 0:  # the kernel cannot go on in this text (see ChunkTable.encode): the general path
                return None
            if resolve is None:  # only chunks too long to store stop an unscored table
                resolve = _resolver(entry_of)
            entry, total = resolve(text[stop:stop_end], stop == 0, total)
            parts.append(_entry_columns(self._ids_of(entry.ids, entry.tokens), entry, stop, words))
            words += entry.pieces
            start = stop_end
        return self._packed(packed_columns.join(parts), sequence_id)

    def encode_batch(self, texts: Sequence[str], *, entry_of: EntryOf, resolve: Optional[Resolve], sequence_id: int,
                     threads: Optional[int] = None, spaces: Optional[str] = None) -> Optional[list[Any]]:
        """Encodings of ``texts`` in order, on ``threads`` threads (default: this process's cores)."""
        try:
            extra = self._fill(texts, entry_of, spaces)
        except _Unusable:
            return None
        rows = self._table.encode_batch(texts, sequence_id, min(64, threads or native.default_threads()), encoding=PackedEncoding,
                                        spaces=spaces, extra=extra)
        for k, row in enumerate(rows):
            if type(row) is bytes:  # columns holding a stand-in id
                rows[k] = self._packed(row, sequence_id)
            elif row is None:  # a chunk the table does not serve: this text on its own
                rows[k] = self.encode(texts[k], entry_of=entry_of, resolve=resolve, sequence_id=sequence_id,
                                      spaces=spaces)
        return rows


    def encode_joined(self, parts: list[str], ids: list[int], *, entry_of: EntryOf, sequence_id: int,
                      threads: Optional[int] = None, spaces: Optional[str] = None) -> Optional[PackedEncoding]:
        """One text cut at its added tokens (:meth:`AddedVocabulary.cut`: text, token, ..., text) as
        one encoding, each token a row with its id (kernels/src/chunks_joined.c); None when the kernel cannot (a token's id is past
        the model's or its string another, a chunk too long to store): the caller's own way then."""
        strs, n = self._strs, self._n
        for text, tid in dict(zip(parts[1::2], ids)).items():  # each distinct token once (Gemma's "\n": thousands)
            if tid >= n or strs[tid] != text:
                return None
        column = array("q", ids)
        threads = min(64, threads or native.default_threads())
        columns = self._table.encode_joined(parts, column, threads, spaces=spaces)
        if columns is None:  # chunks not yet stored: stored now, then once more
            try:
                extra = self._fill(parts[0::2], entry_of, spaces)
            except _Unusable:
                return None
            columns = self._table.encode_joined(parts, column, threads, spaces=spaces, extra=extra)
        return None if columns is None else self._packed(columns, sequence_id)

    def encode_batch_added(self, texts: Sequence[str], *, added: Any, split_special: bool, entry_of: EntryOf,
                           resolve: Optional[Resolve], sequence_id: int, threads: Optional[int],
                           spaces: Optional[str] = None) -> Optional[list[Any]]:
        """:meth:`encode_batch` for a pipeline: None rows for the texts holding an added token (the
        general path cuts those out), None for all when added tokens are matched in normalized text
        (only normalizing the whole text finds them) or a chunk's encoding raised (the pipeline then
        takes each text on its own, and reports what fails)."""
        texts = list(texts)
        if added.has_tokens(normalized=True, skip_special=not split_special) or not set(map(type, texts)) <= {str}:
            return None
        odd = added.texts_matching(texts, normalized=False, skip_special=not split_special)
        plain = [t for i, t in enumerate(texts) if i not in odd] if odd else texts
        try:
            rows = self.encode_batch(plain, entry_of=entry_of, resolve=resolve, sequence_id=sequence_id,
                                     threads=threads, spaces=spaces)
        except (TokenizerError, ValueError, UnicodeError):
            return None
        if rows is None or not odd:
            return rows
        it = iter(rows)
        return [None if i in odd else next(it) for i in range(len(texts))]


class TablePath(PlannedPath):
    """What a chunked fast path keeps of the kernel: its table, made on first use by
    :meth:`_new_table`, and left out of copies and pickles (rebuilt after)."""

    _compiled: Any = None  # the table (False: none)
    #: None, or a compiled regex: texts it finds something in take the general path.
    guard: Any = None
    #: A character no match of :attr:`guard` holds (None: not known): a batch's texts joined by it
    #: are searched in one call, not one call a text (Gemma's 18,175 lines: 41 ms to 15 ms).
    guard_separator: Optional[str] = None

    def compiled(self) -> bool:
        return self._table() is not None

    def limits(self) -> tuple[str, ...]:
        notes: tuple[str, ...] = ("A text that may hold an added token takes the general path.",)
        if self.guard is not None:
            notes += (f"A text in which {self.guard.pattern!r} matches takes the general path.",)
        return notes

    def _new_table(self) -> Optional[CompiledChunks]:
        raise NotImplementedError

    def _table(self) -> Optional[CompiledChunks]:
        """The kernel's table of this path's chunks; None without a kernel or once it turned itself off."""
        if self._compiled is None:
            self._compiled = self._new_table() or False
        return self._compiled if self._compiled and self._compiled.usable else None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_compiled": None}

    def _entry_of(self, chunk: str, first: bool) -> tuple[Any, ...]:
        raise NotImplementedError

    @staticmethod
    def _added_in(text: str, added: Any, *, split_special: bool) -> bool:
        """Whether ``text`` may hold an added token (the general path cuts those out first). Tokens
        matched in normalized text could only be found by normalizing the whole text: a tokenizer
        with any sends every text there."""
        skip = not split_special
        return added.has_tokens(normalized=True, skip_special=skip) or added.may_match(
            [text], normalized=False, skip_special=skip)

    @staticmethod
    def _cached_chunks(text: str, chunks: Any, cache: dict[str, ChunkEntry],
                       make: Callable[[str], ChunkEntry]) -> tuple[list[int], list[ChunkEntry]]:
        """Where each chunk of ``text`` (cut by the regex ``chunks``) starts, and its entry: from
        ``cache``, else ``make(chunk)`` (which may remember it): the Python path without a kernel."""
        starts, texts = match_spans(list(chunks.finditer(text)))
        entries = list(map(cache.get, texts))
        if None in entries:
            entries = [make(c) if e is None else e for e, c in zip(entries, texts)]
        return starts, entries

    def _from_table(self, text: str, sequence_id: int) -> Optional[PackedEncoding]:
        """``text`` assembled by the kernel's table from :meth:`_entry_of`'s chunks; None without it."""
        table = self._table()
        return None if table is None else table.encode(text, entry_of=self._entry_of, resolve=None,
                                                       sequence_id=sequence_id)

    def encode_batch(self, texts: Any, *, added: Any, split_special: bool, sequence_id: int,
                     threads: Optional[int] = None) -> Optional[list[Any]]:
        """Every text's encoding, the kernel's table assembling them on ``threads`` threads from
        :meth:`_entry_of`'s chunks; None in the rows the general path must take (an added token,
        something :attr:`guard` finds), None for all without the kernel."""
        table = self._table()
        if table is None:
            return None
        guarded: set[int] = set()
        if self.guard is not None:
            texts = list(texts)
            guarded = self._guarded(texts)
            if guarded:
                texts = ["" if i in guarded else t for i, t in enumerate(texts)]
        rows = table.encode_batch_added(texts, added=added, split_special=split_special, entry_of=self._entry_of,
                                        resolve=None, sequence_id=sequence_id, threads=threads)
        if rows is not None and guarded:
            rows = [None if i in guarded else r for i, r in enumerate(rows)]
        return rows


    def _guarded(self, texts: list[Any]) -> set[int]:
        """The positions of the texts in which :attr:`guard` finds something.

        With a :attr:`guard_separator` no match can hold, a match in the joined texts lies inside one
        text, and every text holding a match shows at least one (matches never cross a separator)."""
        sep = self.guard_separator
        if sep is None or not set(map(type, texts)) <= {str}:
            return {i for i, t in enumerate(texts) if type(t) is str and self.guard.search(t)}
        ends = list(accumulate(len(t) + 1 for t in texts))  # where each text's separator ends
        return {bisect_right(ends, m.start()) for m in self.guard.finditer(sep.join(texts))}


def token_strings(model: Any) -> list[str]:
    """The model's token strings by id ("" where no token has that id)."""
    vocab = model.get_vocab()
    strs = [""] * (max(vocab.values(), default=-1) + 1)
    for token, i in vocab.items():
        strs[i] = token
    return strs


class _Unusable(Exception):
    """A token the table cannot hold as an id."""


def _resolver(entry_of: EntryOf) -> Resolve:
    return lambda chunk, first, total: (ChunkEntry(*entry_of(chunk, first)[:6]), total)


def _entry_columns(ids: list[int], entry: ChunkEntry, base: int, first_word: int) -> bytes:
    """A resolved chunk's columns, its positions moved to where it lies in the text."""
    return packed_columns.pack(ids, [s + base for s in entry.starts], [e + base for e in entry.ends],
                               [w + first_word for w in entry.words])
