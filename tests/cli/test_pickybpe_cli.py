"""The command line with PickyBPE: --threshold reaches the trainer (the written tokenizer removes what
train_pickybpe removes at that threshold), 1 removes nothing, and misuse is refused with one clear line."""

from __future__ import annotations

import pytest

from tests._cli import assert_refused, sample_lines, written_corpus
from tests._cli import trained as train_file
from tokenizer_core.pickybpe.trainer import train_pickybpe
from tokenizer_core.pipeline import Tokenizer

VOCAB = 400


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return sample_lines(400)


@pytest.fixture(scope="module")
def corpus(lines, tmp_path_factory):
    return written_corpus(tmp_path_factory.mktemp("pickybpe-cli"), lines)


def trained(corpus, out, *flags: str) -> Tokenizer:
    return train_file(corpus, out, "pickybpe", "--vocab-size", str(VOCAB), "--special-tokens", "<|endoftext|>", *flags)


def test_the_threshold_flag_sets_what_is_removed(corpus, lines, tmp_path):
    direct = train_pickybpe(lines, vocab_size=VOCAB, threshold=0.6, special_tokens=("<|endoftext|>",))
    tok = trained(corpus, tmp_path / "picky.json", "--threshold", "0.6")
    assert direct.removed and tok.model.removed_tokens() == direct.removed
    assert tok.get_vocab() == direct.vocab
    default = trained(corpus, tmp_path / "default.json")  # 0.9, the paper's best: fewer removals
    assert len(default.model.removed_tokens()) < len(direct.removed)
    assert trained(corpus, tmp_path / "none.json", "--threshold", "1").model.removed_tokens() == []


@pytest.mark.parametrize("flags, message", [
    (["--model", "bpe", "--threshold", "0.9"], "--threshold applies to --model pickybpe or boundless only, not bpe"),
    (["--model", "pickybpe", "--threshold", "0"], "above 0 and at most 1"),
    (["--model", "pickybpe", "--threshold", "1.2"], "above 0 and at most 1"),
    (["--model", "pickybpe", "--num-merges", "50"], "give --vocab-size, not --num-merges"),
])
def test_misuse_is_refused_with_one_clear_line(corpus, tmp_path, capsys, flags, message):
    assert_refused(corpus, tmp_path / "never.json", flags, message, capsys)
