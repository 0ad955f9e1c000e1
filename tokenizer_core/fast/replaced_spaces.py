"""The fast path for BPE over a text whose spaces are written as "▁" (Gemma's and Gemini's tokenizer.json).

These files normalize with ``Replace(" ", "▁")`` and then hand the whole text to BPE as one piece
(no pre-tokenizer, or a ``Split(" ")`` that finds no space once they are all "▁"). A BPE token is a
substring of the normalized text, so no token crosses the start of a run of "▁" unless the
vocabulary holds a token with "▁" after another character: Gemma 3's has one, ">▁</". Cut before
each run of spaces, a text therefore encodes chunk by chunk (a run of spaces and the word after it:
the kernel's ``RULE_SPACES``), each distinct chunk once, exactly as the whole text would, unless the
text holds such a token's string (with a space or a "▁" where it has "▁") or a literal "▁" (which
would join the run before a cut): those texts take the general path (the path's :attr:`guard`).
``Replace`` maps one character to one, so a chunk's offsets are its text's. Every token is in the
one piece: word ids are all 0.

>>> from tokenizer_core.bpe.model import BPE
>>> from tokenizer_core.text.edit_normalizers import Replace
>>> model = BPE({"▁": 0, "a": 1, "b": 2, "▁a": 3, "▁▁": 4}, [("▁", "a"), ("▁", "▁")])
>>> from tokenizer_core.pipeline import Tokenizer
>>> tok = Tokenizer(model, normalizer=Replace(" ", "▁"))
>>> tok.encode("ab   a").tokens, tok.explain_fast_path().chosen == ReplacedSpacesFastPath.name
(['a', 'b', '▁▁', '▁a'], True)
"""

from __future__ import annotations

from typing import Any, Optional, Union

import regex

from tokenizer_core.bpe.model import BPE
from tokenizer_core.fast.assembly import ChunkEntry, assemble
from tokenizer_core.fast.chunk_table import RULE_SPACES, CompiledChunks, TablePath, token_strings
from tokenizer_core.fast.columns import ONE_ROW, ROW_BYTES, ColumnBuilder, concat_shifted
from tokenizer_core.fast.packed import PackedEncoding
from tokenizer_core.fast.protocol import stage_name
from tokenizer_core.text.edit_normalizers import Replace
from tokenizer_core.text.splitting import Split
from tokenizer_core.types import CACHE_LIMIT, Encoding

__all__ = ["ReplacedSpacesFastPath"]

SPACE = "▁"
#: A run of spaces and the word after it, or the spaces that end the text.
_CHUNKS = regex.compile(r" *[^ ]+| +")
#: A "▁" after another character: a token holding one may join a word to the run after it.
_JOINS = regex.compile(f"(?<=[^{SPACE}]){SPACE}")
#: More joining tokens than this and the guard would cost what the path saves.
_MAX_JOINING = 256


def _no_split(pre_tokenizer: Any) -> bool:
    """None, or a Split on a literal space (isolated, removed or merged: none is found after Replace)."""
    if pre_tokenizer is None:
        return True
    return (type(pre_tokenizer) is Split and not pre_tokenizer.is_regex and pre_tokenizer.pattern == " "
            and not pre_tokenizer.invert)


def _joining(vocab: Any) -> list[str]:
    """The tokens with a "▁" after another character (most have one only at the start: a C test first)."""
    return [t for t in vocab if SPACE in t[1:] and _JOINS.search(t)]


def _guard(joining: list[str]) -> Any:
    """What sends a text to the general path: a literal "▁", or a joining token's text."""
    joining = sorted(joining, key=len, reverse=True)
    spelled = [f"[ {SPACE}]".join(map(regex.escape, t.split(SPACE))) for t in joining]
    return regex.compile("|".join([SPACE, *spelled]))


