"""The Unigram trainer: its vectorised EM against the plain lattice, its rules, trace and quality."""

from __future__ import annotations

import math
import unicodedata
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizer_core.unigram.model  # noqa: F401  (registers the trainer)
from tokenizer_core.errors import TokenizerError
from tokenizer_core.training import TrainOptions, train
from tokenizer_core.unigram.lattice import Lattice, PieceTrie
from tokenizer_core.unigram.trainer import (
    Lattices,
    PieceIndex,
    RemovedPiece,
    WordTable,
    digamma,
    hash_strings,
    lattice_edges,
    train_unigram,
)

PROSE = (
    "the quick brown fox jumps over the lazy dog while the hungry hugging bear hugs "
    "its puns and buns; unhappily the pugs were hugged, and 42 dogs ran 1000 meters "
)


@pytest.mark.parametrize("x", [0.5, 0.75, 1.0, 2.5, 7.0, 30.0, 1234.5])
def test_digamma_is_the_derivative_of_lgamma(x):
    h = 1e-5
    numeric = (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)
    assert float(digamma(np.array([x]))[0]) == pytest.approx(numeric, rel=1e-7, abs=1e-7)


# ------------------------------------------------------- vectorised EM = plain lattice
word_sets = st.dictionaries(st.text(alphabet="abc", min_size=1, max_size=7), st.integers(1, 9), min_size=1,
                            max_size=6)
piece_sets = st.dictionaries(st.text(alphabet="abc", min_size=2, max_size=4),
                             st.integers(-40, -1).map(lambda k: k / 4), max_size=10)


def _setup(words: dict[str, int], multi: dict[str, float]):
    pieces = {"a": -1.5, "b": -2.0, "c": -2.25, **multi}
    names = list(pieces)
    lp = np.array([pieces[p] for p in names])
    w = WordTable(list(words), np.array(list(words.values()), dtype=np.float64))
    lengths = np.array([len(p) for p in names])
    start, end, piece, word = lattice_edges(w, PieceIndex(hash_strings(names), lengths), None)
    lat = Lattices(w, start, end, piece, word)
    trie = PieceTrie((p, i, pieces[p]) for i, p in enumerate(names))
    return names, lp, w, lat, trie


@settings(max_examples=120, deadline=None)
@given(word_sets, piece_sets)
def test_vectorised_e_step_equals_lattice_marginals(words, multi):
    names, lp, w, lat, trie = _setup(words, multi)
    expected, loglik = lat.expected_counts(lp, len(names))
    want = np.zeros(len(names))
    want_ll = 0.0
    for word, count in words.items():
        lattice = Lattice.build(word, trie)
        for e, m in zip(lattice.edges, lattice.marginals()):
            want[e.id] += count * m
        want_ll += count * lattice.log_partition()
    np.testing.assert_allclose(expected, want, rtol=1e-9, atol=1e-9)
    assert loglik == pytest.approx(want_ll, rel=1e-9)


@settings(max_examples=120, deadline=None)
@given(word_sets, piece_sets)
def test_vectorised_viterbi_equals_lattice_viterbi(words, multi):
    names, lp, w, lat, trie = _setup(words, multi)
    back, best = lat.viterbi(lp)
    got = Counter()
    for wid, piece in lat.viterbi_paths(back):
        for i, p in zip(wid.tolist(), piece.tolist()):
            got[names[p]] += w.counts[i]
    want = Counter()
    for k, (word, count) in enumerate(words.items()):
        seg = Lattice.build(word, trie).viterbi()
        assert best[w.last[k]] == pytest.approx(seg.log_prob, abs=1e-12)
        for p in seg.pieces:
            want[p] += count
    assert got == want


