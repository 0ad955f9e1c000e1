"""The pipeline's fast path for byte-level BPE (GPT-2, cl100k_base): whole encodings in bulk.

It applies when there is no normalizer, the pre-tokenizer is :class:`~tokenizer_core.text.byte_level.ByteLevel` with
its split regex and no added prefix space, and the model is :class:`~tokenizer_core.bpe.model.BPE`. Its pieces,
both matches and gaps, then lie end to end. A piece's tokens depend on the piece's text only, and so do their offsets
*relative to the piece*. So each distinct piece is encoded once, by the very code of the general path: byte symbols,
:meth:`BPE.tokenize`, :meth:`Piece.token_span`. It is remembered as ``(ids, token strings, relative offsets)``, and
every later occurrence costs one dictionary lookup. An encoding is then assembled with a few list operations over all
pieces at once, instead of a :class:`Token` per token.

With the compiled kernel (:mod:`~tokenizer_core.bpe.kernel`) the same steps run in C: splitting, merging, the piece
cache and the assembly of the lists. The kernel walks the GPT-2 and cl100k_base patterns itself and is given the
pieces of any other. The Python code below is what the kernel is checked against. The kernel's results come back as
packed columns (:class:`~tokenizer_core.fast.packed.PackedEncoding`), whose lists are made when read. A text holding
added tokens comes back this way too: one kernel call per segment between them, with their rows in between.

The result is the :class:`~tokenizer_core.types.Encoding` the general path gives, field for field.
tests/core/fast/test_bpe_fast_pipeline.py and tests/kernel/test_kernel.py compare them on many texts.

Its C mirror: kernels/src/encode.c (a text's pieces, tokens and lists) and
kernels/src/encoder_batch.c (encode_batch).

>>> from tokenizer_core.text.byte_level import ByteLevel, bytes_to_unicode
>>> from tokenizer_core.text.added_vocabulary import AddedVocabulary
>>> from tokenizer_core.bpe.model import BPE
>>> vocab = {c: i for i, c in enumerate(sorted(bytes_to_unicode().values()))}
>>> vocab["Ġw"] = 256
>>> model = BPE(vocab, [("Ġ", "w")])
>>> fast = ByteLevelFastPath.build(normalizer=None, pre_tokenizer=ByteLevel(), model=model)
>>> added = AddedVocabulary([], model_ids=model.token_to_id, model_size=model.vocab_size)
>>> enc = fast.encode("a w", added=added, split_special=True, sequence_id=0)
>>> enc.tokens, enc.offsets, enc.word_ids
(['a', 'Ġw'], [(0, 1), (1, 3)], [0, 1])
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from itertools import accumulate, chain, repeat
from operator import add, itemgetter
from typing import Any, Optional, Union

from tokenizer_core.bpe.kernel import kernel_encoder, split_chain
from tokenizer_core.bpe.model import BPE
from tokenizer_core.fast.columns import ENDS, STARTS, ColumnBuilder, column, with_positions
from tokenizer_core.fast.packed import PackedEncoding
from tokenizer_core.fast.protocol import PlannedPath, stage_name
from tokenizer_core.kernel.native import default_threads
from tokenizer_core.text.byte_level import ByteLevel, chunk_piece
from tokenizer_core.text.input_checks import MAX_INPUT_CHARS
from tokenizer_core.text.normalized import original_spans, unit_alignment
from tokenizer_core.text.normalizers import NFC, NFD, NFKC, NFKD
from tokenizer_core.types import CACHE_LIMIT, Encoding, Offsets

#: A piece's (ids, token strings, token starts, token ends, number of tokens); starts and ends
#: are character positions relative to the piece's first character.
PieceEntry = tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...], tuple[int, ...], int]
_IDS, _TOKENS, _STARTS, _ENDS, _COUNT = (itemgetter(k) for k in range(5))


class _PieceCache(dict):
    """piece text -> :data:`PieceEntry`, filled on first sight (``dict.__missing__``)."""

    def __init__(self, model: BPE) -> None:
        super().__init__()
        self._tokenize = model.tokenize

    def __missing__(self, chunk: str) -> PieceEntry:
        piece = chunk_piece(chunk, 0, len(chunk))
        tokens = self._tokenize(piece.text)
        spans = [piece.token_span(*t.offsets) for t in tokens]
        entry = (tuple(t.id for t in tokens), tuple(t.text for t in tokens),
                 tuple(a for a, _ in spans), tuple(b for _, b in spans), len(tokens))
        if len(self) < CACHE_LIMIT:
            self[chunk] = entry
        return entry


_FORMS = {"NFC": NFC, "NFD": NFD, "NFKC": NFKC, "NFKD": NFKD}


def _unicode_form(normalizer: Any) -> Union[str, bool]:
    """"" for no normalizer (none, or a Sequence of none: DeepSeek's files have one), the form's name
    for one Unicode form (alone or in a Sequence), False for anything else."""
    from tokenizer_core.text.normalizers import Sequence

    if normalizer is None:
        return ""
    if type(normalizer) is Sequence:
        forms = [_unicode_form(n) for n in normalizer.normalizers]
        if any(f is False for f in forms) or len([f for f in forms if f]) > 1:
            return False
        return next((f for f in forms if f), "")
    return normalizer.form if type(normalizer) in (NFC, NFD, NFKC, NFKD) else False


class ByteLevelFastPath(PlannedPath):
    """Encodings of one tokenizer's texts, assembled in bulk from cached pieces."""

    name = "byte-level BPE (GPT-2's family, Llama 3, Qwen)"

    def __init__(self, pre_tokenizer: ByteLevel, model: BPE, *, form: Optional[str] = None,
                 normalizer: Any = None) -> None:
        self.parts = (pre_tokenizer, model)
        #: The Unicode form of the normalizer ("NFC" for Qwen's, "NFKC" for Claude's), or None: a
        #: text already in that form is what it normalizes to, with every character in place; any
        #: other text is normalized first, encoded, and its offsets mapped back.
        self.form = form
        self._normalizer = normalizer
        self._chunks = getattr(pre_tokenizer, "chunk_texts", None)  # (a chain has the kernel's only)
        self._cache = _PieceCache(model)
        #: The compiled kernel for these stages (same results), or None: then the code below.
        self.kernel = kernel_encoder(pre_tokenizer, model)

    @classmethod
    def plan(cls, *, normalizer: Any, pre_tokenizer: Any, model: Any) -> Union["ByteLevelFastPath", str]:
        """The fast path for these stages, or why they need another."""
        found = _unicode_form(normalizer)
        if found is False:
            return f"the normalizer ({stage_name(normalizer)}) is neither none nor one Unicode form (NFC, NFKC, ...)"
        form = found or None
        if type(model) is not BPE:
            return f"the model ({stage_name(model)}) is not BPE"
        if split_chain(pre_tokenizer) is not None:  # a Sequence of Splits: in the kernel only
            fast = cls(pre_tokenizer, model, form=form, normalizer=normalizer)
            return fast if fast.kernel is not None else "its chain of Splits runs in the compiled kernel only, " \
                "which is not built here or cannot run one of its patterns"
        if type(pre_tokenizer) is not ByteLevel:
            return f"the pre-tokenizer ({stage_name(pre_tokenizer)}) is not ByteLevel or a chain of Splits before it"
        if pre_tokenizer.add_prefix_space:
            return "ByteLevel adds a prefix space (every text's first piece changes)"
        if pre_tokenizer.chunk_texts("") is None:  # no regex: the whole text is one piece, in the kernel only
            fast = cls(pre_tokenizer, model, form=form, normalizer=normalizer)
            return fast if fast.kernel is not None else "ByteLevel without its regex runs in the compiled kernel " \
                "only, which is not built here"
        return cls(pre_tokenizer, model, form=form, normalizer=normalizer)

    def compiled(self) -> bool:
        return self.kernel is not None

    def limits(self) -> tuple[str, ...]:
        notes = ["A text holding an added token is encoded a segment at a time around it."]
        if self.form:
            notes.append(f"A text not in {self.form} is normalized in Python first; one that also holds an added "
                         "token (or any text, with added tokens matched after normalizing) takes the general path.")
        return tuple(notes)

    def encode(self, text: str, *, added: Any, split_special: bool, sequence_id: int) -> Optional[Encoding]:
        """The model tokens of ``text`` (no post-processing), as the general path gives them; None
        for the general path (behind a Unicode form: a text holding added tokens)."""
        if self.form:
            skip = not split_special
            if added.has_tokens(normalized=True, skip_special=skip) or added.may_match([text], normalized=False,
                                                                                       skip_special=skip):
                return None
            if not _FORMS[self.form]().in_form(text):
                return self._normalized_first(text, added=added, split_special=split_special, sequence_id=sequence_id)
        return self._in_form(text, added=added, split_special=split_special, sequence_id=sequence_id)

    def _in_form(self, text: str, *, added: Any, split_special: bool, sequence_id: int) -> Encoding:
        """:meth:`encode` of a text known to be in the form (if there is one), free of added tokens
        that the form would hide."""
        ids: list[int] = []
        tokens: list[str] = []
        offsets: list[Offsets] = []
        word_ids: list[Optional[int]] = []
        word = 0
        skip = not split_special
        # Added tokens are cut out of the raw text, then out of the (here unchanged) normalized text.
        outer = added.split(text, normalized=False, skip_special=skip)
        if self.kernel is not None and text:
            packed = self._packed(text, outer, added, skip, sequence_id)
            if packed is not None:
                return packed
        for base, end, entry in outer:
            segment = text[base:end]
            if entry is not None:
                ids.append(entry[1])
                tokens.append(segment)
                offsets.append((base, end))
                word_ids.append(word)
                word += 1
                continue
            for s, e, inner in added.split(segment, normalized=True, normalizer=None, skip_special=skip):
                if inner is not None:
                    ids.append(inner[1])
                    tokens.append(segment[s:e])
                    offsets.append((base + s, base + e))
                    word_ids.append(word)
                    word += 1
                    continue
                word = self._pieces(segment[s:e] if e - s < len(segment) else segment, base + s, word,
                                    ids, tokens, offsets, word_ids)
        return Encoding.from_columns(ids, tokens, offsets, word_ids=word_ids, sequence_id=sequence_id)

    def _normalized_first(self, text: str, *, added: Any, split_special: bool, sequence_id: int) -> Optional[Encoding]:
        """A text not in the form: normalized as the general path normalizes it, the normalized text
        encoded here, each token's offsets mapped back through the normalization's alignment (what the
        general path does, with the kernel in between)."""
        # The one form's change (the rest of a Sequence of it changes nothing), aligned in arrays.
        normalized, starts, ends = unit_alignment(text, _FORMS[self.form]().units(text))
        if not _FORMS[self.form]().in_form(normalized):  # never expected: the general path decides
            return None
        # encode's checks once more, for the normalized text: in the form (just checked), and holding no
        # added token the raw text did not (a composed character can make one); its form is not checked
        # a third time.
        if added.may_match([normalized], normalized=False, skip_special=not split_special):
            return None
        enc = self._in_form(normalized, added=added, split_special=split_special, sequence_id=sequence_id)
        return _mapped_back(text, enc, starts, ends, sequence_id)

    def _normalized_rows(self, texts: list[str], indices: Sequence[int], *, added: Any, split_special: bool,
                         sequence_id: int, threads: int) -> dict[int, Encoding]:
        """:meth:`_normalized_first` of the texts at ``indices`` (none holding an added token), their
        normalized forms encoded in one kernel batch; a text whose form fails a check is left out
        (its single call decides)."""
        form = _FORMS[self.form]()
        ready: dict[int, tuple[str, Any, Any]] = {}
        for i in indices:
            normalized, starts, ends = unit_alignment(texts[i], form.units(texts[i]))
            if unicodedata.is_normalized(self.form, normalized) and not added.may_match(
                    [normalized], normalized=False, skip_special=not split_special):
                ready[i] = (normalized, starts, ends)
        if not ready:
            return {}
        rows = self.kernel.encode_batch([n for n, _, _ in ready.values()], sequence_id, threads=threads,
                                        encoding=PackedEncoding, packed=True)
        return {i: _mapped_back(texts[i], row, starts, ends, sequence_id)
                for (i, (_, starts, ends)), row in zip(ready.items(), rows)}

    def encode_batch(self, texts: Sequence[str], *, added: Any, split_special: bool,
                     sequence_id: int, threads: Optional[int] = None) -> Optional[list[Encoding]]:
        """:meth:`encode` of every text in one kernel call, on ``threads`` threads (default: every
        core this process may use), the texts holding an added token one at a time; None when the
        pipeline must take them all one at a time (no kernel, a text that is not a ``str``, too
        long, or with a lone surrogate: the single-text path handles or reports each of those)."""
        skip = not split_special
        if self.kernel is None:
            return None
        try:
            texts = list(texts)
            if self.form and added.has_tokens(normalized=True, skip_special=skip):
                return None
            if max(map(len, texts), default=0) > MAX_INPUT_CHARS:
                return None

            # A text holding an added token (a "<s>" in a corpus line) is encoded on its own; the
            # others still go to the kernel in one call.
            odd = (added.texts_matching(texts, normalized=False, skip_special=skip)
                   | added.texts_matching(texts, normalized=True, normalizer=None, skip_special=skip))
            threads = default_threads() if threads is None else max(1, min(threads, 64))
            formed: dict[int, Encoding] = {}
            if self.form:  # texts not in the form: normalized first, then one more kernel batch
                form, is_normalized = self.form, unicodedata.is_normalized
                outside = [i for i, t in enumerate(texts) if i not in odd and not is_normalized(form, t)]
                formed = self._normalized_rows(texts, outside, added=added, split_special=split_special,
                                               sequence_id=sequence_id, threads=threads)
                odd |= set(outside)
            # The kernel makes the Encoding objects itself, each holding its packed columns (lists made when read).
            rows = self.kernel.encode_batch([t for i, t in enumerate(texts) if i not in odd] if odd else texts,
                                            sequence_id, threads=threads, encoding=PackedEncoding, packed=True)
            if not odd:  # the usual batch: every row from the kernel
                return rows
            plain = iter(rows)
            out = [(formed[i] if i in formed else self.encode(t, added=added, split_special=split_special,
                                                              sequence_id=sequence_id))
                   if i in odd else next(plain) for i, t in enumerate(texts)]
            return out
        except (TypeError, UnicodeEncodeError):
            return None

    def _packed(self, text: str, outer: list[Any], added: Any, skip: bool,
                sequence_id: int) -> Optional[PackedEncoding]:
        """The kernel's encoding of ``text`` (cut at added tokens as ``outer`` says), its lists made when
        read: the list path's result, field for field. None (then the list path) for an added id
        that an int32 column cannot hold.

        Each segment between added tokens is one packed kernel call (offsets from its base, word ids
        from the next word), each added token a row of its own; the four columns of all of them are
        joined into one bytes object, so a 10 MB text with one ``<s>`` costs what it costs without."""
        columns = ColumnBuilder()
        rows: list[tuple[int, int, str]] = []  # (position, id, matched text) of each added token
        strs: Any = None
        word = 0
        for base, end, entry in outer:
            if entry is not None:
                rows.append((columns.count, entry[1], text[base:end]))
                if not columns.row(entry[1], base, end, word):
                    return None
                word += 1
                continue
            segment = text[base:end] if end - base < len(text) else text
            for s, e, inner in added.split(segment, normalized=True, normalizer=None, skip_special=skip):
                if inner is not None:
                    rows.append((columns.count, inner[1], segment[s:e]))
                    if not columns.row(inner[1], base + s, base + e, word):
                        return None
                    word += 1
                    continue
                # A long text is split and encoded on every core, in shards the kernel checks against
                # one pass (kernels/src/encode_shards.c); a short one stays on one thread.
                packed, pieces, strs = self.kernel.encode(segment[s:e] if e - s < len(segment) else segment,
                                                          base + s, word, packed=True, threads=default_threads())
                columns.add(packed)
                word += pieces
        if strs is None:  # only added tokens: the token list still comes from the kernel
            strs = self.kernel.encode("", 0, 0, packed=True)[2]
        # PackedEncoding reads a token's string as strs[id]; an added token whose id lies past that
        # list, or whose match is not that string (a token stripping white space), is given as matched.
        fixes = tuple((at, matched) for at, tid, matched in rows
                      if tid >= len(strs) or strs[tid] != matched)
        return PackedEncoding.from_packed(columns.joined(), sequence_id, strs, fixes)

    def _pieces(self, text: str, base: int, word: int, ids: list[int], tokens: list[str],
                offsets: list[Offsets], word_ids: list[Optional[int]]) -> int:
        """Append the tokens of every piece of ``text`` (found at ``base``); return the next word id."""
        if self.kernel is not None:
            more_ids, more_tokens, more_offsets, more_words, pieces = self.kernel.encode(
                text, base, word, threads=default_threads())
            ids += more_ids
            tokens += more_tokens
            offsets += more_offsets
            word_ids += more_words
            return word + pieces
        chunks = self._chunks(text)
        if not chunks:
            return word
        entries = list(map(self._cache.__getitem__, chunks))
        counts = list(map(_COUNT, entries))
        # Chunks cover the text end to end, so each one starts where the previous one ended;
        # every token's offsets are its chunk's start plus its cached relative offsets.
        # (map/chain/zip keep the per-token work in C: no Python loop over tokens.)
        chunk_starts = accumulate(map(len, chunks[:-1]), initial=base)
        token_bases = list(chain.from_iterable(map(repeat, chunk_starts, counts)))
        starts = map(add, token_bases, chain.from_iterable(map(_STARTS, entries)))
        ends = map(add, token_bases, chain.from_iterable(map(_ENDS, entries)))
        ids.extend(chain.from_iterable(map(_IDS, entries)))
        tokens.extend(chain.from_iterable(map(_TOKENS, entries)))
        offsets.extend(zip(starts, ends))
        word_ids.extend(chain.from_iterable(map(repeat, range(word, word + len(entries)), counts)))
        return word + len(entries)


def _mapped_back(text: str, enc: Encoding, starts: Any, ends: Any, sequence_id: int) -> Encoding:
    """``enc`` (of ``text``'s normalized form) with each token's offsets mapped back to ``text``
    through the normalization's alignment arrays."""
    if type(enc) is PackedEncoding and enc._has_columns():  # the columns, their offsets replaced
        cols = enc.columns()
        first, last = original_spans(starts, ends, len(text), column(cols, STARTS), column(cols, ENDS))
        cols = with_positions(cols, first.tobytes(), last.tobytes())
        return PackedEncoding.from_packed(cols, sequence_id, enc.token_strs(), enc._fixes())
    first, last = original_spans(starts, ends, len(text), [a for a, _ in enc.offsets], [b for _, b in enc.offsets])
    return Encoding.from_columns(enc.ids, enc.tokens, list(zip(first.tolist(), last.tolist())),
                                 word_ids=enc.word_ids, sequence_id=sequence_id)
