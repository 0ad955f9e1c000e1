"""Minimum-token segmentation (PathPiece) against brute force over every path of small lattices, its
two tie-breaking rules, and the corpus measurement against Viterbi."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.min_tokens import all_fewest, compare_on_pieces, fewest_count, fewest_tokens, longest_match
from tokenizer_core.unigram.lattice import Lattice
from tokenizer_core.unigram.model import Unigram


def every_path(lattice: Lattice, pos: int = 0) -> list[tuple]:
    """All paths from ``pos`` to the end, as tuples of edges (exponential: small lattices only)."""
    if pos == len(lattice.text):
        return [()]
    return [(e, *rest) for e in lattice.edges_from(pos) for rest in every_path(lattice, e.end)]


PIECES = st.lists(st.text(alphabet="abc", min_size=2, max_size=4), max_size=8, unique=True)
SCORES = st.floats(min_value=-8.0, max_value=-0.1, allow_nan=False)


@st.composite
def lattices(draw) -> Lattice:
    pieces = ["a", "b", "c", *draw(PIECES)]
    model = Unigram([(p, draw(SCORES)) for p in pieces])
    return model.lattice(draw(st.text(alphabet="abc", min_size=1, max_size=9)))


@settings(max_examples=150, deadline=None)
@given(lattice=lattices())
def test_the_fewest_tokens_and_the_number_of_such_paths_equal_brute_force(lattice):
    paths = every_path(lattice)
    fewest = min(len(p) for p in paths)
    shortest = [p for p in paths if len(p) == fewest]
    assert len(fewest_tokens(lattice).edges) == fewest
    assert fewest_count(lattice) == (fewest, len(shortest))
    # The longest-last-token rule, applied from the end backwards: the largest reversed lengths.
    longest = max(shortest, key=lambda p: [e.end - e.start for e in reversed(p)])
    assert fewest_tokens(lattice).edges == longest
    # Never more tokens than Viterbi, never likelier.
    best = lattice.viterbi()
    found = fewest_tokens(lattice)
    assert len(found.edges) <= len(best.edges)
    assert found.log_prob <= best.log_prob + 1e-9
    assert "".join(found.pieces) == lattice.text
    # Every shortest path, likeliest first; greedy longest match is never shorter.
    listed = all_fewest(lattice, limit=len(shortest))
    assert {p.edges for p in listed} == set(shortest)
    assert [p.log_prob for p in listed] == sorted((p.log_prob for p in listed), reverse=True)
    greedy = longest_match(lattice)
    assert "".join(greedy.pieces) == lattice.text and len(greedy.edges) >= fewest


def test_random_ties_reach_every_shortest_path_and_a_seed_repeats_its_draw():
    lattice = Unigram([("a", -1.0), ("aa", -1.0)]).lattice("aaaaa")  # 3 tokens: a aa aa, aa a aa, aa aa a
    shortest = {p for p in every_path(lattice) if len(p) == 3}
    assert len(shortest) == 3
    drawn = {fewest_tokens(lattice, tie="random", rng=random.Random(seed)).edges for seed in range(60)}
    assert drawn == shortest
    one = fewest_tokens(lattice, tie="random", rng=random.Random(7))
    assert fewest_tokens(lattice, tie="random", rng=random.Random(7)) == one
    assert fewest_tokens(lattice).pieces == ["a", "aa", "aa"]  # the longest last token, then again


def test_greedy_longest_match_is_not_the_fewest():
    # Longest match first takes "ab" and is left with c, d: three tokens. The fewest is two.
    model = Unigram([(p, -1.0) for p in ("a", "b", "c", "d", "ab", "bcd")])
    lattice = model.lattice("abcd")
    assert fewest_tokens(lattice).pieces == ["a", "bcd"]
    assert fewest_count(lattice) == (2, 1)


def test_unknown_characters_count_as_one_token_each():
    model = Unigram([("<unk>", 0.0), ("a", -1.0), ("ab", -2.0)], unk_id=0)
    lattice = model.lattice("ab?a")
    found = fewest_tokens(lattice)
    assert [e.unknown for e in found.edges] == [False, True, False]
    assert [found.pieces[0], found.pieces[2]] == ["ab", "a"]


def test_bad_options_are_refused_clearly():
    lattice = Unigram([("a", -1.0)]).lattice("aa")
    with pytest.raises(TokenizerError, match="tie must be one of"):
        fewest_tokens(lattice, tie="shortest")  # type: ignore[arg-type]
    with pytest.raises(TokenizerError, match="needs an rng"):
        fewest_tokens(lattice, tie="random")
    with pytest.raises(TokenizerError, match="examples must be 0 or more"):
        compare_on_pieces(Unigram([("a", -1.0)]), [], examples=-1)


def test_the_corpus_measurement_adds_up_each_piece_by_its_count():
    model = Unigram([("a", -1.0), ("b", -1.0), ("c", -1.0), ("ab", -5.0), ("bc", -5.0), ("abc", -2.5)])
    counted = [("abc", 4), ("bca", 2), ("ab", 1), ("", 9), ("cab", 0), ("a", 3)]
    report = compare_on_pieces(model, counted, examples=1)
    kept = [(p, c) for p, c in counted if p and c > 0]
    assert (report.pieces, report.occurrences) == (4, 10)
    viterbi = {p: model.lattice(p).viterbi() for p, _ in kept}
    fewest = {p: fewest_tokens(model.lattice(p)) for p, _ in kept}
    assert report.viterbi_tokens == sum(c * len(viterbi[p].edges) for p, c in kept)
    assert report.fewest_tokens == sum(c * len(fewest[p].edges) for p, c in kept)
    assert report.fewest_log_prob == pytest.approx(sum(c * fewest[p].log_prob for p, c in kept))
    differing = [(p, c) for p, c in kept if viterbi[p].pieces != fewest[p].pieces]
    assert report.pieces_differing == len(differing) == 2  # "bca" (b c a -> bc a) and "ab" (a b -> ab)
    assert report.occurrences_differing == 3
    assert [d.piece for d in report.examples] == ["bca"]  # commonest first, one kept
    assert report.tokens_saved == pytest.approx(1 - report.fewest_tokens / report.viterbi_tokens)
    lost = report.viterbi_log_prob - report.fewest_log_prob
    assert report.nats_per_token_saved == pytest.approx(lost / (report.viterbi_tokens - report.fewest_tokens))


def test_counting_pieces_reads_at_most_max_chars_even_of_one_huge_line():
    from tokenizer_core.min_tokens import corpus_pieces, first_chars
    from tokenizer_core.text.pre_tokenizers import WhitespaceSplit

    pulled: list[str] = []
    huge = "ab " * 1_000_000

    def lines():  # records each line the counting takes
        for line in (huge, "never read"):
            pulled.append(line)
            yield line

    assert [len(line) for line in first_chars(lines(), max_chars=30)] == [30]
    assert pulled == [huge]  # the next line is never taken
    split = WhitespaceSplit()
    assert corpus_pieces([huge, "never read"], normalizer=None, pre_tokenizer=split, max_chars=30, top=5) == [("ab", 10)]
    assert corpus_pieces(["x y", "y"], normalizer=None, pre_tokenizer=split, max_chars=100, top=1) == [("y", 2)]
    with pytest.raises(TokenizerError, match="must be 1 or more"):
        list(first_chars([], max_chars=0))
    with pytest.raises(TokenizerError, match="must be 1 or more"):
        corpus_pieces([], normalizer=None, pre_tokenizer=split, top=0)