class ReplacedSpacesFastPath(TablePath):
    """Encodings of one tokenizer's texts from the cached encodings of their chunks (see the module)."""

    name = "BPE over spaces written as ▁ (Gemma's and Gemini's tokenizer.json)"

    def __init__(self, model: BPE, *, guard: Any) -> None:
        self._model = model
        self.guard = guard
        # The guard is "▁" and joining tokens spelled out: none holds a NUL, so no match crosses one.
        self.guard_separator = "\x00" if "\x00" not in guard.pattern else None
        self._cache: dict[str, ChunkEntry] = {}

    @classmethod
    def plan(cls, *, normalizer: Any, pre_tokenizer: Any, model: Any) -> Union[ReplacedSpacesFastPath, str]:
        """The fast path for these stages, or why not."""
        if not (type(normalizer) is Replace and not normalizer.is_regex and normalizer.pattern == " "
                and normalizer.content == SPACE):
            return f"the normalizer ({stage_name(normalizer)}) is not Replace(' ', '▁')"
        if not _no_split(pre_tokenizer):
            return f"the pre-tokenizer ({stage_name(pre_tokenizer)}) may cut the text"
        if type(model) is not BPE:
            return f"the model ({stage_name(model)}) is not BPE"
        if model.ignore_merges or model.continuing_subword_prefix or model.end_of_word_suffix:
            return "its BPE looks words up whole or marks word parts (ignore_merges, a prefix or a suffix)"
        vocab = model.get_vocab()
        if SPACE not in vocab:
            return "its vocabulary has no '▁' token, so unknown characters could fuse across a cut"
        joining = _joining(vocab)
        if len(joining) > _MAX_JOINING:
            return f"over {_MAX_JOINING} of its tokens join a word to the space after it"
        return cls(model, guard=_guard(joining))

    def _new_table(self) -> Optional[CompiledChunks]:
        return CompiledChunks.build(token_strs=token_strings(self._model), rule=RULE_SPACES)

    def _entry_of(self, chunk: str, first: bool) -> ChunkEntry:
        return ChunkEntry.of_tokens(self._model.tokenize(chunk.replace(" ", SPACE)), pieces=0)

    def limits(self) -> tuple[str, ...]:
        return (f"A text in which {self.guard.pattern!r} matches, or any text with added tokens matched after "
                "normalizing, takes the general path.",)

    def encode(self, text: str, *, added: Any, split_special: bool, sequence_id: int) -> Optional[Encoding]:
        """The model tokens of ``text`` as the general path gives them (added tokens cut out first, as
        it cuts them: Gemma's "\\n" is one); None when :attr:`guard` finds something."""
        skip = not split_special
        if self.guard.search(text) or added.has_tokens(normalized=True, skip_special=skip):
            return None
        if not added.may_match([text], normalized=False, skip_special=skip):
            return self._plain(text, sequence_id)
        cut, table = added.cut(text, normalized=False, skip_special=skip), self._table()
        if cut is not None and table is not None:  # the whole text in one kernel call, cut there
            joined = table.encode_joined(*cut, entry_of=self._entry_of, sequence_id=sequence_id)
            if joined is not None:
                return joined
        spans = [(base, end, entry) for base, end, entry in added.split(text, normalized=False, skip_special=skip)
                 if entry is not None or end > base]
        parts = self._plain_many([text[a:b] for a, b, entry in spans if entry is None], sequence_id)
        packed = self._packed_around_added(text, spans, parts, sequence_id)
        if packed is not None:
            return packed
        return self._listed_around_added(text, spans, iter(parts), sequence_id)

    def _packed_around_added(self, text: str, spans: list[Any], parts: list[Encoding],
                             sequence_id: int) -> Optional[Encoding]:
        """The text's encoding as one set of packed columns: the kernel's rows for the parts between
        added tokens, shifted to where they stand, and a row per added token (their strings given as
        fixes where the table's list has another). None when a part is not a plain kernel row."""
        strs = None
        for part in parts:
            if type(part) is not PackedEncoding or not part._has_columns():
                return None
            strs = part._strs if strs is None else strs
            if part._strs is not strs or part._fixes():
                return None
        if strs is None:
            return None
        rows: list[bytes] = []
        fixes: list[tuple[int, str]] = []
        count = 0  # tokens so far
        one, row_bytes = ONE_ROW.pack, ROW_BYTES
        it = iter(parts)
        for base, end, entry in spans:
            if entry is None:
                row = next(it).columns()
                rows.append(row)
                count += len(row) // row_bytes
                continue
            tid, matched = entry[1], text[base:end]
            if not 0 <= tid <= ColumnBuilder.id_max:  # an id the int32 column cannot hold
                return None
            if tid >= len(strs) or strs[tid] != matched:
                fixes.append((count, matched))
            rows.append(one(tid, 0, end - base, 0))  # moved to where it stands with the rest
            count += 1
        packed = concat_shifted(rows, [base for base, _, _ in spans], range(len(spans)))
        return PackedEncoding.from_packed(packed, sequence_id, strs, tuple(fixes))

    def _listed_around_added(self, text: str, spans: list[Any], parts: Any, sequence_id: int) -> Encoding:
        ids: list[int] = []
        tokens: list[str] = []
        offsets: list[tuple[int, int]] = []
        words: list[Optional[int]] = []
        # The general path's words: each added token, and each text between them (one piece).
        for word, (base, end, entry) in enumerate(spans):
            if entry is not None:
                ids.append(entry[1])
                tokens.append(text[base:end])
                offsets.append((base, end))
                words.append(word)
                continue
            part = next(parts)
            ids += part.ids
            tokens += part.tokens
            offsets += [(a + base, b + base) for a, b in part.offsets]
            words += [word] * len(part.ids)
        return Encoding.from_columns(ids, tokens, offsets, word_ids=words, sequence_id=sequence_id)

    def _plain_many(self, texts: list[str], sequence_id: int) -> list[Encoding]:
        """:meth:`_plain` of each text, in one call to the kernel's table when there is one."""
        table = self._table()
        # On every core (the table keeps a short call on one): a long text cut at each of Gemma's "\n"
        # is thousands of parts.
        rows = None if table is None or not texts else table.encode_batch(
            texts, entry_of=self._entry_of, resolve=None, sequence_id=sequence_id, threads=None)
        if rows is None:
            return [self._plain(t, sequence_id) for t in texts]
        return [self._plain(t, sequence_id) if r is None else r for t, r in zip(texts, rows)]

    def _plain(self, text: str, sequence_id: int) -> Encoding:
        """A text without added tokens: from the kernel's table, else from the cached chunks here."""
        enc = self._from_table(text, sequence_id)
        if enc is not None:
            return enc
        starts, entries = self._cached_chunks(text, _CHUNKS, self._cache, self._remembered)
        ids, tokens, offsets, _ = assemble(starts, entries, words=False)
        return Encoding.from_columns(ids, tokens, offsets, word_ids=[0] * len(ids), sequence_id=sequence_id)

    def _remembered(self, chunk: str) -> ChunkEntry:
        entry = self._entry_of(chunk, False)
        if len(self._cache) < CACHE_LIMIT:
            self._cache[chunk] = entry
        return entry
