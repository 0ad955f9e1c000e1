"""The command line with SuperBPE: --transition and --transition-share reach the trainer (train and
sweep), a transition at the vocabulary size is plain BPE, and misuse is refused with one clear line."""

from __future__ import annotations

import json

import pytest

from tests._cli import assert_refused, run, sample_lines, written_corpus
from tests._cli import trained as train_file
from tests.core.superbpe.test_superbpe import hf_merges, hf_stage1
from tokenizer_core.analysis.sweep import split_lines, sweep
from tokenizer_core.options import SuperBpeOptions, TrainOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.superbpe.trainer import train_superbpe

SPECIALS = "<|endoftext|>"
VOCAB = 500


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return sample_lines(800)


@pytest.fixture(scope="module")
def corpus(lines, tmp_path_factory):
    return written_corpus(tmp_path_factory.mktemp("superbpe-cli"), lines)


def trained(corpus, out, *flags: str) -> Tokenizer:
    return train_file(corpus, out, "superbpe", "--vocab-size", str(VOCAB), "--special-tokens", SPECIALS, *flags)


def test_the_transition_flags_set_where_stage_two_begins(corpus, lines, tmp_path):
    direct = train_superbpe(lines, vocab_size=VOCAB, transition=400, special_tokens=(SPECIALS,))
    fixed = trained(corpus, tmp_path / "fixed.json", "--transition", "400")
    share = trained(corpus, tmp_path / "share.json", "--transition-share", "0.8")  # 80% of 500
    for tok in (fixed, share):
        assert tok.model.merges == direct.merges and tok.get_vocab() == direct.vocab
        assert tok.metadata["transition"] == 400 and tok.metadata["transition_step"] == 400 - 257
        assert tok.metadata["superwords"] == len(direct.superwords()) > 0
    default = trained(corpus, tmp_path / "default.json")
    assert default.metadata["transition"] == 450  # the paper's 90%
    assert default.model.merges == train_superbpe(lines, vocab_size=VOCAB, transition=450,
                                                  special_tokens=(SPECIALS,)).merges


def test_a_transition_at_the_vocabulary_size_is_plain_byte_level_bpe(corpus, lines, tmp_path):
    full = trained(corpus, tmp_path / "full.json", "--transition", str(VOCAB))
    share = trained(corpus, tmp_path / "share.json", "--transition-share", "1")
    # tokenizers' own BPE trainer with SuperBPE's stage-1 pre-tokenizer: the same merges, in order.
    plain = hf_merges(hf_stage1(lines, VOCAB))
    assert full.model.merges == share.model.merges == plain
    assert full.metadata["superwords"] == 0 and full.metadata["transition_step"] == len(plain)
    # Above the vocabulary size it is plain BPE too (the trainer takes the smaller of the two).
    above = trained(corpus, tmp_path / "above.json", "--transition", str(VOCAB * 2))
    assert above.model.merges == plain


def test_sweep_takes_superbpe_and_its_transition(corpus, lines, tmp_path):
    code, out = run(["sweep", str(corpus), "--model", "superbpe", "--sizes", "300,500", "--special-tokens", SPECIALS,
                     "--transition-share", "0.8", "--json", "-q"])
    assert code == 0
    rows = json.loads(out)["rows"]
    train_lines, held = split_lines(lines, heldout_fraction=0.1, seed=0)
    options = TrainOptions(special_tokens=(SPECIALS,), unk_token=None, superbpe=SuperBpeOptions(transition_share=0.8))
    expected = sweep("superbpe", train_lines, held, sizes=[300, 500], options=options)
    assert [(r["vocab_size"], r["heldout_tokens"], r["tokens_per_byte"]) for r in rows] == [
        (r.vocab_size, r.heldout_tokens, r.tokens_per_byte) for r in expected]
    code, table = run(["sweep", str(corpus), "--model", "superbpe", "--sizes", "300", "-q"])
    assert code == 0 and "tok/byte" in table.splitlines()[0]


@pytest.mark.parametrize("flags, message", [
    (["--model", "bpe", "--transition", "400"], "--transition applies to --model superbpe only, not bpe"),
    (["--model", "unigram", "--transition-share", "0.5"], "--transition-share applies to --model superbpe only"),
    (["--model", "superbpe", "--transition", "400", "--transition-share", "0.8"], "not both"),
    (["--model", "superbpe", "--num-merges", "100"], "give --vocab-size, not --num-merges"),
    (["--model", "superbpe", "--transition-share", "0"], "above 0 and at most 1"),
    (["--model", "superbpe", "--transition-share", "1.5"], "above 0 and at most 1"),
    (["--model", "superbpe", "--transition", "0"], "--transition must be a vocabulary size of 1 or more"),
])
def test_misuse_is_refused_with_one_clear_line(corpus, tmp_path, capsys, flags, message):
    assert_refused(corpus, tmp_path / "never.json", flags, message, capsys)


def test_sweep_refuses_the_flags_for_other_models(corpus, capsys):
    code, _ = run(["sweep", str(corpus), "--model", "bpe", "--sizes", "300", "--transition", "280", "-q"])
    assert code == 2 and "--transition applies to --model superbpe only" in capsys.readouterr().err
