"""The vocabulary-size sweep of SuperBPE: each size is SuperBPE trained at that size with its own
transition (``train_superbpe`` called directly), scored as encoding the held-out lines scores it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.core.analysis.test_sweep import assert_row_matches, encoded
from tokenizer_core.analysis.heldout import Heldout
from tokenizer_core.analysis.sweep import SweepCancelled, split_lines, sweep
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import SuperBpeOptions, TrainOptions
from tokenizer_core.superbpe.trainer import train_superbpe
from tokenizer_core.training import train

SPECIALS = ("<|endoftext|>",)
OPTIONS = TrainOptions(special_tokens=SPECIALS, unk_token=None)


@pytest.fixture(scope="module")
def split():
    lines = list(load_sample("default").lines())[:1200]
    lines += list(load_sample("multilingual").lines())  # accents, CJK, emoji: bytes the held-out lines reuse
    return split_lines(lines, heldout_fraction=0.15, seed=5)


def check_rows(rows, split, options: TrainOptions, sizes: list[int]) -> None:
    train_lines, heldout = split
    assert [r.requested_size for r in rows] == sizes and [r.model for r in rows] == ["superbpe"] * len(sizes)
    assert not any(r.derived for r in rows)  # every size is a training of its own
    for row, size in zip(rows, sizes):
        transition = options.superbpe.transition_for(size)
        direct = train_superbpe(train_lines, vocab_size=size, transition=transition, special_tokens=SPECIALS)
        tok = train("superbpe", train_lines, options=replace(options, vocab_size=size))
        assert tok.model.merges == direct.merges and tok.get_vocab() == direct.vocab
        assert tok.metadata["transition"] == min(transition, size)
        assert_row_matches(row, tok, heldout)
        tokens = sum(len(tok.encode(line, add_special_tokens=False).ids) for line in heldout)
        held_bytes = sum(len(line.encode("utf-8")) for line in heldout)
        assert row.heldout_tokens == tokens and row.tokens_per_byte == tokens / held_bytes


def test_each_size_is_superbpe_trained_at_that_size_with_its_own_transition(split):
    sizes = [300, 420, 700]
    rows = sweep("superbpe", *split, sizes=sizes, options=OPTIONS)
    check_rows(rows, split, OPTIONS, sizes)
    # Why each size trains on its own: the smaller size's stage 2 began earlier (at 90% of 420, not
    # of 700), so its merges are not the first merges of the larger size's.
    small = train_superbpe(split[0], vocab_size=420, transition=378, special_tokens=SPECIALS)
    large = train_superbpe(split[0], vocab_size=700, transition=630, special_tokens=SPECIALS)
    assert small.merges != large.merges[:len(small.merges)]


def test_a_fixed_transition_holds_for_every_size_and_below_it_is_plain_bpe(split):
    options = replace(OPTIONS, superbpe=SuperBpeOptions(transition=400))
    sizes = [330, 600]
    rows = sweep("superbpe", *split, sizes=sizes, options=options)
    check_rows(rows, split, options, sizes)
    below = train("superbpe", split[0], options=replace(options, vocab_size=330))
    assert below.metadata["superwords"] == 0 and below.metadata["transition_step"] == 330 - 257


def test_superbpe_spends_fewer_held_out_tokens_than_its_own_first_stage_alone(split):
    # At a transition of 100% SuperBPE is plain byte-level BPE (its stage-1 pre-tokenizer); at 90%
    # the last tenth of the vocabulary goes to superwords, which the held-out text uses.
    sizes = [500, 900]
    plain = sweep("superbpe", *split, sizes=sizes, options=replace(OPTIONS, superbpe=SuperBpeOptions(transition_share=1.0)))
    superwords = sweep("superbpe", *split, sizes=sizes, options=OPTIONS)
    assert all(s.tokens_per_byte < p.tokens_per_byte for s, p in zip(superwords, plain))


def test_the_held_out_pieces_are_whole_lines_scored_once_each(split):
    tok = train("superbpe", split[0], options=replace(OPTIONS, vocab_size=400))
    held = Heldout(split[1], tok)
    assert sum(held.pieces.values()) < 3 * len(split[1])  # lines (cut at digit groups), not words
    assert held.score(tok).tokens == encoded(tok, split[1]).tokens


def test_cancelling_keeps_the_sizes_finished(split):
    seen: list[str] = []
    with pytest.raises(SweepCancelled) as info:
        sweep("superbpe", *split, sizes=[300, 400, 500], options=OPTIONS, progress=lambda d, t, m: seen.append(m),
              should_stop=lambda: any(m.startswith("vocabulary size 400") for m in seen))
    assert [r.requested_size for r in info.value.rows] == [300]


def test_num_merges_is_refused(split):
    with pytest.raises(TokenizerError, match="trains to a vocabulary size"):
        sweep("superbpe", *split, sizes=[300], options=replace(OPTIONS, num_merges=10))
