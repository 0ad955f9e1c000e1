"""SentencePiece's trainer options in our Unigram trainer, checked against ``sentencepiece`` itself:
the seed pieces its suffix array finds, ``character_coverage`` and ``split_by_number``."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from tests._cli import run
from tokenizer_core.options import TrainOptions, UnigramOptions
from tokenizer_core.training import train
from tokenizer_core.unigram import trainer as T
from tokenizer_core.unigram.line_ends import LineEnds
from tokenizer_core.unigram.seed import seed_pieces

spm = pytest.importorskip("sentencepiece")

# Scripture-style lines (book, chapter:verse) and Japanese without spaces: the two kinds of text
# where our seeds once differed from SentencePiece's (word ends; characters sharing a first byte).
_WORDS = "in the beginning was the word and the word was with them all the days of their lives".split()
LINES = [f"{['Jeremiah', 'John', 'Acts'][i % 3]} {i % 7 + 1}:{i % 11 + 1}: "
         + " ".join(_WORDS[(i * 5 + k) % len(_WORDS)] for k in range(6 + i % 5)) for i in range(300)]
JA = ["サポートされていないバージョンです。", "データベースサーバーに接続できませんでした。", "ファイルを開けませんでした。",
      "サーバーが応答しません。", "メモリーが不足しています。", "コマンドを実行できません。"]
JA_LINES = ["".join(JA[(i + k) % len(JA)] for k in range(1 + i % 4)) + f" {i % 9}件" for i in range(120)]


def _sp_seed_count(tmp_path, lines: list[str]) -> int:
    """How many seed pieces (characters left out) SentencePiece's trainer reports finding."""
    corpus = tmp_path / "seed.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = ("import sentencepiece as spm; spm.SentencePieceTrainer.train("
            f"input={str(corpus)!r}, model_prefix={str(tmp_path / 'seed')!r}, vocab_size=2000, "
            "model_type='unigram', character_coverage=1.0, hard_vocab_limit=False)")
    log = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stderr
    seeds = int(re.search(r"Initialized (\d+) seed", log).group(1))
    return seeds - int(re.search(r"Alphabet size=(\d+)", log).group(1))


def _our_seed_count(lines: list[str]) -> int:
    parts = T.unigram_components()
    ends = LineEnds(line + "\n" for line in lines)
    counts = T.count_words(ends, normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"])
    final = ends.words(normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"])
    last = ends.last_word(normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"])
    words = T._training_words(Counter(counts), max_word_length=4192)
    pieces, _ = seed_pieces(words, words.runs(split_by_script=True, split_digits=False), max_len=16, seed_size=10**6,
                      line_final=np.array([final.get(w, 0) for w in words.words], dtype=np.float64),
                      corpus_last=words.words.index(last))
    return len(pieces) - len({ch for w in counts for ch in w})


@pytest.mark.parametrize("lines", [LINES, JA_LINES], ids=["scripture", "japanese"])
def test_seed_pieces_are_as_many_as_sentencepieces(tmp_path, lines):
    assert _our_seed_count(lines) == _sp_seed_count(tmp_path, lines)


def _alphabet_sp(tmp_path, lines: list[str], **options) -> set[str]:
    corpus = tmp_path / "cov.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "cov"), vocab_size=200,
                                   model_type="unigram", minloglevel=2, hard_vocab_limit=False, **options)
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "cov.model"))
    return {p for p in (sp.id_to_piece(i) for i in range(3, sp.get_piece_size())) if len(p) == 1}


def _alphabet_ours(lines: list[str], **options) -> set[str]:
    tok = train("unigram", [line + "\n" for line in lines],
                options=TrainOptions(vocab_size=200, special_tokens=("<unk>", "<s>", "</s>"), unk_token="<unk>",
                                     unigram=UnigramOptions(**options)))
    return set(tok.model.training.alphabet)


def test_character_coverage_keeps_the_characters_sentencepiece_keeps(tmp_path):
    # 300 lines of ~60 characters; "é" 3 times and "ß" once: below 0.9995 of the text together.
    lines = LINES[:-4] + ["café " + LINES[-4], "café " + LINES[-3], "café " + LINES[-2], "straße " + LINES[-1]]
    default, full = _alphabet_ours(lines), _alphabet_ours(lines, character_coverage=1.0)
    assert default == _alphabet_sp(tmp_path, lines)
    assert full == _alphabet_sp(tmp_path, lines, character_coverage=1.0)
    assert "ß" in full - default


def test_rare_characters_become_unknown_tokens():
    lines = [line + "\n" for line in LINES] + ["straße\n"]
    tok = train("unigram", lines, options=TrainOptions(vocab_size=200, special_tokens=("<unk>",), unk_token="<unk>"))
    assert "ß" not in tok.model.training.alphabet
    unk = tok.model.unk_id
    assert tok.encode("straße").ids.count(unk) == 1 and tok.encode("strasse").ids.count(unk) == 0


def test_split_by_number_off_lets_digits_join_letters_as_in_sentencepiece(tmp_path):
    lines = [f"x{i % 10} y{i % 10}z item{i % 4}" for i in range(400)]
    def mixed(pieces: set[str]) -> set[str]:
        return {p for p in pieces if re.search(r"\d", p) and re.search(r"[a-z]", p)}
    corpus = tmp_path / "num.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = {}
    for flag in (True, False):
        spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "num"), vocab_size=60,
                                       model_type="unigram", minloglevel=2, hard_vocab_limit=False,
                                       split_by_number=flag)
        sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "num.model"))
        ours = train("unigram", [line + "\n" for line in lines],
                     options=TrainOptions(vocab_size=60, special_tokens=("<unk>", "<s>", "</s>"), unk_token="<unk>",
                                          unigram=UnigramOptions(split_by_number=flag)))
        found[flag] = (mixed({sp.id_to_piece(i) for i in range(sp.get_piece_size())}),
                       mixed({p for p, _ in ours.model.pieces}))
    assert found[True] == (set(), set())
    assert found[False][0] and found[False][1]


def test_the_command_line_takes_sentencepiece_names(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(LINES) + "\nstraße\n", encoding="utf-8")
    out = tmp_path / "u.json"
    code, _ = run(["train", str(corpus), "--model", "unigram", "--vocab-size", "200", "--character-coverage", "1.0",
                   "--no-split-by-number", "--special-tokens", "<unk>", "--unk-token", "<unk>", "-o", str(out), "-q"])
    assert code == 0
    code, _ = run(["train", str(corpus), "--model", "bpe", "--character-coverage", "1.0", "-o", str(tmp_path / "b.json")])
    assert code == 2 and "--character-coverage applies to --model unigram only" in capsys.readouterr().err
