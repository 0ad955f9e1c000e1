"""The kernel's ChunkTable (kernels/src/chunks*.c) and its driver (tokenizer_core/fast/chunk_table.py): chunks cut
as the Python fast paths cut them, stored entries put back together with the right offsets and word
ids, the budget, chunks it cannot serve, bad arguments, and threads encoding while others store."""

from __future__ import annotations

import threading
from array import array

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.fast.chunk_table import RULE_PIECES, RULE_SPACES, RULE_WORDS, CompiledChunks
from tokenizer_core.fast.packed import PackedEncoding
from tokenizer_core.kernel import native

pytestmark = pytest.mark.skipif(not native.available() or not hasattr(native.kernel(), "ChunkTable"),
                                reason="needs the compiled kernel")

STRS = [chr(c) for c in range(32, 127)] + ["<long>"]
LONG = len(STRS) - 1
_PATTERNS = {RULE_WORDS: regex.compile(r"[^ \t\n\r]+"), RULE_SPACES: regex.compile(r" *[^ ]+| +")}
TEXTS = st.lists(st.sampled_from(["a", "b", "xy", " ", "  ", "\t", "\n", "\r", "é", "中", "\x00", "!"]),
                 max_size=30).map("".join)


def _entry(chunk: str, first: bool) -> tuple:
    """A toy model: one token per character (ASCII by code, else "<long>"), each its own piece; a
    chunk first in its text gets one more token, so that first entries are seen to be apart."""
    ids = [ord(c) - 32 if 32 <= ord(c) < 127 else LONG for c in chunk]
    starts, ends = list(range(len(chunk))), list(range(1, len(chunk) + 1))
    if first:
        ids, starts, ends = [LONG] + ids, [0] + starts, [0] + ends
    return ids, [STRS[i] for i in ids], starts, ends, list(range(len(ids))), len(ids)


def _expected(text: str, rule: int, *, first_entries: bool) -> tuple[list, list, list]:
    """Ids, offsets and word ids as the Python fast paths assemble them."""
    ids, offsets, words, word = [], [], [], 0
    for m in _PATTERNS[rule].finditer(text):
        e_ids, _, starts, ends, e_words, pieces = _entry(m.group(), first_entries and m.start() == 0)
        ids += e_ids
        offsets += [(s + m.start(), e + m.start()) for s, e in zip(starts, ends)]
        words += [w + word for w in e_words]
        word += pieces
    return ids, offsets, words


@pytest.mark.parametrize("rule", [RULE_WORDS, RULE_SPACES])
@settings(max_examples=60, deadline=None)
@given(texts=st.lists(TEXTS, max_size=8), first_entries=st.booleans(), budget=st.sampled_from([0, 300, 1 << 20]))
def test_rows_equal_the_python_assembly(rule: int, texts: list[str], first_entries: bool, budget: int) -> None:
    table = CompiledChunks.build(token_strs=list(STRS), rule=rule, first_entries=first_entries, budget=budget)
    assert table is not None
    for rows in ([table.encode(t, entry_of=_entry, resolve=None, sequence_id=1) for t in texts],
                 table.encode_batch(texts, entry_of=_entry, resolve=None, sequence_id=1, threads=3)):
        for text, row in zip(texts, rows):
            assert (row.ids, row.offsets, row.word_ids) == _expected(text, rule, first_entries=first_entries), text
            assert row.tokens == [STRS[i] for i in row.ids] and row.sequence_ids == [1] * len(row)


def test_chunks_too_long_to_store_are_encoded_by_python() -> None:
    table = CompiledChunks.build(token_strs=list(STRS), rule=RULE_WORDS)
    text = "ab " + "x" * 1500 + " cd"
    assert table is not None and table._table.missing([text]) == [("ab", False), ("cd", False)]
    row = table.encode(text, entry_of=_entry, resolve=None, sequence_id=0)
    assert (row.ids, row.offsets, row.word_ids) == _expected(text, RULE_WORDS, first_entries=False)
    assert table._table.size()[0] == 2