# ------------------------------------------------------------------ trainer rules
def _count(lines, *, lowercase=False):
    from tokenizer_core.unigram.trainer import count_words, unigram_components

    parts = unigram_components(lowercase=lowercase)
    return count_words(lines, normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"])


def _script(ch: str) -> str:
    cat = unicodedata.category(ch)
    if cat[0] == "L":
        return unicodedata.name(ch).split()[0]
    return "COMMON" if cat[0] != "M" else "INHERITED"


def test_pieces_follow_sentencepiece_rules_and_keep_every_character(default_lines):
    counts = _count(default_lines[:3000])
    res = train_unigram(counts, vocab_size=1500)
    pieces = [p for p, _ in res.pieces]
    assert len(pieces) == 1500 == len(set(pieces))
    assert set(res.alphabet) <= set(pieces)
    assert set(res.alphabet) == {ch for w in counts for ch in w}
    for p, score in res.pieces:
        assert len(p) <= 16 and math.isfinite(score) and score < 0
        assert "▁" not in p[1:], p  # "▁" only starts a piece
        body = p[1:] if p.startswith("▁") else p
        assert len({_script(c) for c in body}) <= 1, p  # one script per piece
    scores = [s for _, s in res.pieces]
    assert scores == sorted(scores, reverse=True)


def test_trace_records_every_round():
    counts = _count([PROSE * 3, "the hugging bear " * 20])
    seen = []
    res = train_unigram(counts, vocab_size=60, progress=lambda d, t, m: seen.append((d, t)))
    sizes = [r.vocab_size for r in res.rounds]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == len(sizes)
    assert res.rounds[0].vocab_size <= res.seed_size
    final = {p for p, _ in res.pieces}
    for r in res.rounds:
        assert r.em_iterations == 2 and math.isfinite(r.log_likelihood) and r.loss > 0
        assert r.num_tokens > 0
        for x in r.removed:
            assert isinstance(x, RemovedPiece) and x.piece not in final
            assert x.reason in ("rare", "unused", "pruned", "final")
            assert (x.loss is not None) == (x.reason == "pruned")
    removed = [x.piece for r in res.rounds for x in r.removed]
    assert len(removed) == len(set(removed)) == res.seed_size - len(res.pieces)
    assert seen and seen[-1][0] == seen[-1][1]
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_pruning_removes_a_shrinking_factor_share_per_round(default_lines):
    counts = _count(default_lines[:2000])
    res = train_unigram(counts, vocab_size=800, shrinking_factor=0.5)
    sizes = [r.vocab_size for r in res.rounds]
    for before, after in zip(sizes, sizes[1:]):
        # pruning keeps half; the M-step of the next round may drop a few more
        assert after <= math.ceil(before * 0.5) + 1
    # As in SentencePiece, the last round's pruning reaches 1.1 times the vocabulary and training stops.
    last = res.rounds[-1]
    pruned = sum(r.reason in ("pruned", "unused") for r in last.removed)
    assert last.vocab_size > int(800 * 1.1) >= last.vocab_size - pruned


def test_split_options_change_which_pieces_are_allowed():
    counts = Counter({"▁x1": 500, "▁y22": 300, "▁x": 5, "▁1": 5})
    strict = {p for p, _ in train_unigram(counts, vocab_size=12).pieces}
    loose = {p for p, _ in train_unigram(counts, vocab_size=12, split_by_script=False).pieces}
    digits = {p for p, _ in train_unigram(counts, vocab_size=12, split_digits=True).pieces}
    assert not any(any(c.isdigit() for c in p) and any(c.isalpha() for c in p) for p in strict)
    assert "▁x1" in loose
    assert all(len(p) == 1 for p in digits if any(c.isdigit() for c in p))


def test_small_corpus_keeps_what_it_can():
    res = train_unigram({"▁hug": 10, "▁pug": 5, "▁pun": 12, "▁bun": 4, "▁hugs": 5}, vocab_size=50)
    assert set("▁hugpnbs") <= {p for p, _ in res.pieces}
    assert len(res.pieces) <= 50


@pytest.mark.parametrize(
    "counts, kwargs, message",
    [
        ({}, {"vocab_size": 10}, "no words"),
        ({"▁abc": 3}, {"vocab_size": 2}, "distinct characters"),
        ({"▁abc": 3}, {"vocab_size": 10, "shrinking_factor": 1.5}, "shrinking_factor"),
        ({"▁abc": 3}, {"vocab_size": 10, "max_piece_length": 0}, "max_piece_length"),
        ({"▁abc": 3}, {"vocab_size": 0}, "vocab_size"),
    ],
)
def test_bad_training_requests_raise_clear_errors(counts, kwargs, message):
    with pytest.raises(TokenizerError, match=message):
        train_unigram(counts, **kwargs)


# ------------------------------------------------------------------ full tokenizer
def test_trained_tokenizer_layout_and_round_trip(tmp_path):
    lines = [PROSE + "\n"] * 5 + ["Über naïve café façade\n"]
    tok = train("unigram", lines, options=TrainOptions(vocab_size=400, byte_fallback=True))
    vocab = tok.get_vocab()
    assert [tok.id_to_token(i) for i in range(4)] == ["[PAD]", "[UNK]", "[BOS]", "[EOS]"]
    assert tok.id_to_token(4) == "<0x00>" and tok.id_to_token(259) == "<0xFF>"
    assert len(vocab) <= 400 and tok.model.unk_id == 1
    assert tok.model.training.rounds and tok.metadata["trainer"] == "unigram"
    text = "the hungry dog hugs 42 façades ☃"
    enc = tok.encode(text)
    assert tok.decode(enc.ids) == text
    assert "<0xE2>" in enc.tokens  # the unseen snowman is spelled in bytes
    path = tmp_path / "uni.json"
    tok.save(path)
    again = type(tok).load(path)
    assert again.encode(text).ids == enc.ids


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_decode_inverts_encode_up_to_whitespace_and_nfkc(text):
    import regex

    tok = _byte_fallback_tokenizer()
    # Words: runs of non-whitespace (Unicode White_Space, as tokenizers) of the NFKC text,
    # also cut at any "▁" the text itself holds; decoding joins them with single spaces.
    chunks = regex.findall(r"\S+", unicodedata.normalize("NFKC", text))
    expected = " ".join(w for c in chunks for w in c.split("▁") if w)
    assert tok.decode(tok.encode(text).ids) == expected


_BF_TOK = []


def _byte_fallback_tokenizer():
    if not _BF_TOK:
        _BF_TOK.append(train("unigram", [PROSE] * 4, options=TrainOptions(vocab_size=320, byte_fallback=True)))
    return _BF_TOK[0]


def test_sampling_reaches_the_model_through_the_pipeline():
    from tokenizer_core.types import Sampling

    tok = _byte_fallback_tokenizer()
    text = "the hungry hugging bear"
    a = tok.encode(text, sampling=Sampling(seed=11, alpha=0.0))
    b = tok.encode(text, sampling=Sampling(seed=11, alpha=0.0))
    assert a.ids == b.ids and tok.decode(a.ids) == text
    variants = {tuple(tok.encode(text, sampling=Sampling(seed=s, alpha=0.0)).ids) for s in range(30)}
    assert len(variants) > 1


@pytest.mark.parametrize(
    "options, message",
    [
        (TrainOptions(vocab_size=4), "no room"),
        (TrainOptions(vocab_size=10), "distinct characters"),
        (TrainOptions(vocab_size=300, pre_tokenizer="byte-level"), "pre-tokenizer"),
        (TrainOptions(vocab_size=300, unk_token="<unk>"), "unk_token"),
    ],
)
def test_bad_tokenizer_options_raise_clear_errors(options, message):
    with pytest.raises(TokenizerError, match=message):
        train("unigram", [PROSE], options=options)


def test_unigram_options_are_typed_and_checked():
    from tokenizer_core.options import UnigramOptions

    with pytest.raises(TypeError):
        UnigramOptions(nonsense=1)  # a misspelt option is an error, not silently ignored
    with pytest.raises(TokenizerError, match="max_word_length"):
        UnigramOptions(max_word_length=0)
    with pytest.raises(TokenizerError, match="seed_size"):
        UnigramOptions(seed_size="many")


def test_quality_is_close_to_sentencepiece(default_lines, tmp_path):
    spm = pytest.importorskip("sentencepiece")
    train_lines = [ln for i, ln in enumerate(default_lines) if i % 10 != 9]
    held = [ln for i, ln in enumerate(default_lines) if i % 10 == 9]
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(train_lines), model_prefix=str(tmp_path / "sp"), vocab_size=2000,
        model_type="unigram", character_coverage=1.0, minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "sp.model"))
    tok = train("unigram", train_lines, options=TrainOptions(vocab_size=2000, special_tokens=("<unk>", "<s>", "</s>"),
                                                             unk_token="<unk>"))
    sp_tokens = sum(len(x) for x in sp.encode(held))
    ours = sum(len(tok.encode(h, add_special_tokens=False)) for h in held)
    assert ours <= sp_tokens * 1.02, (ours, sp_tokens)


