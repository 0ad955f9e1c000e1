"""The Unigram model: the Hugging Face course's worked example, and parity with ``tokenizers``.

Course: https://huggingface.co/learn/nlp-course/chapter6/7 (Unigram tokenization).
Its vocabulary: frequencies of all substrings of the corpus hug(10) pug(5) pun(12)
bun(4) hugs(5), 210 in total; a piece's probability is its frequency / 210.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models

from tokenizer_core.errors import TokenizerError, UnknownTokenError
from tokenizer_core.types import Sampling
from tokenizer_core.unigram.lattice import Lattice
from tokenizer_core.unigram.model import Unigram, byte_token

COURSE_FREQS = {
    "h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "p": 17, "pu": 17, "n": 16,
    "un": 16, "b": 4, "bu": 4, "s": 5, "hug": 15, "gs": 5, "ugs": 5,
}
COURSE_WORDS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def course_model(freqs=COURSE_FREQS) -> Unigram:
    total = sum(freqs.values())
    return Unigram([(p, math.log(f / total)) for p, f in freqs.items()])


def best(model: Unigram, word: str) -> tuple[list[str], float]:
    seg = model.lattice(word).viterbi()
    return seg.pieces, math.exp(seg.log_prob)


def test_course_total_is_210():
    assert sum(COURSE_FREQS.values()) == 210


@pytest.mark.parametrize(
    "word, listed, prob",
    [
        # The course's table of segmentations and scores (probabilities) per word.
        ("hug", ["hug"], 0.071428),
        ("pug", ["pu", "g"], 0.007710),
        ("pun", ["pu", "n"], 0.006168),
        ("bun", ["bu", "n"], 0.001451),
        ("hugs", ["hug", "s"], 0.001701),
    ],
)
def test_course_segmentations_and_scores(word, listed, prob):
    m = course_model()
    pieces, p = best(m, word)
    assert round(p, 6) == pytest.approx(prob, abs=1.5e-6)
    lat = m.lattice(word)
    # The listed segmentation scores exactly that; where the course's choice ties with
    # another one (pu+g = p+ug), ours is one of the equally best.
    assert math.exp(lat.score(listed)) == pytest.approx(p, rel=1e-12)
    assert "".join(pieces) == word
    assert math.exp(lat.score(pieces)) == pytest.approx(p, rel=1e-12)


def test_course_pug_segmentations_tie_as_the_course_says():
    lat = course_model().lattice("pug")
    top = lat.nbest(3)
    assert {tuple(s.pieces) for s in top[:2]} == {("p", "ug"), ("pu", "g")}
    assert top[0].log_prob == pytest.approx(top[1].log_prob)
    assert top[2].pieces == ["p", "u", "g"]
    assert math.exp(top[2].log_prob) == pytest.approx(17 * 36 * 20 / 210**3)


def test_course_viterbi_walkthrough_unhug():
    # Best segmentation ending at each character of "unhug", as the course walks through it.
    m = course_model()
    steps = [("u", ["u"], 0.171429), ("un", ["un"], 0.076191), ("unh", ["un", "h"], 0.005442),
             ("unhu", ["un", "hu"], 0.005442), ("unhug", ["un", "hug"], 0.005442)]
    for prefix, pieces, prob in steps:
        got, p = best(m, prefix)
        assert got == pieces
        assert p == pytest.approx(prob, abs=1.5e-6)
    assert [t.text for t in m.tokenize("unhug")] == ["un", "hug"]


def corpus_loss(model: Unigram) -> float:
    return sum(c * -model.lattice(w).viterbi().log_prob for w, c in COURSE_WORDS.items())


def test_course_corpus_loss_and_removing_hug():
    m = course_model()
    assert corpus_loss(m) == pytest.approx(169.8, abs=0.05)
    without = dict(COURSE_FREQS)
    del without["hug"]
    # The course keeps the other probabilities as they are (still out of 210).
    m2 = Unigram([(p, math.log(f / 210)) for p, f in without.items()])
    pieces, p = best(m2, "hug")
    # The course lists hu+g; h+ug scores the same (15 * 20 / 210**2), so either is right.
    assert pieces in (["hu", "g"], ["h", "ug"]) and p == pytest.approx(0.006802, abs=1.5e-6)
    assert corpus_loss(m2) - corpus_loss(m) == pytest.approx(23.5, abs=0.05)


# ------------------------------------------------------------------ fast path = lattice
vocab_st = st.dictionaries(
    st.text(alphabet="abcd▁", min_size=1, max_size=4),
    st.integers(min_value=-60, max_value=-1).map(lambda k: k / 4),
    min_size=1,
    max_size=20,
)


def _model(vocab: dict[str, float], *, byte_fallback: bool = False) -> Unigram:
    entries = [("<unk>", 0.0)] + sorted(vocab.items())
    if byte_fallback:
        entries += [(byte_token(b), 0.0) for b in range(256)]
    return Unigram(entries, unk_id=0, byte_fallback=byte_fallback, special_tokens=["<unk>"])


@settings(max_examples=200, deadline=None)
@given(vocab_st, st.text(alphabet="abcde▁é", min_size=0, max_size=12))
def test_tokenize_equals_the_lattice_viterbi(vocab, word):
    m = _model(vocab)
    seg = m.lattice(word).viterbi()
    fast = m.viterbi(word)
    assert [(e.start, e.end, -1 if e.unknown else e.id) for e in seg.edges] == fast
    tokens = m.tokenize(word)
    assert "".join(word[s:e] for s, e in (t.offsets for t in tokens)) == word


@settings(max_examples=200, deadline=None)
@given(vocab_st, st.text(alphabet="abcde▁é☃", min_size=1, max_size=12), st.booleans())
def test_tokenize_matches_hugging_face_unigram(vocab, word, byte_fallback):
    m = _model(vocab, byte_fallback=byte_fallback)
    hf = HFTokenizer(hf_models.Unigram(m.pieces, 0, byte_fallback))
    enc = hf.encode(word, add_special_tokens=False)
    ours = m.tokenize(word)
    assert [t.text for t in ours] == enc.tokens
    assert [t.id for t in ours] == enc.ids
    assert [t.offsets for t in ours] == enc.offsets


def test_unknown_runs_are_fused_and_byte_fallback_spells_bytes():
    m = _model({"a": -1.0, "b": -1.0})
    assert [(t.id, t.text, t.offsets) for t in m.tokenize("a☃☃b")] == [(1, "a", (0, 1)), (0, "☃☃", (1, 3)),
                                                                      (2, "b", (3, 4))]
    mb = _model({"a": -1.0}, byte_fallback=True)
    assert [t.text for t in mb.tokenize("aé")] == ["a", "<0xC3>", "<0xA9>"]
    no_unk = Unigram([("a", -1.0)])
    with pytest.raises(UnknownTokenError, match="no unknown token"):
        no_unk.tokenize("ab")


def test_special_tokens_are_never_matched_inside_text():
    m = Unigram([("<s>", 0.0), ("<", -5.0), ("s", -5.0), (">", -5.0)], special_tokens=["<s>"])
    assert [t.text for t in m.tokenize("<s>")] == ["<", "s", ">"]


def test_sampled_tokenization_is_seeded_and_covers_the_word():
    m = course_model()
    s = Sampling(seed=3, alpha=0.0)
    draws = [tuple(t.text for t in m.tokenize_sampled("hugs", rng=random.Random(i), sampling=s)) for i in range(200)]
    assert all("".join(d) == "hugs" for d in draws)
    assert len(set(draws)) > 3  # alpha = 0: uniform over all segmentations
    again = [tuple(t.text for t in m.tokenize_sampled("hugs", rng=random.Random(i), sampling=s)) for i in range(200)]
    assert draws == again
    viterbi = Sampling(seed=1, nbest_size=1)
    assert [t.text for t in m.tokenize_sampled("hugs", rng=random.Random(0), sampling=viterbi)] == \
        [t.text for t in m.tokenize("hugs")]


def test_nbest_helper_returns_tokens_with_scores():
    got = course_model().nbest("pug", 3)
    assert ["".join(t.text for t in toks) for toks, _ in got] == ["pug"] * 3
    assert got[0][1] >= got[1][1] >= got[2][1]


def test_serialisation_round_trips_and_hf_model_loads():
    m = _model({"ab": -1.0, "a": -2.0, "b": -2.5}, byte_fallback=True)
    again = Unigram.from_dict(m.to_dict())
    assert again.pieces == m.pieces and again.unk_id == 0 and again.byte_fallback
    assert again.special_tokens == ["<unk>"]
    assert [t.text for t in again.tokenize("abé")] == [t.text for t in m.tokenize("abé")]
    hf_model = m.to_hf()
    assert hf_model["type"] == "Unigram" and hf_model["vocab"][1] == ["a", -2.0]
    assert Unigram.from_hf(hf_model, special_tokens=["<unk>"]).pieces == m.pieces


def test_lattice_is_what_the_app_draws():
    lat = course_model().lattice("hugs")
    assert isinstance(lat, Lattice)
    view = lat.to_dict(nbest=3)
    assert view["viterbi"]["pieces"] in (["hug", "s"], ["h", "ugs"], ["hu", "gs"])
    assert all(0.0 <= e["marginal"] <= 1.0 + 1e-12 for e in view["edges"])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"vocab": []}, "at least one piece"),
        ({"vocab": [("a", 0.0), ("a", -1.0)]}, "twice"),
        ({"vocab": [("a", float("inf"))]}, "finite"),
        ({"vocab": [("", -1.0)]}, "non-empty"),
        ({"vocab": [("a", -1.0)], "unk_id": 3}, "unk_id"),
        ({"vocab": [("a", -1.0)], "byte_fallback": True}, "byte tokens"),
        ({"vocab": [("a", -1.0)], "special_tokens": ["<s>"]}, "special token"),
    ],
)
def test_bad_models_raise_clear_errors(kwargs, message):
    vocab = kwargs.pop("vocab")
    with pytest.raises(TokenizerError, match=message):
        Unigram(vocab, **kwargs)


def test_a_model_from_frequencies_takes_their_shares_and_refuses_empty_or_non_positive_ones():
    from tokenizer_core.unigram.explain import COURSE_FREQUENCIES, course_model

    model = Unigram.from_frequencies({"a": 0.3, "b": 0.1})
    assert model.score("a") == pytest.approx(math.log(0.75)) and model.score("b") == pytest.approx(math.log(0.25))
    total = sum(COURSE_FREQUENCIES.values())
    assert course_model().pieces == [(p, math.log(f / total)) for p, f in COURSE_FREQUENCIES.items()]
    for bad in ({}, {"a": 1.0, "b": 0.0}, {"a": -1.0}, {"a": float("nan")}):
        with pytest.raises(TokenizerError, match="must be above 0"):
            Unigram.from_frequencies(bad)