def test_tokens_that_are_not_their_ids_string_keep_their_text() -> None:
    """A token whose text is not its id's string (an unknown piece keeping the text it covers) is
    stored under a stand-in id; rows give the real id and that text, single texts and batches alike."""
    table = CompiledChunks.build(token_strs=list(STRS), rule=RULE_WORDS)
    assert table is not None

    def unknown_upper(chunk: str, first: bool) -> tuple:
        ids, tokens, *rest = _entry(chunk, first)
        return ([0 if t.isupper() else i for i, t in zip(ids, tokens)], tokens, *rest)

    texts = ["ab", "aB Cd", "B", "", "BB b"]
    rows = [table.encode(t, entry_of=unknown_upper, resolve=None, sequence_id=0) for t in texts]
    rows2 = table.encode_batch(texts * 2, entry_of=unknown_upper, resolve=None, sequence_id=0, threads=2)
    for text, row in zip(texts * 2, rows + rows2):
        letters = [c for c in text if c != " "]
        assert row.tokens == letters and row.ids == [0 if c.isupper() else ord(c) - 32 for c in letters]
    assert table.usable and rows[1] == rows2[6]


def test_ids_past_the_model_turn_the_table_off() -> None:
    table = CompiledChunks.build(token_strs=list(STRS), rule=RULE_WORDS)
    assert table is not None

    def wrong(chunk: str, first: bool) -> tuple:
        ids, *rest = _entry(chunk, first)
        return ([len(STRS)] * len(ids), *rest)

    assert table.encode("ab", entry_of=wrong, resolve=None, sequence_id=0) is None and not table.usable


def test_bad_arguments_raise() -> None:
    kernel = native.kernel()
    with pytest.raises(RuntimeError, match="not initialised"):
        kernel.ChunkTable.__new__(kernel.ChunkTable).encode("a")
    with pytest.raises(ValueError, match="rule"):
        kernel.ChunkTable(STRS, rule=7)
    table = kernel.ChunkTable(STRS, rule=RULE_WORDS)
    with pytest.raises(ValueError, match="past the token list"):
        table.put("ab", False, [len(STRS)], [0], [1], [0], 1)
    with pytest.raises(ValueError, match="outside the chunk"):
        table.put("ab", False, [1], [0], [3], [0], 1)
    with pytest.raises(ValueError, match="as long as"):
        table.put("ab", False, [1, 2], [0], [1], [0], 1)
    with pytest.raises(ValueError, match="ints from 0"):
        table.put("ab", False, [-1], [0], [1], [0], 1)
    with pytest.raises(ValueError, match="only a RULE_SPACES"):
        table.encode("a b", spaces="\t")
    with pytest.raises(ValueError, match="start"):
        table.encode("a b", start=9)
    with pytest.raises(TypeError):
        table.encode_batch(["a", 3], 0, encoding=PackedEncoding)
    with pytest.raises(ValueError, match="same settings"):
        table.encode("a", extra=kernel.ChunkTable(STRS, rule=RULE_SPACES))
    assert table.encode("") == (b"", 0, 0, 0.0, 0)
    with pytest.raises(ValueError, match="splitter"):
        kernel.ChunkTable(STRS, rule=RULE_PIECES)
    with pytest.raises(ValueError, match="splitter"):
        kernel.ChunkTable(STRS, rule=RULE_PIECES, splitter=table)
    with pytest.raises(ValueError, match="splitter"):
        kernel.ChunkTable(STRS, rule=RULE_WORDS, splitter=kernel.Encoder.__new__(kernel.Encoder))


def test_spaces_named_by_the_call_cut_chunks() -> None:
    kernel = native.kernel()
    table = kernel.ChunkTable(STRS, rule=RULE_SPACES)
    text = "ab\u00a0cd ef"
    assert table.missing([text]) == [("ab\u00a0cd", False), (" ef", False)]
    assert table.missing([text], spaces="\u00a0") == [("ab", False), ("\u00a0cd", False), (" ef", False)]


def test_scored_rows_stop_at_near_ties() -> None:
    """A scored entry whose gap rounding could close at the running score stops the row; the score
    after a row is the float32 sum of its entries' scores, added in order."""
    kernel = native.kernel()
    table = kernel.ChunkTable(STRS, rule=RULE_SPACES, scored=True, max_score=10.0)
    assert table.put("ab", False, [65, 66], [0, 1], [1, 2], [0, 0], 0, [-0.1, -0.2], 1.0, 2)
    assert table.put(" ab", False, [65], [1], [3], [0], 0, [-3.3], 1e-9, 3)
    columns, stop, stop_end, total, _ = table.encode("ab")
    f32 = array("f", [0.0])
    for s in (-0.1, -0.2):
        f32[0] = f32[0] + s
    assert (stop, total) == (2, f32[0]) and len(columns) == 2 * 28
    assert table.encode("ab ab")[1:3] == (2, 5)  # the near tie: Python takes " ab" from here


