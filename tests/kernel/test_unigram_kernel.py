"""Unigram training's kernel passes (tokenizer_core/unigram/native_lattice.py, kernels/src/unigram*.c)
against the numpy reference: seeds, Viterbi counts and best splits equal to the bit, expected counts
within the last bits (the kernel adds the corpus word by word and calls libm's exp), whole trainings
with the same pieces and the same pruning trace; and misuse refused.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._texts import real_lines
from tokenizer_core.kernel import native
from tokenizer_core.unigram import native_lattice
from tokenizer_core.unigram.em import EMState, piece_keys
from tokenizer_core.unigram.native_lattice import NativeLattices, native_corpus, native_seed
from tokenizer_core.unigram.pruning import best_splits
from tokenizer_core.unigram.seed import seed_pieces
from tokenizer_core.unigram.trainer import _training_words, train_unigram

pytestmark = pytest.mark.skipif(not (native.available() and hasattr(native.kernel(), "UnigramCorpus")),
                                reason="the compiled kernel with UnigramCorpus is not built")

#: Expected counts may differ from numpy's in the last bits only.
RTOL = 1e-11

# Words as the pre-tokenizer makes them: "▁" first, then letters of a few scripts, digits, marks.
_CHARS = "abcab▁12.ーアイ漢字αβ\u0301"
words_st = st.dictionaries(
    st.builds(lambda s, lead: ("▁" if lead else "") + s, st.text(alphabet=_CHARS, min_size=1, max_size=9),
              st.booleans()),
    st.integers(1, 6), min_size=1, max_size=25)


def _prepared(counts: dict[str, int], *, split_digits: bool = False, final: bool = False):
    words = _training_words(Counter(counts), max_word_length=64)
    runs = words.runs(split_by_script=True, split_digits=split_digits)
    line_final = (np.floor(words.counts / 2) if final else None)
    return words, runs, line_final


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words_st, st.integers(1, 8), st.booleans(), st.booleans())
def test_seeds_equal_numpy_bit_for_bit(counts, max_len, split_digits, final):
    words, runs, line_final = _prepared(counts, split_digits=split_digits, final=final)
    last = len(words.words) // 2 if final else None
    want, want_lp = seed_pieces(words, runs, max_len=max_len, seed_size=10**6, line_final=line_final, corpus_last=last)
    corpus = native_corpus(words, runs)
    got, got_lp = native_seed(corpus, counts=words.counts, max_len=max_len, seed_size=10**6,
                              line_final=line_final, corpus_last=last)
    assert got == want
    assert got_lp.tobytes() == want_lp.tobytes()


@settings(max_examples=30, deadline=None)
@given(words_st, st.integers(1, 30))
def test_seed_size_cut_picks_numpy_s_seeds(counts, seed_size):
    words, runs, _ = _prepared(counts)
    want = seed_pieces(words, runs, max_len=6, seed_size=seed_size)
    got = native_seed(native_corpus(words, runs), counts=words.counts, max_len=6, seed_size=seed_size)
    assert got[0] == want[0] and got[1].tobytes() == want[1].tobytes()


def _states(counts: dict[str, int], max_len: int = 6) -> tuple[EMState, EMState]:
    words, runs, _ = _prepared(counts)
    num_chars = len({ch for w in words.words for ch in w})
    pieces, lp = seed_pieces(words, runs, max_len=max_len, seed_size=10**6)
    numpy_state = EMState(words, runs, list(pieces), lp.copy(), num_chars=num_chars)
    kernel_state = EMState.from_native(words, native_corpus(words, runs), list(pieces), lp.copy(), num_chars=num_chars)
    return numpy_state, kernel_state


@settings(max_examples=120, deadline=None)
@given(words_st, st.integers(0, 2**32 - 1))
def test_passes_equal_numpy(counts, salt):
    ref, ker = _states(counts)
    # Probabilities of every kind, ties included: the seeds' own and random ones.
    for lp in (ref.lp, np.log(np.random.default_rng(salt).dirichlet(np.ones(len(ref.pieces))))):
        want, want_ll = ref.lattices.expected_counts(lp, len(ref.pieces))
        got, got_ll = ker.lattices.expected_counts(lp, len(ker.pieces))
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-300)
        assert got_ll == pytest.approx(want_ll, rel=RTOL)
        ref.lp = ker.lp = lp
        assert ker.viterbi_freq().tobytes() == ref.viterbi_freq().tobytes()
        want_s, want_o, want_a = best_splits(ref)
        got_s, got_o, got_a = best_splits(ker)
        assert got_s.tobytes() == want_s.tobytes()
        # Each owner's tokens in the same order (the kernel lists them owner by owner).
        assert _by_owner(got_o, got_a) == _by_owner(want_o, want_a)


def _by_owner(owner: np.ndarray, alt: np.ndarray) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for o, a in zip(owner.tolist(), alt.tolist()):
        out.setdefault(o, []).append(a)
    return out


def _numpy_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import tokenizer_core.unigram.trainer as trainer

    monkeypatch.setattr(trainer, "native_corpus", lambda words, runs: None)


def _run(counts, vocab_size: int):
    return train_unigram(counts, vocab_size=vocab_size)


def test_whole_training_matches_numpy(monkeypatch):
    """A real corpus: the same trace round by round, scores within rounding, and the same pieces but
    for a swap at the final cut between pieces whose scores agree to 1e-9 (numerical ties: the numpy
    path itself orders those differently on CPUs whose numpy ``exp`` differs; see native_lattice.py).
    """
    counts = Counter(w for line in real_lines(1500) for w in ("▁" + x for x in line.split()))
    got = _run(counts, 600)
    _numpy_only(monkeypatch)
    want = _run(counts, 600)
    g, w = dict(got.pieces), dict(want.pieces)
    assert len(g) == len(w) and got.seed_size == want.seed_size
    assert all(g[p] == pytest.approx(w[p], rel=1e-9) for p in g.keys() & w.keys())
    swapped = g.keys() ^ w.keys()
    assert len(swapped) <= 4
    scores = [g.get(p, w.get(p)) for p in swapped]
    assert all(x == pytest.approx(scores[0], rel=1e-9) for x in scores)
    trace = [[(r.vocab_size, r.num_tokens, {(x.piece, x.reason) for x in r.removed if x.piece not in swapped})
              for r in res.rounds] for res in (got, want)]
    assert trace[0] == trace[1]
    for a, b in zip(got.rounds, want.rounds):
        assert a.log_likelihood == pytest.approx(b.log_likelihood, rel=1e-9)


def test_the_kernel_path_is_taken_and_can_be_switched_off(monkeypatch):
    calls = []
    real = native_lattice.NativeLattices.expected_counts

    def spy(self, lp, n):
        calls.append(n)
        return real(self, lp, n)

    monkeypatch.setattr(NativeLattices, "expected_counts", spy)
    _run({"▁hug": 10, "▁pug": 5, "▁pun": 12, "▁bun": 4, "▁hugs": 5}, 12)
    assert calls
    calls.clear()
    monkeypatch.setenv("TOKENIZER_CORE_PURE", "1")
    _run({"▁hug": 10, "▁pug": 5, "▁pun": 12, "▁bun": 4, "▁hugs": 5}, 12)
    assert not calls


def test_misuse_raises():
    k = native.kernel()
    off, cnt, brk = np.array([0, 2, 3]), np.array([1.0, 2.0]), bytes([1, 0, 1])
    corpus = k.UnigramCorpus("abc", off, cnt, brk)
    bad_inits = [
        ("abc", np.array([0, 2, 2, 3]), np.ones(3), brk),       # an empty word
        ("abc", np.array([0, 2, 4]), cnt, brk),                 # past the text
        ("abc", np.array([1, 3]), np.ones(1), brk),             # not from 0
        ("abc", np.array([0, 2, 3]), np.array([1.0, np.nan]), brk),
        ("abc", np.array([0, 2, 3]), np.array([1.0, -1.0]), brk),
        ("abc", np.array([0, 2, 3], dtype=np.int32), cnt, brk),  # not int64
        ("abc", off, cnt.astype(np.float32), brk),
        ("abc", off, cnt, b"\x01"),                             # a break per character
        ("abc", np.array([], dtype=np.int64), np.ones(0), brk),
        (b"abc", off, cnt, brk),
        ("abc", [0, 2, 3], cnt, brk),
    ]
    for args in bad_inits:
        with pytest.raises((ValueError, TypeError)):
            k.UnigramCorpus(*args)
    with pytest.raises(RuntimeError):
        corpus.__init__("abc", off, cnt, brk)
    pieces, lp = ["a", "b", "c", "ab"], np.log(np.full(4, 0.25))
    out = np.zeros(4)
    assert corpus.expected(pieces, lp, out) < 0 and out.sum() > 0
    for args in [(pieces, lp[:3], out), (pieces, lp, np.zeros(3)), (pieces, lp, out[::2]), (["a", 5], lp[:2], out[:2]),
                 (["a", ""], lp[:2], out[:2]), ("ab", lp[:2], out[:2]), (pieces, lp, bytes(32)),
                 (pieces, lp.astype(np.float32), out), (["x" * 70000], lp[:1], out[:1])]:
        with pytest.raises((ValueError, TypeError, BufferError)):  # BufferError: a read-only out
            corpus.expected(*args)
        with pytest.raises((ValueError, TypeError, BufferError)):
            corpus.viterbi(*args)
    with pytest.raises(ValueError):
        corpus.splits(pieces, lp, bytes(3), out)
    for max_len, flags, last in [(0, bytes(2), -1), (2000, bytes(2), -1), (3, bytes(1), -1), (3, bytes(2), 2),
                                 (3, bytes(2), -2)]:
        with pytest.raises(ValueError):
            corpus.seed(max_len, flags, last)
    with pytest.raises(OverflowError):
        corpus.seed(2**70, bytes(2), -1)


def test_pieces_no_word_can_hold_cost_nothing():
    """A word no piece covers has no segmentation: nothing expected, nothing counted, no NaN."""
    k = native.kernel()
    corpus = k.UnigramCorpus("abz", np.array([0, 2, 3]), np.array([1.0, 1.0]), bytes([1, 0, 1]))
    out = np.zeros(2)
    loglik = corpus.expected(["a", "b"], np.log(np.array([0.5, 0.5])), out)
    assert loglik == -np.inf and np.isfinite(out).all() and out.tolist() == pytest.approx([1.0, 1.0])
    corpus.viterbi(["a", "b"], np.zeros(2), out)
    assert out.tolist() == [1.0, 1.0]


def test_piece_keys_unchanged_for_the_numpy_path():
    """The numpy state still finds pieces by their window hashes (the kernel hashes them itself)."""
    hashes, lengths = piece_keys(["a", "ab"])
    assert lengths.tolist() == [1, 2] and hashes[0] == ord("a")


def test_one_corpus_shared_by_threads():
    """The corpus is read-only once built and each call's lattices are its own: passes on several
    threads at once (the loops run without the GIL) give what one thread alone gets."""
    from concurrent.futures import ThreadPoolExecutor

    words, runs, _ = _prepared(Counter(w for line in real_lines(300) for w in ("▁" + x for x in line.split())))
    corpus = native_corpus(words, runs)
    pieces, lp = native_seed(corpus, counts=words.counts, max_len=8, seed_size=10**6)

    def expected(_: int) -> bytes:
        out = np.zeros(len(pieces))
        corpus.expected(pieces, lp, out)
        return out.tobytes()

    alone = expected(0)
    with ThreadPoolExecutor(4) as pool:
        assert set(pool.map(expected, range(8))) == {alone}
