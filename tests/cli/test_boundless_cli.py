"""The command line with BoundlessBPE: --threshold, --no-removals and --no-superwords reach the trainer
(the written tokenizer holds what train_boundless learns with those settings), both switches off is
plain byte-level BPE, and misuse is refused with one clear line."""

from __future__ import annotations

import pytest

from tests._cli import assert_refused, sample_lines, written_corpus
from tests._cli import trained as train_file
from tokenizer_core.boundless.trainer import train_boundless
from tokenizer_core.pipeline import Tokenizer

VOCAB = 400
SPECIALS = "<|endoftext|>"


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return sample_lines(300)


@pytest.fixture(scope="module")
def corpus(lines, tmp_path_factory):
    return written_corpus(tmp_path_factory.mktemp("boundless-cli"), lines)


def trained(corpus, out, model: str, *flags: str) -> Tokenizer:
    return train_file(corpus, out, model, "--vocab-size", str(VOCAB), "--special-tokens", SPECIALS, *flags)


@pytest.mark.parametrize("flags, threshold, superwords", [
    ((), 0.9, True),
    (("--threshold", "0.6"), 0.6, True),
    (("--no-removals",), None, True),
    (("--no-superwords", "--threshold", "0.7"), 0.7, False),
])
def test_the_flags_reach_the_trainer(corpus, lines, tmp_path, flags, threshold, superwords):
    direct = train_boundless(lines, vocab_size=VOCAB, threshold=threshold, superwords=superwords,
                             special_tokens=(SPECIALS,))
    tok = trained(corpus, tmp_path / "b.json", "boundless", *flags)
    assert tok.model.merges == direct.model.merges and tok.get_vocab() == direct.vocab
    assert bool(tok.model.supermerges) == superwords


def test_both_switches_off_is_plain_byte_level_bpe(corpus, tmp_path):
    off = trained(corpus, tmp_path / "off.json", "boundless", "--no-removals", "--no-superwords")
    bpe = trained(corpus, tmp_path / "bpe.json", "bpe", "--byte-level")
    assert off.model.merges == bpe.model.merges


@pytest.mark.parametrize("flags, message", [
    (["--model", "bpe", "--no-superwords"], "--no-superwords applies to --model boundless only, not bpe"),
    (["--model", "pickybpe", "--no-removals"], "--no-removals applies to --model boundless only"),
    (["--model", "boundless", "--threshold", "0.8", "--no-removals"], "not both"),
    (["--model", "boundless", "--threshold", "1.5"], "above 0 and at most 1"),
    (["--model", "boundless", "--num-merges", "50"], "give --vocab-size, not --num-merges"),
])
def test_misuse_is_refused_with_one_clear_line(corpus, tmp_path, capsys, flags, message):
    assert_refused(corpus, tmp_path / "never.json", flags, message, capsys)
