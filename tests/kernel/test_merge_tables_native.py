"""Loading a BPE model's tables in C (kernels/src/merge_ids.c, issue 39's import speed): the
kernel's merge pairs, merge ids and vocabulary check agree with the Python reference, refuse
(answer None) everything but the plain case so that Python raises its own message, and the
encoder built from the packed ids encodes as the one built from the Python dicts."""

from __future__ import annotations

import json
import os
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenizer_core.bpe.formats import merges_from_json
from tokenizer_core.bpe.kernel import kernel_encoder, token_bytes
from tokenizer_core.bpe.model import BPE
from tokenizer_core.bpe.tables import MergeTable, check_vocab
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.io.references import load_reference, reference_files
from tokenizer_core.text.byte_level import ByteLevel, bytes_to_unicode
from tokenizer_core.types import MAX_TOKEN_ID

tk = pytest.importorskip("tokenizer_kernel")


@pytest.fixture
def pure(monkeypatch):
    """Switch the kernel off for what runs inside (the reference path)."""
    def run(fn, *args, **kwargs):
        with monkeypatch.context() as m:
            m.setenv("TOKENIZER_CORE_PURE", "1")
            return fn(*args, **kwargs)
    return run


def _error(fn, *args, **kwargs) -> str:
    try:
        fn(*args, **kwargs)
    except (TokenizerError, FormatError) as err:
        return f"{type(err).__name__}: {err}"
    return "no error"


def test_a_real_merge_list_gives_the_reference_tables(pure):
    files = reference_files("gpt2")
    vocab = json.loads(files[0].read_text(encoding="utf-8"))
    lines = files[1].read_text(encoding="utf-8").splitlines()[1:]
    items = [line for line in lines if line]
    fast = BPE(vocab, merges_from_json(items))
    slow = pure(lambda: BPE(vocab, merges_from_json(items)))
    assert fast._table.id_triples is not None and slow._table.id_triples is None
    assert fast.merges == slow.merges and len(fast.merges) == 50_000
    assert fast._merge == slow._merge and fast._producer == slow._producer
    ids = memoryview(fast._table.id_triples).cast("i")
    inv = {i: t for t, i in vocab.items()}
    for rank in (0, 1, 12_345, 49_999):
        left, right = fast.merges[rank]
        assert (inv[ids[3 * rank]], inv[ids[3 * rank + 1]]) == (left, right)
        assert inv[ids[3 * rank + 2]] == fast._merge[(left, right)][1]


def test_the_older_string_form_and_list_form_read_alike():
    assert tk.merge_pairs(["a b", ["ab", "c"], ("x", "y")]) == [("a", "b"), ("ab", "c"), ("x", "y")]
    assert merges_from_json(["a b", ["ab", "c"]]) == [("a", "b"), ("ab", "c")]
    assert tk.merge_pairs([]) == []


@pytest.mark.parametrize("items", [
    ["a  b"], ["ab"], ["a b c"], [["a"]], [["a", "b", "c"]], [["a", 1]], [None], [{"a": "b"}],
])
def test_malformed_merges_get_the_reference_message(items, pure):
    assert tk.merge_pairs(items) is None  # not the kernel's to judge: Python reads them again
    assert _error(merges_from_json, items) == pure(_error, merges_from_json, items)
    data = {"vocab": {"a": 0, "b": 1, "ab": 2}, "merges": items}
    assert _error(BPE.from_dict, data) == pure(_error, BPE.from_dict, data) != "no error"


VOCAB = {"a": 0, "b": 1, "ab": 2, "##b": 3, "c": 4, "abc": 5}


@pytest.mark.parametrize(("merges", "prefix"), [
    ([("a", "x")], None),  # a part outside the vocabulary
    ([("b", "c")], None),  # makes a token outside it
    ([("a", "b"), ("ab", "c"), ("a", "b")], None),  # a pair twice: its last rank counts
    ([("a", "##b")], "##"),
    ([("a", "b")], "##"),
    ([["a", "b"]], None),  # lists, as a caller may pass them
])
def test_every_case_matches_the_reference(merges, prefix, pure):
    fast = _error(MergeTable, merges, vocab=VOCAB, prefix=prefix)
    assert fast == pure(_error, MergeTable, merges, vocab=VOCAB, prefix=prefix)
    if fast == "no error":
        table = MergeTable(merges, vocab=VOCAB, prefix=prefix)
        ref = pure(MergeTable, merges, vocab=VOCAB, prefix=prefix)
        assert (table.merges, table.ranks, table.producers) == (ref.merges, ref.ranks, ref.producers)


