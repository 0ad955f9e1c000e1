"""The command line with PickyBPE: --threshold reaches the trainer (the written tokenizer removes what
train_pickybpe removes at that threshold), 1 removes nothing, and misuse is refused with one clear line."""

from __future__ import annotations

import pytest

from tests._cli import run
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.pickybpe.trainer import train_pickybpe
from tokenizer_core.pipeline import Tokenizer

VOCAB = 400


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return list(load_sample("default").lines())[:400]


@pytest.fixture(scope="module")
def corpus(lines, tmp_path_factory):
    path = tmp_path_factory.mktemp("pickybpe-cli") / "corpus.txt"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def trained(corpus, out, *flags: str) -> Tokenizer:
    code, _ = run(["train", str(corpus), "--model", "pickybpe", "--vocab-size", str(VOCAB), "--special-tokens",
                   "<|endoftext|>", *flags, "-o", str(out), "-q"])
    assert code == 0
    return Tokenizer.load(out)


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
    out = tmp_path / "never.json"
    code, _ = run(["train", str(corpus), *flags, "-o", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
