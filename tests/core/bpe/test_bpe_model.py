"""BPE model/encoder: rank order, long pieces, dropout, traces, merge trees, options and tokenizers parity."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer

from tokenizer_core.bpe.model import BPE
from tokenizer_core.bpe.options import BpeModelOptions, MergeRanks
from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.registry import build
from tokenizer_core.types import Sampling


def naive_bpe(word: str, ranks: dict[tuple[str, str], int]) -> list[str]:
    """Reference: repeatedly merge the adjacent pair of lowest rank, leftmost on ties."""
    syms = list(word)
    while True:
        cands = [(ranks[(syms[i], syms[i + 1])], i) for i in range(len(syms) - 1) if (syms[i], syms[i + 1]) in ranks]
        if not cands:
            return syms
        _, i = min(cands)
        syms[i: i + 2] = [syms[i] + syms[i + 1]]


def model_from(merges: list[tuple[str, str]], alphabet: str) -> BPE:
    vocab = {c: i for i, c in enumerate(alphabet)}
    for a, b in merges:
        for tok in (a, b, a + b):
            vocab.setdefault(tok, len(vocab))
    return BPE(vocab, merges)


def test_lowest_rank_first_not_leftmost():
    m = model_from([("b", "c"), ("a", "b")], "abc")
    assert m.segment("abc") == ["a", "bc"]
    m = model_from([("a", "b"), ("b", "c")], "abc")
    assert m.segment("abc") == ["ab", "c"]


def test_overlapping_pair_merges_left_to_right():
    m = model_from([("a", "a")], "a")
    assert m.segment("aaa") == ["aa", "a"]
    assert m.segment("aaaa") == ["aa", "aa"]


def test_tiktoken_rank_rule_and_whole_piece_shortcut():
    vocab = {"a": 0, "b": 1, "ab": 2, "ba": 3, "aba": 4, "abab": 9}
    m = BPE(vocab, options=BpeModelOptions(merge_ranks=MergeRanks.TOKENS))
    # a pair's rank is the id of the token it spells: ab (2) beats ba (3), both "ab" merge
    # (leftmost first), then ab+a = aba (4) beats ab+ab = abab (9); tiktoken gives the same.
    assert m.segment("abab") == ["abab"]
    assert m.segment("ababa") == ["ab", "aba"]
    whole = BPE(vocab, options=BpeModelOptions(merge_ranks=MergeRanks.TOKENS, ignore_merges=True))
    assert [t.text for t in whole.tokenize("aba")] == ["aba"]


alphabet = "abcd"
pairs = st.tuples(st.text(alphabet, min_size=1, max_size=3), st.text(alphabet, min_size=1, max_size=3))


@settings(max_examples=150, deadline=None)
@given(st.lists(pairs, max_size=25, unique=True), st.text(alphabet, max_size=40))
def test_scan_heap_and_naive_agree(merges, word):
    model = model_from(merges, alphabet)
    ranks = {p: r for r, p in enumerate(merges)}
    expected = naive_bpe(word, ranks)
    assert model.segment(word) == expected
    syms, starts, ends = model._initial(word)
    heap_syms, s2, e2 = model._merge_heap(syms, starts, ends, model._ranker(None))
    assert heap_syms == expected
    assert [word[a:b] for a, b in zip(s2, e2)] == expected  # offsets cover the word


def test_long_run_without_spaces_is_handled_in_one_piece():
    m = model_from([("a", "a"), ("aa", "aa"), ("aaaa", "aaaa")], "ab")
    toks = m.tokenize("a" * 100_000)
    assert len(toks) == 12_500 and {t.text for t in toks} == {"aaaaaaaa"}
    assert toks[-1].offsets == (99_992, 100_000)
    mixed = ("ab" * 300 + "a" * 7) * 3
    assert m.segment(mixed) == naive_bpe(mixed, {p: r for r, p in enumerate(m.merges)})


def test_offsets_and_cache_copies():
    m = model_from([("l", "o"), ("lo", "w")], "lowe")
    first = m.tokenize("lower")
    # "r" is not in the vocabulary and there is no unknown token: dropped, as tokenizers does
    assert [(t.text, t.offsets) for t in first] == [("low", (0, 3)), ("e", (3, 4))]
    first.append(None)  # callers may mutate what they get; the cache must not change
    assert len(m.tokenize("lower")) == 2


# ----------------------------------------------------------------------------- dropout


def test_dropout_zero_and_one():
    m = model_from([("l", "o"), ("lo", "w")], "lower")
    rng = random.Random(0)
    assert [t.text for t in m.tokenize_sampled("lower", rng=rng, sampling=Sampling(dropout=0.0))] == ["low", "e", "r"]
    assert [t.text for t in m.tokenize_sampled("lower", rng=rng, sampling=Sampling(dropout=1.0))] == list("lower")


def test_dropout_is_seeded_and_varies():
    r = train_bpe_counts({"hello": 20, "world": 15, "help": 10, "held": 5}, num_merges=20, special_tokens=())
    m = r.model
    seen = set()
    for seed in range(40):
        a = m.segment("helloworld", dropout=0.3, seed=seed)
        assert a == m.segment("helloworld", dropout=0.3, seed=seed)
        assert "".join(a) == "helloworld"
        seen.add(tuple(a))
    assert len(seen) > 3 and tuple(m.segment("helloworld")) in seen


@settings(max_examples=60, deadline=None)
@given(st.text("abcd", min_size=1, max_size=30), st.floats(0, 1), st.integers(0, 2**32))
def test_dropout_always_spells_the_word(word, p, seed):
    m = model_from([("a", "b"), ("c", "d"), ("ab", "cd"), ("a", "a"), ("d", "a")], "abcd")
    toks = m.tokenize_sampled(word, rng=random.Random(seed), sampling=Sampling(dropout=p))
    assert "".join(t.text for t in toks) == word
    assert all(m.token_to_id(t.text) == t.id for t in toks)


def test_pipeline_dropout_via_sampling():
    r = train_bpe_counts({"hello": 20, "world": 15}, num_merges=10, special_tokens=())
    tok = Tokenizer(r.model)
    base = tok.encode("helloworld").tokens
    assert tok.encode("helloworld", sampling=Sampling(dropout=0.0, seed=3)).tokens == base
    assert tok.encode("helloworld", sampling=Sampling(dropout=1.0, seed=3)).tokens == list("helloworld")
    a = tok.encode("helloworld", sampling=Sampling(dropout=0.5, seed=11)).tokens
    assert a == tok.encode("helloworld", sampling=Sampling(dropout=0.5, seed=11)).tokens


# ----------------------------------------------------------------------------- traces and trees


def test_encode_trace_lists_merges_in_order():
    m = model_from([("a", "a"), ("a", "b"), ("aa", "ab")], "abcd")
    tr = m.encode_trace("aaabdaaabac")
    assert tr.initial == tuple("aaabdaaabac")
    assert [(s.left, s.right) for s in tr.steps] == [("a", "a"), ("a", "a"), ("a", "b"), ("a", "b"), ("aa", "ab"), ("aa", "ab")]
    assert [s.rank for s in tr.steps] == sorted(s.rank for s in tr.steps)
    assert tr.steps[-1].symbols_after == ("aaab", "d", "aaab", "a", "c")
    assert [t.text for t in tr.tokens] == m.segment("aaabdaaabac")


def test_merge_tree():
    m = model_from([("a", "a"), ("a", "b"), ("aa", "ab")], "abcd")
    tree = m.merge_tree("aaab")
    assert tree.leaves() == ["a", "a", "a", "b"] and tree.depth() == 2
    assert (tree.left.token, tree.right.token, tree.rank) == ("aa", "ab", 2)
    assert tree.left.rank < tree.rank and tree.right.rank < tree.rank
    assert m.merge_tree("c").is_leaf
    assert tree.to_dict()["left"]["token"] == "aa"
    with pytest.raises(TokenizerError, match="not in the vocabulary"):
        m.merge_tree("zz")


def test_merge_tree_by_token_rank():
    vocab = {"a": 0, "b": 1, "ab": 2, "abb": 3}
    tree = BPE(vocab, options=BpeModelOptions(merge_ranks=MergeRanks.TOKENS)).merge_tree("abb")
    assert (tree.left.token, tree.right.token) == ("ab", "b")


def test_rank_rule_is_saved_as_its_string_and_legacy_files_load():
    vocab = {"a": 0, "b": 1, "ab": 2, "ba": 3, "aba": 4}
    model = BPE(vocab, options=BpeModelOptions(merge_ranks=MergeRanks.TOKENS, ignore_merges=True))
    text = json.dumps(model.to_dict())
    assert '"merge_ranks": "tokens"' in text  # files keep the plain string, not an enum's repr
    again = build("model", json.loads(text))
    assert again.merge_ranks is MergeRanks.TOKENS and again.ignore_merges and again.segment("ababa") == ["ab", "aba"]
    # Files written before merge_ranks existed (and tokenizer.json models) rank by the merge list.
    legacy = build("model", {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})
    assert legacy.merge_ranks is MergeRanks.MERGES and legacy.merge_ranks == "merges"
    with pytest.raises(FormatError, match="merge_ranks must be 'merges' or 'tokens'"):
        build("model", {"type": "BPE", "vocab": {"a": 0}, "merges": [], "merge_ranks": "ids"})
    with pytest.raises(FormatError, match="fuse_unk must be true or false"):
        build("model", {"type": "BPE", "vocab": {"a": 0}, "merges": [], "fuse_unk": "no"})


def test_options_are_checked_where_they_are_made():
    with pytest.raises(TokenizerError, match="derives merges"):
        BpeModelOptions(merge_ranks="tokens", continuing_subword_prefix="##")
    with pytest.raises(TokenizerError, match="give no merges"):
        BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")], options=BpeModelOptions(merge_ranks=MergeRanks.TOKENS))
    with pytest.raises(TokenizerError, match="suffix_as_symbol needs"):
        BpeModelOptions(suffix_as_symbol=True, end_of_word_suffix="")
    # An empty prefix or suffix (as tokenizer.json files write them) means none.
    assert BpeModelOptions(continuing_subword_prefix="", end_of_word_suffix="").hf_json()["end_of_word_suffix"] is None


# ----------------------------------------------------------------------------- options vs tokenizers


def hf_model(model: BPE) -> HFTokenizer:
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
           "pre_tokenizer": None, "post_processor": None, "decoder": None, "model": model.to_hf()}
    return HFTokenizer.from_str(json.dumps(doc))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"unk_token": "[UNK]"},
        {"unk_token": "[UNK]", "fuse_unk": True},
        {"unk_token": "[UNK]", "byte_fallback": True},
        {"continuing_subword_prefix": "##", "unk_token": "[UNK]"},
        {"end_of_word_suffix": "</w>", "unk_token": "[UNK]"},
        {"ignore_merges": True},
    ],
)
def test_options_match_tokenizers(options):
    counts = {"hugs": 5, "hug": 10, "pugs": 4, "bun": 3, "snug": 2, "é": 2}
    r = train_bpe_counts(counts, num_merges=12, special_tokens=("[UNK]",),
                         continuing_subword_prefix=options.get("continuing_subword_prefix"),
                         end_of_word_suffix=options.get("end_of_word_suffix"))
    vocab = dict(r.vocab)
    if options.get("byte_fallback"):
        for b in "C3 A9 E2 98 83".split():
            vocab.setdefault(f"<0x{b}>", len(vocab))
    ours = BPE(vocab, r.merges, options=BpeModelOptions(**options))
    ref = hf_model(ours)
    for word in ["hugs", "snugs", "bun", "xhugzz", "é", "☃hug☃☃", "ug", "", "pugsbunhug"]:
        assert [t.text for t in ours.tokenize(word)] == ref.encode(word).tokens, word
        dropped = "unk_token" not in options and any(ch not in "hugspbn" for ch in word)
        if not dropped:  # tokenizers shifts offsets over dropped characters; ours point at the text
            assert [t.offsets for t in ours.tokenize(word)] == ref.encode(word).offsets, word


def test_serialisation_round_trip(tmp_path):
    r = train_bpe_counts({"hugs": 5, "hug": 10, "pugs": 4}, num_merges=6, special_tokens=("[UNK]",),
                         unk_token="[UNK]", end_of_word_suffix="</w>")
    again = build("model", json.loads(json.dumps(r.model.to_dict())))
    assert again.merges == r.model.merges and again.get_vocab() == r.model.get_vocab()
    assert again.segment("hugsz") == r.model.segment("hugsz")
    tok = Tokenizer(r.model, special_tokens=["[UNK]"])
    tok.save(tmp_path / "t.json")
    assert Tokenizer.load(tmp_path / "t.json").encode("pugs hug").ids == tok.encode("pugs hug").ids


def test_bad_models_are_rejected_with_reasons():
    with pytest.raises(TokenizerError, match="not in the vocabulary"):
        BPE({"a": 0, "b": 1}, [("a", "b")])
    with pytest.raises(TokenizerError, match="share id"):
        BPE({"a": 0, "b": 0})
    with pytest.raises(TokenizerError, match="unk_token"):
        BPE({"a": 0}, options=BpeModelOptions(unk_token="[UNK]"))
    with pytest.raises(FormatError, match="BPE"):
        build("model", {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "z"]]})
    with pytest.raises(FormatError, match="merge"):
        build("model", {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b c"]})
    with pytest.raises(TokenizerError, match="max_rank"):
        BPE({"a": 0}).segment("a", max_rank=-1)


def test_suffix_as_symbol_cannot_be_exported():
    r = train_bpe_counts({"low": 3}, num_merges=2, end_of_word_suffix="</w>", suffix_as_symbol=True, special_tokens=())
    assert r.model.segment("low") == ["lo", "w</w>"]  # l o w </w>: (l, o) then (w, </w>) by ids
    assert r.model.segment("lo") == ["lo", "</w>"]
    with pytest.raises(TokenizerError, match="separate symbol"):
        r.model.to_hf()