def test_threads_encode_while_others_store() -> None:
    """Batches on threads without the GIL while other threads store new chunks (the table grows and
    moves under them): no crash, every row right."""
    table = CompiledChunks.build(token_strs=list(STRS), rule=RULE_SPACES, first_entries=True)
    assert table is not None
    words = [f"w{k}" for k in range(4000)]
    texts = [" ".join(words[k:k + 40]) for k in range(0, 4000, 7)]
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for k in range(3):
                batch = texts[offset + k::4]
                rows = table.encode_batch(batch, entry_of=_entry, resolve=None, sequence_id=0, threads=2)
                for text, row in zip(batch, rows):
                    assert (row.ids, row.offsets, row.word_ids) == _expected(text, RULE_SPACES, first_entries=True)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


@pytest.mark.parametrize("byte_fallback", [False, True])
def test_near_ties_segmented_again_in_c_equal_the_general_path(byte_fallback: bool) -> None:
    """SentencePiece Unigram texts whose chunks are near ties at their running score (x + xxx against
    xxx + x), with unknown characters before and inside them: the kernel's Viterbi (byte fallback:
    its byte tokens; without: Python names the unknown token) gives the general path's encoding."""
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.unigram.sentencepiece_normalizer import SentencePieceNormalizer
    from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram

    vocab = [("<unk>", 0.0, "unknown"), ("▁", -3.0, "normal"), ("x", -2.1, "normal"), ("xxx", -4.3, "normal"),
             ("▁w", -1.7, "normal"), ("▁xxx", -5.9, "normal"), ("▁x", -3.7, "normal"), ("xx", -4.2, "normal")]
    vocab += [(f"<0x{b:02X}>", 0.0, "byte") for b in range(256)] if byte_fallback else []
    tok = Tokenizer(SentencePieceUnigram(vocab, byte_fallback=byte_fallback), normalizer=SentencePieceNormalizer())
    texts = ["w " * n + "中é" * (n % 3) + " xxxx xx中xxx xxxxxxx" for n in range(0, 2500, 37)]
    general = [tok._trace_text(t, split_special=True, sampling=None, sequence_id=0)[1] for t in texts]
    assert [tok.encode(t) for t in texts] == general
    assert tok._encode_sequences(texts, threads=2) == general
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    assert fast._table() is not None  # the kernel's table served them


def test_batch_rows_are_left_out_of_the_cyclic_gc() -> None:
    """A packed row can be in no cycle (bytes, an int, the shared token list; lists of ints, strs and
    tuples once read): the kernel leaves it out of the cyclic GC, whose next collection would
    otherwise walk every row of a big batch (60 ms for 266,283 GPT-2 rows)."""
    import gc

    from tokenizer_core.io.references import load_reference

    rows = load_reference("gpt2").encode_batch(["hello world", "a b c"] * 3).encodings
    table = CompiledChunks.build(token_strs=list(STRS), rule=RULE_WORDS)
    assert table is not None
    rows += table.encode_batch(["ab cd", "x"] * 3, entry_of=_entry, resolve=None, sequence_id=0, threads=2)
    assert all(isinstance(r, PackedEncoding) and not gc.is_tracked(r) for r in rows)
    assert rows[0].tokens == ["hello", "Ġworld"] and rows[-1].ids == [ord("x") - 32]
    gc.collect()
    assert rows[1].offsets == [(0, 1), (1, 3), (3, 5)]


def test_a_bad_score_raises_its_own_error_even_when_a_later_score_runs_python() -> None:
    """put() stops reading scores at the first bad one: a later score's ``__float__`` (Python code)
    must not run with that error still set, where handling an exception of its own cleared it and the
    bad score was stored as -1.0 without a word."""
    kernel = native.kernel()

    class Later:
        def __float__(self) -> float:
            try:  # an exception raised and handled inside: it wipes out the error still set, if any
                raise KeyError("inside")
            except KeyError:
                pass
            return 1.0

    table = kernel.ChunkTable(STRS, rule=RULE_SPACES, scored=True, max_score=10.0)
    with pytest.raises(TypeError):
        table.put("ab", False, [65, 66], [0, 1], [1, 2], [0, 0], 0, ["bad", Later()], 1.0, 2)
    assert table.put("ab", False, [65, 66], [0, 1], [1, 2], [0, 0], 0, [-0.1, -0.2], 1.0, 2)