def test_a_pair_listed_twice_keeps_its_last_rank_either_way():
    table = MergeTable([("a", "b"), ("ab", "c"), ("a", "b")], vocab=VOCAB, prefix=None)
    assert table.id_triples is None and table.ranks[("a", "b")] == (2, "ab")


def test_ids_past_int32_and_str_subclasses_take_the_python_path():
    class Name(str):
        pass

    assert tk.merge_ids({"a": 0, "b": 1, "ab": 2**31}, [("a", "b")], None) is None
    assert tk.merge_ids(VOCAB, [(Name("a"), "b")], None) is None
    assert MergeTable([(Name("a"), "b")], vocab=VOCAB, prefix=None).ranks[("a", "b")] == (0, "ab")
    with pytest.raises(TypeError):
        tk.merge_ids(VOCAB, [("a", "b")], 5)


@pytest.mark.parametrize("vocab", [
    {"a": 0, "b": 0}, {"": 0}, {"a": -1}, {"a": MAX_TOKEN_ID + 1}, {"a": True}, {"a": 1.0}, {1: 0}, {"a": "0"},
])
def test_a_vocabulary_the_kernel_refuses_gets_the_reference_message(vocab, pure):
    assert tk.plain_vocab(vocab, MAX_TOKEN_ID) is False
    assert _error(check_vocab, vocab) == pure(_error, check_vocab, vocab) != "no error"


def test_a_plain_vocabulary_is_copied():
    vocab = {"a": 0, "b": MAX_TOKEN_ID}
    assert tk.plain_vocab(vocab, MAX_TOKEN_ID) is True
    out = check_vocab(vocab)
    assert out == vocab and out is not vocab


_tokens = st.text(alphabet="abcdĠ#", min_size=1, max_size=4)


@given(st.lists(st.tuples(_tokens, _tokens), max_size=30), st.sampled_from([None, "#", "##"]))
def test_random_merge_lists_match_the_reference(pairs, prefix):
    vocab: dict[str, int] = {}
    for left, right in pairs:
        tail = right[len(prefix):] if prefix and right.startswith(prefix) else right
        for tok in (left, right, left + tail):
            if tok:
                vocab.setdefault(tok, len(vocab))

    fast = _error(MergeTable, list(pairs), vocab=vocab, prefix=prefix)
    os.environ["TOKENIZER_CORE_PURE"] = "1"
    try:
        slow = _error(MergeTable, list(pairs), vocab=vocab, prefix=prefix)
        ref = None if slow != "no error" else MergeTable(list(pairs), vocab=vocab, prefix=prefix)
    finally:
        del os.environ["TOKENIZER_CORE_PURE"]
    assert fast == slow
    if ref is not None:
        table = MergeTable(list(pairs), vocab=vocab, prefix=prefix)
        # Every pair of vocabulary tokens (merges and not), and strings outside it, looked up both ways.
        probes = [(a, b) for a in vocab for b in vocab] + [("zz", "a"), ("a", "zz"), ("", "")]
        assert [table.rank_of(p) for p in probes] == [ref.ranks.get(p) for p in probes]
        assert (table.merges, table.ranks, table.producers) == (ref.merges, ref.ranks, ref.producers)


def test_token_bytes_match_a_token_by_token_reading():
    symbols = bytes_to_unicode()
    back = {c: b for b, c in symbols.items()}
    strs = [symbols[b] for b in range(256)] + [None, "Ġhello", "<|endoftext|>", "▁x", "é", "\x00", "ĠĠ"]

    def one(s):
        if s is None or any(c not in back for c in s):
            return None
        return bytes(back[c] for c in s)

    assert token_bytes(strs) == [one(s) for s in strs]
    assert token_bytes([]) == []


def test_the_encoder_from_packed_ids_encodes_as_the_one_from_python(pure):
    tok = load_reference("gpt2")
    text = "Hello world, it's 2026! Ünïcödé and   spaces\n\n" * 3
    fast = BPE(tok.model._vocab, list(tok.model.merges))
    slow = pure(lambda: BPE(tok.model._vocab, list(tok.model.merges)))
    assert fast._table.id_triples is not None and slow._table.id_triples is None
    pre = ByteLevel()
    a, b = kernel_encoder(pre, fast), kernel_encoder(pre, slow)
    assert a is not None and b is not None
    assert a.encode(text, 0, 0) == b.encode(text, 0, 0)
    assert a.encode(text, 0, 0)[0] == tok.encode(text).ids


