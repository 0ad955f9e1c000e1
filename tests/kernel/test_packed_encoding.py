"""PackedEncoding (tokenizer_core/fast/packed.py): the kernel's columns, lists made when read; to every
caller it is the Encoding the list-building path gives (equality, pickling, copies, replace, mutation)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.fast.packed import PackedEncoding
from tokenizer_core.io.references import load_reference
from tokenizer_core.kernel.native import available
from tokenizer_core.types import Encoding

pytestmark = pytest.mark.skipif(not available(), reason="the compiled kernel is not installed")

_FIELDS = [f.name for f in dataclasses.fields(Encoding)]


@pytest.fixture(scope="module")
def gpt2():
    return load_reference("gpt2")


def _packed(tok, text: str, sequence_id: int = 0) -> PackedEncoding:
    enc = tok.encode_sequence(text, sequence_id=sequence_id)
    assert type(enc) is PackedEncoding
    return enc


def _plain(enc: Encoding) -> Encoding:
    return Encoding(**{f: copy.copy(getattr(enc, f)) for f in _FIELDS})


def _set(enc: Encoding, name: str) -> bool:
    try:
        getattr(Encoding, name).__get__(enc)
        return True
    except AttributeError:
        return False


@given(text=st.lists(st.sampled_from(list("ab \n\t'sé字😀<>&\"") + ["\r\n", "  ", "123"]), max_size=40).map("".join))
@settings(max_examples=60, deadline=None)
def test_packed_columns_give_the_lists_of_the_kernel(gpt2, text: str) -> None:
    """Kernel lists (encode) and packed columns (encode packed=True) are one encoding, for any text."""
    fast = gpt2._fast.get(gpt2.normalizer, gpt2.pre_tokenizer, gpt2.model)
    ids, tokens, offsets, word_ids, pieces = fast.kernel.encode(text, 7, 3)
    columns, p_pieces, strs = fast.kernel.encode(text, 7, 3, packed=True)
    enc = PackedEncoding.from_packed(columns, 1, strs)
    assert (enc.ids, enc.tokens, enc.offsets, enc.word_ids, p_pieces) == (ids, tokens, offsets, word_ids, pieces)
    assert enc.type_ids == enc.sequence_ids == [1] * len(ids) and enc.attention_mask == [1] * len(ids)
    assert enc.special_tokens_mask == [0] * len(ids) and enc.overflowing == []


def test_lists_are_made_once_and_only_when_read(gpt2) -> None:
    enc = _packed(gpt2, "Hello there, naïve world")
    assert not any(_set(enc, f) for f in _FIELDS)
    assert len(enc) == 5 and not _set(enc, "ids")  # the length comes from the columns
    ids = enc.ids
    assert enc.ids is ids and _set(enc, "ids") and not _set(enc, "offsets")
    assert enc.tokens == ["Hello", "Ġthere", ",", "ĠnaÃ¯ve", "Ġworld"]
    enc.ids.append(1)  # ordinary lists: mutations stay
    assert enc.ids[-1] == 1 and len(enc) == 6
    enc.tokens = ["x"]
    assert enc.tokens == ["x"]
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        enc.nope  # noqa: B018
    assert not hasattr(enc, "_other")


def test_equal_to_plain_encodings_both_ways(gpt2) -> None:
    enc = _packed(gpt2, "one two", sequence_id=1)
    plain = _plain(_packed(gpt2, "one two", sequence_id=1))
    assert type(plain) is Encoding
    assert enc == plain and plain == enc and not (enc != plain)
    assert enc != _plain(_packed(gpt2, "one three", sequence_id=1))
    assert enc != _plain(_packed(gpt2, "one two", sequence_id=0))  # type and sequence ids differ
    assert enc != "one two"
    with pytest.raises(TypeError):
        hash(enc)


@pytest.mark.parametrize("read_first", [(), ("ids",), tuple(_FIELDS)])
def test_pickles_copies_and_replace(gpt2, read_first: tuple[str, ...]) -> None:
    enc = _packed(gpt2, "pickled text\nwith 2 lines")
    for name in read_first:
        getattr(enc, name)
    expected = _plain(enc)
    for other in (pickle.loads(pickle.dumps(enc)), copy.copy(enc), copy.deepcopy(enc)):
        assert other == expected and isinstance(other, Encoding)
    replaced = dataclasses.replace(enc, ids=[1, 2])
    assert replaced.ids == [1, 2] and replaced.tokens == expected.tokens
    assert "PackedEncoding(ids=" in repr(enc)


def test_batch_rows_and_single_texts_agree(gpt2) -> None:
    texts = ["a b c", "", "naïve 😀 text", "x" * 5000]
    batch = gpt2.encode_batch(texts)
    assert all(type(e) is PackedEncoding for e in batch.encodings)
    assert [_plain(e) for e in batch.encodings] == [_plain(gpt2.encode(t)) for t in texts]
    assert batch["input_ids"] == [gpt2.encode(t).ids for t in texts]


def test_a_batchs_ids_come_from_the_columns_in_one_call_and_equal_every_rows_list(gpt2) -> None:
    texts = ["Hello world", "", "ids past 4096 twice: Ġ" * 3, "again Hello world", "x" * 50]
    batch = gpt2.encode_batch(texts, add_special_tokens=False)
    assert all(type(r) is PackedEncoding and not _set(r, "ids") for r in batch.rows)
    ids = batch.input_ids
    assert all(not _set(r, "ids") for r in batch.rows)  # read from the columns, no list made on the rows
    assert ids == [gpt2.encode(t, add_special_tokens=False).ids for t in texts]
    assert ids == batch.input_ids and ids[0] is not batch.input_ids[0]  # new lists each time
    # A row whose list was read (and changed by its owner) gives its list; a plain Encoding its own.
    batch.rows[0].ids.append(7)
    batch.rows[1] = Encoding(ids=[1, 2])
    assert batch.input_ids == [ids[0] + [7], [1, 2], *ids[2:]]


def test_the_python_reading_of_a_batchs_ids_equals_the_kernels(gpt2, monkeypatch) -> None:
    from tokenizer_core.fast import packed

    texts = ["Hello world", "", "a b c 2026 ÜÖ", "x" * 50]
    fast = gpt2.encode_batch(texts, add_special_tokens=False)
    slow = gpt2.encode_batch(texts, add_special_tokens=False)
    monkeypatch.setattr(packed, "_packed_ids", lambda: None)
    assert slow.input_ids == fast.input_ids and slow.input_ids == [list(r.ids) for r in fast.rows]


def test_packed_ids_refuses_misuse_and_leaves_other_objects_to_the_caller() -> None:
    import tokenizer_kernel as tk

    from tokenizer_core.fast import columns

    assert tk.PACKED_ROW_BYTES == columns.ROW_BYTES  # the row layout, one size on both sides
    row = columns.pack([5, 4101, 5, 2**31 - 1, -1], [0] * 5, [1] * 5, [0] * 5)  # 5 and 4101 share a cache slot
    rows = [PackedEncoding.from_packed(row, 0, []), Encoding(ids=[3]), "text", None,
            PackedEncoding.from_packed(b"\x00" * 27, 0, []), PackedEncoding.from_packed(row, 1, [])]
    assert tk.packed_ids(rows, PackedEncoding) == [[5, 4101, 5, 2**31 - 1, -1], None, None, None, None,
                                                   [5, 4101, 5, 2**31 - 1, -1]]
    with pytest.raises(TypeError):
        tk.packed_ids(tuple(rows), PackedEncoding)
    with pytest.raises(TypeError, match="is not a slot"):
        tk.packed_ids(rows, type("NotSlotted", (), {"ids": [], "_packed": b""}))
    with pytest.raises(AttributeError):
        tk.packed_ids(rows, int)
    with pytest.raises(TypeError):
        tk.packed_ids(rows, "PackedEncoding")
    assert tk.packed_ids([], PackedEncoding) == []


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(st.lists(st.tuples(st.integers(-5, 2**31 - 1), st.integers(0, 99), st.integers(0, 99),
                                         st.integers(0, 9)), max_size=4), max_size=6),
       shifts=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**4)), min_size=6, max_size=6))
def test_rows_concatenated_and_shifted_in_the_kernel_equal_the_builders(parts, shifts) -> None:
    from tokenizer_core.fast import columns
    from tokenizer_core.kernel import native

    rows = [columns.pack(*zip(*p)) if p else b"" for p in parts]
    bases, words = [b for b, _ in shifts[:len(rows)]], [w for _, w in shifts[:len(rows)]]
    fast = columns.concat_shifted(rows, bases, words)
    real = native.available
    native.available = lambda: False  # the builder's reading (no monkeypatch: hypothesis reruns the body)
    try:
        slow = columns.concat_shifted(rows, bases, words)
    finally:
        native.available = real
    assert fast == slow
    expect = [(i, s + b, e + b, w + word) for p, b, word in zip(parts, bases, words) for i, s, e, w in p]
    assert [columns.column(fast, k).tolist() for k in range(4)] == [list(c) for c in zip(*expect)] or not expect


def test_concat_shifted_refuses_misuse() -> None:
    import tokenizer_kernel as tk

    from tokenizer_core.fast import columns

    row, q = columns.ONE_ROW.pack(5, 0, 1, 0), (lambda *v: __import__("array").array("q", v).tobytes())
    assert tk.concat_shifted([], b"", b"") == b""
    assert columns.column(tk.concat_shifted([row, row], q(2, 7), q(0, 3)), columns.WORDS).tolist() == [0, 3]
    with pytest.raises(ValueError, match="one int64 a row"):
        tk.concat_shifted([row], q(1, 2), q(0))
    with pytest.raises(ValueError, match="not a packed row"):
        tk.concat_shifted([row[:27]], q(0), q(0))
    with pytest.raises(ValueError, match="not a packed row"):
        tk.concat_shifted(["text"], q(0), q(0))
    with pytest.raises(TypeError):
        tk.concat_shifted((row,), q(0), q(0))
    big = tk.concat_shifted([row], q(2**63 - 1), q(0))  # wraps in C, never undefined
    assert columns.column(big, columns.STARTS).tolist() == [2**63 - 1]
