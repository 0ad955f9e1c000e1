"""SentencePiece's ``max_sentence_length`` in our Unigram trainer: lines longer than it (in UTF-8
bytes) are left out of training, by both trainers alike."""

from __future__ import annotations

import pytest

from tests._cli import run
from tokenizer_core.options import TrainOptions, UnigramOptions
from tokenizer_core.training import train

spm = pytest.importorskip("sentencepiece")

_WORDS = "in the beginning was the word and the word was with them all the days of their lives".split()
LINES = [" ".join(_WORDS[(i * 5 + k) % len(_WORDS)] for k in range(6 + i % 5)) for i in range(300)]
# 3,199 characters but 5,599 bytes: over the default limit of 4,192 only when counted in bytes.
LONG = " ".join(["жук"] * 800)
_SPECIALS = ("<unk>", "<s>", "</s>")


def _sp_pieces(tmp_path, lines: list[str], **options) -> set[str]:
    corpus = tmp_path / "sp.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "sp"), vocab_size=120,
                                   model_type="unigram", minloglevel=2, hard_vocab_limit=False,
                                   character_coverage=1.0, **options)
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "sp.model"))
    return {sp.id_to_piece(i) for i in range(sp.get_piece_size())}


def _our_pieces(lines: list[str], **options) -> set[str]:
    tok = train("unigram", [line + "\n" for line in lines],
                options=TrainOptions(vocab_size=120, special_tokens=_SPECIALS, unk_token="<unk>",
                                     unigram=UnigramOptions(character_coverage=1.0, **options)))
    return {p for p, _ in tok.model.pieces}


def test_a_line_over_the_limit_is_skipped_by_both(tmp_path):
    with_long = LINES[:150] + [LONG] + LINES[150:]
    sp_without, sp_with = _sp_pieces(tmp_path, LINES), _sp_pieces(tmp_path, with_long)
    ours_without, ours_with = _our_pieces(LINES), _our_pieces(with_long)
    # Skipped: training on the corpus with the long line gives exactly the pieces without it.
    assert sp_with == sp_without and ours_with == ours_without
    assert "ж" not in ours_with and "ж" not in sp_with


def test_a_raised_limit_keeps_the_line_in_both(tmp_path):
    with_long = LINES + [LONG]
    sp_pieces = _sp_pieces(tmp_path, with_long, max_sentence_length=6000)
    ours = _our_pieces(with_long, max_sentence_length=6000)
    assert {"ж", "у", "к"} <= sp_pieces and {"ж", "у", "к"} <= ours


def test_the_limit_counts_bytes_without_the_newline():
    line = "é" * 50  # 100 bytes
    kept = _our_pieces(LINES + [line], max_sentence_length=100)
    skipped = _our_pieces(LINES + [line], max_sentence_length=99)
    assert "é" in kept and "é" not in skipped


def test_the_command_line_and_options_take_it(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(LINES) + "\n" + LONG + "\n", encoding="utf-8")
    out = tmp_path / "u.json"
    code, _ = run(["train", str(corpus), "--model", "unigram", "--vocab-size", "120", "--max-sentence-length", "6000",
                   "--character-coverage", "1.0", "--special-tokens", "<unk>", "--unk-token", "<unk>",
                   "-o", str(out), "-q"])
    assert code == 0 and "ж" in out.read_text(encoding="utf-8")
    code, _ = run(["train", str(corpus), "--model", "bpe", "--max-sentence-length", "10", "-o", str(tmp_path / "b.json")])
    assert code == 2 and "--max-sentence-length applies to --model unigram only" in capsys.readouterr().err
    with pytest.raises(ValueError, match="max_sentence_length"):
        UnigramOptions(max_sentence_length=0)