@pytest.fixture(scope="module")
def default_lines() -> list[str]:
    from tokenizer_core.corpus.loading import load_sample

    return [ln.rstrip("\n") for ln in load_sample("default").lines() if ln.strip()]


def test_an_em_step_keeps_a_piece_expected_5_9_times_and_drops_one_expected_4_9():
    """SentencePiece's M-step keeps a piece whose expected count is at least 0.5. One "ab" and one "cd":
    with p(a) = p(b) = 0.2 the path a+b weighs 0.04, so p(ab) = 0.05 makes "ab" expected 5/9 of a time
    and p(cd) = 0.032 makes "cd" expected 4/9."""
    from tokenizer_core.unigram.em import EMState
    from tokenizer_core.unigram.words import WordTable

    words = WordTable(["ab", "cd"], np.ones(2))
    pieces = ["a", "b", "c", "d", "ab", "cd"]
    state = EMState(words, words.runs(split_by_script=True, split_digits=False), list(pieces),
                    np.log(np.array([0.2, 0.2, 0.2, 0.2, 0.05, 0.032])), num_chars=4)
    expected, _ = state.lattices.expected_counts(state.lp, len(pieces))
    assert expected[4] == pytest.approx(5 / 9) and expected[5] == pytest.approx(4 / 9)
    _, removed = state.em_step()
    assert [r.piece for r in removed] == ["cd"]
    assert state.pieces == ["a", "b", "c", "d", "ab"]
