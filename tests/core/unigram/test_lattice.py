"""The Unigram lattice against brute-force enumeration of every segmentation.

For short words every segmentation can be listed by plain recursion; Viterbi must
be the best of them, n-best the sorted list, marginals and the partition function
the sums over it, and sampling must follow the exact distribution (chi-square).
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.unigram.lattice import UNK_PENALTY, Lattice, PieceTrie


def brute_force(text: str, vocab: dict[str, float], unk_lp: float) -> list[tuple[tuple[str, ...], float]]:
    """Every segmentation of ``text`` with its score; uncovered characters are single unknown pieces."""
    singles = {p for p in vocab if len(p) == 1}
    out: list[tuple[tuple[str, ...], float]] = []

    def rec(pos: int, pieces: tuple[str, ...], score: float) -> None:
        if pos == len(text):
            out.append((pieces, score))
            return
        for end in range(pos + 1, len(text) + 1):
            piece = text[pos:end]
            if piece in vocab:
                rec(end, pieces + (piece,), score + vocab[piece])
        if text[pos] not in singles:
            rec(pos + 1, pieces + (text[pos],), score + unk_lp)

    rec(0, (), 0.0)
    return out


def make(vocab: dict[str, float]) -> PieceTrie:
    return PieceTrie((p, i, lp) for i, (p, lp) in enumerate(sorted(vocab.items())))


def unk_of(vocab: dict[str, float]) -> float:
    return min(list(vocab.values()) + [0.0]) - UNK_PENALTY


# Vocabularies over a 3-letter alphabet (some letters may be missing: unknown edges),
# with scores on a coarse grid so exact ties occur too.
vocabs = st.dictionaries(
    st.text(alphabet="abc", min_size=1, max_size=3),
    st.integers(min_value=-40, max_value=-1).map(lambda k: k / 4),
    min_size=1,
    max_size=12,
)
texts = st.text(alphabet="abc", min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(vocabs, texts)
def test_viterbi_is_the_best_segmentation(vocab, text):
    lat = Lattice.build(text, make(vocab))
    brute = brute_force(text, vocab, unk_of(vocab))
    best = max(s for _, s in brute)
    v = lat.viterbi()
    assert math.isclose(v.log_prob, best, abs_tol=1e-9)
    assert tuple(v.pieces) in {p for p, s in brute if math.isclose(s, best, abs_tol=1e-9)}
    assert "".join(v.pieces) == text


@settings(max_examples=150, deadline=None)
@given(vocabs, texts, st.integers(min_value=1, max_value=12))
def test_nbest_is_the_sorted_brute_force(vocab, text, n):
    lat = Lattice.build(text, make(vocab))
    brute = brute_force(text, vocab, unk_of(vocab))
    got = lat.nbest(n)
    expected_scores = sorted((s for _, s in brute), reverse=True)[:n]
    assert len(got) == len(expected_scores)
    for seg, score in zip(got, expected_scores):
        assert math.isclose(seg.log_prob, score, abs_tol=1e-9)
        assert math.isclose(lat.score(seg), seg.log_prob, abs_tol=1e-9)
    assert len({tuple(s.pieces) for s in got}) == len(got)  # distinct segmentations
    assert {tuple(s.pieces) for s in got} <= {p for p, _ in brute}


@settings(max_examples=150, deadline=None)
@given(vocabs, texts, st.sampled_from([1.0, 0.5, 0.0, 2.0]))
def test_partition_marginals_and_probabilities(vocab, text, alpha):
    lat = Lattice.build(text, make(vocab))
    brute = brute_force(text, vocab, unk_of(vocab))
    weights = [math.exp(alpha * s) for _, s in brute]
    z = math.fsum(weights)
    assert math.isclose(lat.log_partition(alpha=alpha), math.log(z), rel_tol=1e-9, abs_tol=1e-9)

    # Edge marginal = total weight of the segmentations that use the edge / Z.
    expected = Counter()
    for (pieces, _), w in zip(brute, weights):
        pos = 0
        for p in pieces:
            expected[(pos, pos + len(p))] += w / z
            pos += len(p)
    marg = lat.marginals(alpha=alpha)
    for e, m in zip(lat.edges, marg):
        assert math.isclose(m, expected[(e.start, e.end)], rel_tol=1e-7, abs_tol=1e-12)
    # Exactly one edge leaves node 0 on every path, and the marginals count tokens.
    assert math.isclose(sum(m for e, m in zip(lat.edges, marg) if e.start == 0), 1.0, rel_tol=1e-9)
    mean_tokens = math.fsum(len(p) * w / z for (p, _), w in zip(brute, weights))
    assert math.isclose(math.fsum(marg), mean_tokens, rel_tol=1e-9)
    bounds = lat.boundary_marginals(alpha=alpha)
    assert math.isclose(bounds[0], 1.0) and math.isclose(bounds[-1], 1.0)
    # Probabilities of all segmentations sum to one and match the brute force.
    total = 0.0
    for (pieces, _), w in zip(brute, weights):
        p = lat.probability(list(pieces), alpha=alpha)
        assert math.isclose(p, w / z, rel_tol=1e-9)
        total += p
    assert math.isclose(total, 1.0, rel_tol=1e-9)


def _chi_square_critical(df: int, z: float = 3.09) -> float:
    """Upper chi-square quantile (Wilson-Hilferty); z = 3.09 is the 0.001 tail."""
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * math.sqrt(a)) ** 3


def _chi_square(counts: Counter, probs: dict, draws: int) -> float:
    return sum((counts.get(k, 0) - draws * p) ** 2 / (draws * p) for k, p in probs.items())


SAMPLING_VOCAB = {"a": -2.0, "b": -2.5, "ab": -3.0, "ba": -3.5, "aba": -5.0, "bab": -6.0, "abab": -8.5}


@pytest.mark.parametrize("alpha", [1.0, 0.3, 0.0])
def test_sampling_whole_lattice_matches_exact_distribution(alpha):
    text = "ababa"
    lat = Lattice.build(text, make(SAMPLING_VOCAB))
    brute = brute_force(text, SAMPLING_VOCAB, unk_of(SAMPLING_VOCAB))
    weights = {p: math.exp(alpha * s) for p, s in brute}
    z = math.fsum(weights.values())
    probs = {p: w / z for p, w in weights.items()}
    rng = random.Random(1234)
    draws = 20_000
    counts = Counter(tuple(lat.sample(rng=rng, alpha=alpha, nbest_size=-1).pieces) for _ in range(draws))
    assert set(counts) <= set(probs)
    assert _chi_square(counts, probs, draws) < _chi_square_critical(len(probs) - 1)


def test_sampling_from_nbest_uses_only_the_n_best():
    text = "ababa"
    alpha = 0.5
    lat = Lattice.build(text, make(SAMPLING_VOCAB))
    brute = sorted(brute_force(text, SAMPLING_VOCAB, unk_of(SAMPLING_VOCAB)), key=lambda x: -x[1])
    top = brute[:4]
    assert top[3][1] > brute[4][1]  # no tie at the cut, so the top 4 are well defined
    z = math.fsum(math.exp(alpha * s) for _, s in top)
    probs = {p: math.exp(alpha * s) / z for p, s in top}
    rng = random.Random(99)
    draws = 20_000
    counts = Counter(tuple(lat.sample(rng=rng, alpha=alpha, nbest_size=4).pieces) for _ in range(draws))
    assert set(counts) <= set(probs)
    assert _chi_square(counts, probs, draws) < _chi_square_critical(len(probs) - 1)


@pytest.mark.parametrize("nbest_size", [0, 1])
def test_nbest_size_zero_or_one_means_viterbi(nbest_size):
    lat = Lattice.build("ababa", make(SAMPLING_VOCAB))
    rng = random.Random(5)
    best = lat.viterbi().pieces
    assert all(lat.sample(rng=rng, alpha=0.0, nbest_size=nbest_size).pieces == best for _ in range(50))


def test_sampling_is_reproducible_with_a_seed():
    lat = Lattice.build("abababab", make(SAMPLING_VOCAB))
    a = [lat.sample(rng=random.Random(7), alpha=0.2).pieces for _ in range(3)]
    r1, r2 = random.Random(42), random.Random(42)
    assert [lat.sample(rng=r1, alpha=0.2).pieces for _ in range(20)] == [
        lat.sample(rng=r2, alpha=0.2).pieces for _ in range(20)
    ]
    assert a[0] == a[1] == a[2]


def test_unknown_edges_cover_characters_without_pieces():
    lat = Lattice.build("a?b", make({"a": -1.0, "b": -1.0}), unk_id=99, unk_piece="<unk>")
    unknown = [e for e in lat.edges if e.unknown]
    assert [(e.start, e.end, e.piece, e.id, e.log_prob) for e in unknown] == [(1, 2, "<unk>", 99, -11.0)]
    assert lat.viterbi().ids == [0, 99, 1] and lat.viterbi().pieces == ["a", "<unk>", "b"]
    assert math.isclose(lat.score(["a", "?", "b"]), -13.0)


def test_lattice_size_is_linear_in_text_length_times_piece_length():
    vocab = {"a" * k: -float(k) for k in range(1, 5)}
    lat = Lattice.build("a" * 100, make(vocab))
    # every start has exactly min(4, remaining) edges
    assert len(lat.edges) == sum(min(4, 100 - s) for s in range(100))


def test_structure_and_view():
    lat = Lattice.build("ab", make({"a": -1.0, "b": -1.0, "ab": -1.5}))
    assert lat.nodes == [0, 1, 2]
    assert [e.piece for e in lat.edges_from(0)] == ["a", "ab"]
    assert [e.piece for e in lat.edges_to(2)] == ["ab", "b"]
    view = lat.to_dict(nbest=2)
    assert view["text"] == "ab" and len(view["edges"]) == 3 and len(view["nbest"]) == 2
    assert view["viterbi"]["pieces"] == ["ab"]
    assert math.isclose(sum(e["marginal"] for e in view["edges"] if e["start"] == 0), 1.0)


def test_empty_text_has_one_empty_segmentation():
    lat = Lattice.build("", make({"a": -1.0}))
    assert lat.viterbi().pieces == [] and lat.nbest(3)[0].pieces == []
    assert lat.log_partition() == 0.0


def test_bad_requests_raise_clear_errors():
    lat = Lattice.build("ab", make({"a": -1.0, "b": -1.0}))
    with pytest.raises(TokenizerError, match="not a segmentation"):
        lat.score(["ab"])
    with pytest.raises(TokenizerError, match="covers only"):
        lat.score(["a"])
    with pytest.raises(TokenizerError, match="positive"):
        lat.nbest(0)
    with pytest.raises(TokenizerError, match="alpha"):
        lat.sample(rng=random.Random(0), alpha=-1.0)
    with pytest.raises(TokenizerError, match="finite"):
        PieceTrie([("a", 0, float("nan"))])
