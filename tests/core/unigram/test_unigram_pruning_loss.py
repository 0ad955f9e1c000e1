"""The loss of every pruned Unigram piece, pinned to SentencePiece's formula on states small enough to
work out by hand, in the pruning step itself and in the training trace the Lattice page shows.

SentencePiece (``PruneSentencePieces``): with ``freq[i]`` the Viterbi count of piece ``i`` over the
corpus, ``sum`` their total, ``vsum`` the number of words, and ``alt(i)`` the best segmentation of
the piece without itself,

    F        = freq[i] / vsum
    logp_sp  = log(freq[i]) - log(sum)
    logsum'  = log(sum + freq[i] * (|alt(i)| - 1))        # the piece's tokens become |alt| tokens each
    logp_alt = sum over a in alt(i) of  log(freq[a] + freq[i]) - logsum'
    loss     = F * (logp_sp - logp_alt)
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tokenizer_core.types import no_progress
from tokenizer_core.unigram.em import EMState
from tokenizer_core.unigram.pruning import prune
from tokenizer_core.unigram.trainer import _em_rounds
from tokenizer_core.unigram.words import WordTable


def _state(words: list[str], pieces: list[str], probs: list[float], num_chars: int) -> EMState:
    w = WordTable(words, np.ones(len(words)))
    return EMState(w, w.runs(split_by_script=True, split_digits=False), pieces, np.log(np.array(probs)),
                   num_chars=num_chars)


def _course_state() -> EMState:
    """Words "ab" x3 and "abc"; P(a) = P(b) = P(c) = 0.1, P(ab) = 0.5, P(abc) = 0.2.

    Viterbi: "ab" -> ab (0.5 > a.b 0.01), "abc" -> abc (0.2 > ab.c 0.05 > a.b.c 0.001), so
    freq = {ab: 3, abc: 1, a: b: c: 0}, sum = 4, vsum = 4 words.

    abc, alt = [ab, c] (2 pieces): F = 1/4, logp_sp = log 1 - log 4 = -1.386294,
      logsum' = log(4 + 1 * 1) = log 5, logp_alt = (log(3 + 1) - log 5) + (log(0 + 1) - log 5) = -1.832581,
      loss = 0.25 * (-1.386294 + 1.832581) = 0.111572
      (with freq * |alt| instead of freq * (|alt| - 1): log 6 in place of log 5, loss 0.202733).
    ab, alt = [a, b]: F = 3/4, logp_sp = log 3 - log 4 = -0.287682,
      logsum' = log(4 + 3 * 1) = log 7, logp_alt = 2 * (log(0 + 3) - log 7) = -1.694596,
      loss = 0.75 * (-0.287682 + 1.694596) = 1.055186.
    """
    return _state(["ab"] * 3 + ["abc"], ["a", "b", "c", "ab", "abc"], [0.1, 0.1, 0.1, 0.5, 0.2], 3)


COURSE_LOSSES = {"abc": 0.25 * (-math.log(4) - (math.log(4) - math.log(5) + math.log(1) - math.log(5))),
                 "ab": 0.75 * (math.log(3 / 4) - 2 * (math.log(3) - math.log(7)))}


def _three_way_state() -> EMState:
    """Words "abcd" x2, "ab", "c"; P(a..d) = 0.1, P(ab) = 0.3, P(abcd) = 0.3.

    Viterbi: "abcd" -> abcd (0.3 > ab.c.d 0.003), "ab" -> ab, "c" -> c:
    freq = {abcd: 2, ab: 1, c: 1}, sum = 4, vsum = 4 words.

    abcd, alt = [ab, c, d] (3 pieces): F = 2/4, logp_sp = log 2 - log 4 = -0.693147,
      logsum' = log(4 + 2 * 2) = log 8,
      logp_alt = (log(1 + 2) - log 8) + (log(1 + 2) - log 8) + (log(0 + 2) - log 8) = -3.347954,
      loss = 0.5 * (-0.693147 + 3.347954) = 1.327403   (freq * |alt|: log 10, loss 1.662118).
    ab, alt = [a, b]: F = 1/4, logp_sp = log 1 - log 4, logsum' = log(4 + 1 * 1) = log 5,
      logp_alt = 2 * (log(0 + 1) - log 5) = -3.218876, loss = 0.25 * (-1.386294 + 3.218876) = 0.458145.
    """
    return _state(["abcd", "abcd", "ab", "c"], ["a", "b", "c", "d", "ab", "abcd"],
                  [0.1, 0.1, 0.1, 0.1, 0.3, 0.3], 4)


THREE_WAY_LOSSES = {"abcd": 0.5 * (math.log(2 / 4) - (2 * math.log(3) + math.log(2) - 3 * math.log(8))),
                    "ab": 0.25 * (math.log(1 / 4) - 2 * (math.log(1) - math.log(5)))}


def test_the_piece_with_the_smaller_loss_is_pruned_with_that_loss():
    state = _course_state()
    _, removed = prune(state, target=4, shrinking_factor=0.75)  # room for one of ab, abc
    assert [(r.piece, r.reason) for r in removed] == [("abc", "pruned")]
    assert removed[0].loss == pytest.approx(COURSE_LOSSES["abc"], abs=1e-9)
    assert state.pieces == ["a", "b", "c", "ab"]


@pytest.mark.parametrize("make, expected", [(_course_state, COURSE_LOSSES), (_three_way_state, THREE_WAY_LOSSES)])
def test_every_pruned_piece_reports_sentencepieces_loss(make, expected):
    state = make()
    _, removed = prune(state, target=state.is_char.sum(), shrinking_factor=0.5)  # no room: all go
    assert {r.piece: r.loss for r in removed} == pytest.approx(expected, abs=1e-6)
    assert all(r.reason == "pruned" for r in removed)


@pytest.mark.parametrize("make, expected", [(_course_state, COURSE_LOSSES), (_three_way_state, THREE_WAY_LOSSES)])
def test_the_training_trace_shows_the_same_losses(monkeypatch, make, expected):
    # The Lattice page lists ``rounds[k].removed`` (piece, reason, log-prob, loss). EM is held still
    # so the round prunes the hand-made state itself.
    monkeypatch.setattr(EMState, "em_step", lambda self: (0.0, []))
    state = make()
    probs = dict(zip(state.pieces, np.exp(state.lp).tolist()))
    rounds = _em_rounds(state, desired=int(state.is_char.sum()), shrinking_factor=0.5, num_sub_iterations=1,
                        total_steps=2, progress=no_progress)
    assert len(rounds) == 1
    trace = {r.piece: r.loss for r in rounds[0].removed if r.reason == "pruned"}
    assert trace == pytest.approx(expected, abs=1e-6)
    assert {r.piece: math.exp(r.log_prob) for r in rounds[0].removed} == pytest.approx(
        {p: probs[p] for p in expected})
