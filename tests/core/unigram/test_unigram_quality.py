"""Unigram quality against SentencePiece on text without spaces: long Japanese lines are trained on
(not dropped by the word-length limit), "ー" stays inside katakana words, and ``--max-word-length``
reaches the trainer from the command line."""

from __future__ import annotations

import pytest

from tests._cli import run
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import DEFAULT_MAX_WORD_LENGTH, TrainOptions, UnigramOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.unigram.words import _script_of

# Real Japanese sentences, written as Japanese prose is: one long line, no spaces.
SENTENCES = [
    "サポートされていないバージョンです。", "データベースサーバーに接続できませんでした。",
    "パスワードを再入力してください。", "ファイルを開けませんでした。", "サーバーが応答しません。",
    "ユーザーのパスワードを変更しています。", "メモリーが不足しています。", "コマンドを実行できません。",
]
PARAGRAPH = "".join(SENTENCES * 3)  # ~400 characters: over the old limit of 256


def test_the_default_keeps_words_as_long_as_sentencepiece_sentences():
    assert DEFAULT_MAX_WORD_LENGTH == UnigramOptions().max_word_length == 4192
    assert len(PARAGRAPH) > 256


def test_prolonged_sound_mark_is_kana_like_in_sentencepiece():
    assert {_script_of(c) for c in "サーバー々"} == {"HAN"}
    assert _script_of("a") == "LATIN" and _script_of("、") == "COMMON"


def _train(tmp_path, lines, *extra):
    corpus = tmp_path / "ja.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "ja.json"
    code, _ = run(["train", str(corpus), "--model", "unigram", "--vocab-size", "160", "-o", str(out), "-q", *extra])
    assert code == 0
    return Tokenizer.load(out)


def test_long_space_free_lines_are_learned_from(tmp_path):
    # Sentences numbered in turn, so what follows each varies in its first UTF-8 byte: only then is
    # it a seed for SentencePiece's byte-level suffix array (kana and kanji all start E3-E9), and
    # without "。", which is of another script. SentencePiece learns these very sentences.
    lines = ["".join(f"{(i + k) % 10}{s.rstrip('。')}" for k, s in enumerate(SENTENCES * 3)) for i in range(10)] * 2
    assert min(len(line) for line in lines) > 256
    learned = _train(tmp_path, lines)
    dropped = _train(tmp_path, lines, "--max-word-length", "256")
    text = SENTENCES[4].rstrip("。") + SENTENCES[6].rstrip("。")
    assert len(learned.encode(text).ids) < len(dropped.encode(text).ids)
    # With the old limit only characters are learned from a paragraph; now whole words are.
    assert max(len(p) for p, _ in dropped.model.pieces if not p.startswith("[")) == 1
    assert any(len(p) >= 4 and "ー" in p for p, _ in learned.model.pieces)


def test_max_word_length_is_checked_and_unigram_only(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("hug pug\n", encoding="utf-8")
    code, _ = run(["train", str(corpus), "--model", "bpe", "--max-word-length", "10", "-o", str(tmp_path / "b.json")])
    assert code == 2 and "--max-word-length applies to --model unigram only" in capsys.readouterr().err
    code, _ = run(["train", str(corpus), "--model", "unigram", "--max-word-length", "0", "-o", str(tmp_path / "u.json")])
    assert code == 2 and "max_word_length must be a positive whole number" in capsys.readouterr().err
    with pytest.raises(TokenizerError):
        TrainOptions(unigram=UnigramOptions(max_word_length=-5))