def test_packed_merges_of_a_broken_size_are_refused():
    from tokenizer_core.kernel.native import class_table

    symbols = bytes_to_unicode()
    strs = [symbols[b] for b in range(256)]
    raw = token_bytes(strs)
    with pytest.raises(ValueError, match="whole int32 triples"):
        tk.Encoder(class_table(), 0, list(range(256)), b"\x00" * 13, raw, strs)
    with pytest.raises(ValueError, match="0..2"):
        tk.Encoder(class_table(), 0, list(range(256)), b"\xff" * 12, raw, strs)


def test_the_kernels_dicts_keep_the_last_rank_of_a_pair_and_the_first_producer():
    ranks, producers = tk.merge_dicts([("a", "b"), ("ab", "##c"), ("a", "b"), ("a", "bc")], "##")
    assert ranks == {("a", "b"): (2, "ab"), ("ab", "##c"): (1, "abc"), ("a", "bc"): (3, "abc")}
    assert producers == {"ab": (0, "a", "b"), "abc": (1, "ab", "##c")}
    with pytest.raises(TypeError, match="tuples of str"):
        tk.merge_dicts([["a", "b"]], None)
    with pytest.raises(TypeError, match="prefix"):
        tk.merge_dicts([], 3)


def test_a_kernel_checked_list_is_ranked_by_the_kernels_pair_table_as_the_dicts_rank(pure):
    tok = load_reference("gpt2")
    fast = BPE(tok.model._vocab, list(tok.model.merges))
    slow = pure(lambda: BPE(tok.model._vocab, list(tok.model.merges)))
    assert type(fast._table.rank_of.__self__) is tk.PairRanks  # no dicts built to rank pairs
    assert fast._table._ranks is None
    merges = fast.merges
    probes = merges[:200] + merges[-200:] + [(b, a) for a, b in merges[:200]] + [("Ġ", "zzzz"), ("h", "e")]
    assert [fast._table.rank_of(p) for p in probes] == [slow._merge.get(p) for p in probes]
    # The Python encoder over it (ranks limited or not) splits as over the dicts.
    words = ["Ġhello", "Ġworld", "Ġunbelievably", "Ġ2026", "ĠÃ¼"]
    for max_rank in (None, 10, 5_000):
        ranker_fast, ranker_slow = fast._ranker(max_rank), slow._ranker(max_rank)
        assert [ranker_fast(p) for p in probes] == [ranker_slow(p) for p in probes]
    assert [fast.tokenize(w) for w in words] == [slow.tokenize(w) for w in words]


def test_the_pair_table_refuses_misuse_with_clear_errors():
    vocab = {"a": 0, "b": 1, "ab": 2}
    good = array("i", [0, 1, 2]).tobytes()
    table = tk.PairRanks(vocab, good)
    assert table.get(("a", "b")) == (0, "ab") and len(table) == 1
    assert table.get(("b", "a")) is None and table.get("ab") is None and table.get(("a", 1)) is None
    assert table.get(("a", "b", "c")) is None and table.get(["a", "b"]) is None
    with pytest.raises(ValueError, match="multiple of 12"):
        tk.PairRanks(vocab, good + b"\x00")
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tk.PairRanks(vocab, array("i", [0, 1, 9]).tobytes())
    with pytest.raises(TypeError):
        tk.PairRanks(list(vocab), good)
    with pytest.raises(RuntimeError, match="already built"):
        table.__init__(vocab, good)
    with pytest.raises(RuntimeError, match="not built"):
        tk.PairRanks.__new__(tk.PairRanks).get(("a", "b"))


def test_byte_level_bytes_in_the_kernel_match_the_python_reading():
    from tokenizer_core.bpe.kernel import _INVERSE

    symbols = bytes_to_unicode()
    strs = [symbols[b] for b in range(256)] + [None, "Ġhello", "<|endoftext|>", "▁x", "é", "\x00", "", "ĠĠ", "😀"]
    assert tk.byte_level_bytes(strs, _INVERSE) == token_bytes(strs)
    with pytest.raises(TypeError, match="str or None"):
        tk.byte_level_bytes(["a", 3], _INVERSE)
    with pytest.raises(TypeError):
        tk.byte_level_bytes(("a",), _INVERSE)
    with pytest.raises(TypeError):
        tk.byte_level_bytes(["a"], ["x"])
