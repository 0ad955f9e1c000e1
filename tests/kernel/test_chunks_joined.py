"""ChunkTable.encode_joined (kernels/src/chunks_joined.c) and its driver CompiledChunks.encode_joined: a text
cut at its added tokens (text, token, ..., text) comes back as one set of columns, equal to each text
encoded alone and put where it stands, each token a row, word ids as the general path counts them (each
non-empty text one word, each token one), on any number of threads; None where a chunk is not served."""

from __future__ import annotations

import re
from array import array

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tokenizer_core.fast import columns as packed
from tokenizer_core.fast.chunk_table import RULE_SPACES, CompiledChunks
from tokenizer_core.kernel import native

pytestmark = pytest.mark.skipif(not native.available() or not hasattr(native.kernel(), "ChunkTable"),
                                reason="needs the compiled kernel")

STRS = [chr(c) for c in range(32, 127)] + ["\n", "<long>"]
NL, LONG = len(STRS) - 2, len(STRS) - 1
ADDED = {"\n": NL, "#": ord("#") - 32}  # two added tokens the model knows, as Gemma's "\n"
CUT = re.compile("(\n|#)")
TEXTS = st.lists(st.sampled_from(["a", "b", "xy", " ", "  ", "\n", "#", "é", "中", "!", "\n\n"]), max_size=40).map("".join)


def _entry(chunk: str, first: bool) -> tuple:
    """A toy model: one token per character (ASCII by code, else "<long>"), the chunk one piece."""
    ids = [ord(c) - 32 if 32 <= ord(c) < 127 else LONG for c in chunk]
    n = len(chunk)
    return ids, [STRS[i] for i in ids], list(range(n)), list(range(1, n + 1)), [0] * n, 0


def _cut(text: str) -> tuple[list[str], list[int]]:
    parts = CUT.split(text)
    return parts, [ADDED[t] for t in parts[1::2]]


def _expected(parts: list[str]) -> tuple[list, list, list]:
    """Ids, offsets and word ids as the general path gives them: each non-empty text and each token
    one word, in turn."""
    ids, offsets, words, base, word = [], [], [], 0, 0
    for k, part in enumerate(parts):
        if k % 2:
            ids.append(ADDED[part])
            offsets.append((base, base + len(part)))
        else:
            e_ids, _, starts, ends, _, _ = _entry(part, False)
            ids += e_ids
            offsets += [(s + base, e + base) for s, e in zip(starts, ends)]
        words += [word] * (len(ids) - len(words))
        word += bool(k % 2 or part)
        base += len(part)
    return ids, offsets, words


def _table(budget: int = 1 << 20) -> CompiledChunks:
    table = CompiledChunks.build(token_strs=list(STRS), rule=RULE_SPACES, budget=budget)
    assert table is not None
    return table


@settings(max_examples=120, deadline=None)
@given(text=TEXTS, threads=st.sampled_from([1, 2, 3]), budget=st.sampled_from([0, 1 << 20]))
@example(text="\n", threads=1, budget=1 << 20)
@example(text="#\n\n# a", threads=2, budget=1 << 20)
@example(text="", threads=1, budget=1 << 20)
def test_one_text_cut_at_added_tokens_equals_its_parts_alone(text: str, threads: int, budget: int) -> None:
    table = _table(budget)  # budget 0: every chunk in the call's own table (the driver's `extra`)
    parts, ids = _cut(text)
    enc = table.encode_joined(parts, ids, entry_of=_entry, sequence_id=1, threads=threads)
    assert enc is not None
    assert (enc.ids, enc.offsets, enc.word_ids) == _expected(parts), parts
    assert enc.tokens == [STRS[i] for i in enc.ids] and enc.sequence_ids == [1] * len(enc)


def test_shards_on_every_thread_count_give_the_same_columns() -> None:
    """A text long enough to be cut into shards (4 x 2,048 characters and more), cut between its parts."""
    table = _table()
    text = "".join(f"line {i} has # some\nwords é 中\n\n" for i in range(2_000))
    parts, ids = _cut(text)
    column = array("q", ids)
    assert table.encode_joined(parts, ids, entry_of=_entry, sequence_id=0, threads=1) is not None  # stored now
    one = table._table.encode_joined(parts, column, 1)
    assert one is not None and packed.rows(one) == len(_expected(parts)[0])
    for threads in (2, 3, 7, 64):
        assert table._table.encode_joined(parts, column, threads) == one, threads
    got = table.encode_joined(parts, ids, entry_of=_entry, sequence_id=0, threads=2)
    assert (got.ids, got.offsets, got.word_ids) == _expected(parts)


def test_a_chunk_not_stored_gives_none_and_the_driver_stores_it() -> None:
    table = _table()
    parts, ids = _cut("ab\ncd")
    assert table._table.encode_joined(parts, array("q", ids), 1) is None  # nothing stored yet
    enc = table.encode_joined(parts, ids, entry_of=_entry, sequence_id=0)
    assert enc is not None and enc.ids == _expected(parts)[0]
    assert table._table.encode_joined(parts, array("q", ids), 1) is not None


def test_what_the_kernel_cannot_give_is_none_for_the_callers_own_way() -> None:
    table = _table()
    long = "x" * 1_500  # a chunk too long to store (MAX_KEY_CHARS, 1,024)
    parts, ids = _cut(f"a\n{long}\nb")
    assert table.encode_joined(parts, ids, entry_of=_entry, sequence_id=0) is None
    # a token whose id is past the model's, or whose id names another string
    assert table.encode_joined(["a", "\n", "b"], [len(STRS)], entry_of=_entry, sequence_id=0) is None
    assert table.encode_joined(["a", "\n", "b"], [ord("!") - 32], entry_of=_entry, sequence_id=0) is None


def test_bad_arguments_raise() -> None:
    kernel_table = _table()._table
    q = array("q", [NL])
    with pytest.raises(ValueError, match="odd count"):
        kernel_table.encode_joined(["a", "\n"], q, 1)
    with pytest.raises(ValueError, match="odd count"):
        kernel_table.encode_joined(["a", "\n", "b"], array("q", [NL, NL]), 1)
    with pytest.raises(ValueError, match="int32"):
        kernel_table.encode_joined(["a", "\n", "b"], array("q", [-1]), 1)
    with pytest.raises(ValueError, match="int32"):
        kernel_table.encode_joined(["a", "\n", "b"], array("q", [1 << 31]), 1)
    with pytest.raises(ValueError, match="aligned"):
        kernel_table.encode_joined(["a", "\n", "b"], memoryview(b"\0" + q.tobytes())[1:], 1)
    with pytest.raises(TypeError):
        kernel_table.encode_joined(["a", 3, "b"], q, 1)
    for threads in (0, 65):
        with pytest.raises(ValueError, match="threads"):
            kernel_table.encode_joined(["a", "\n", "b"], q, threads)
