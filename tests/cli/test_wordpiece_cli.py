"""The command line with WordPiece: train, encode, decode, export to tokenizer.json, import a vocab.txt."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer

import tokenizer_core.io.vocab_txt  # noqa: F401  (registers the bert-vocab importers)
import tokenizer_core.wordpiece.model  # noqa: F401  (registers the wordpiece trainer)
from tests._cli import run
from tokenizer_core.pipeline import Tokenizer

CORPUS = (
    "The quick brown fox jumps over the lazy dog.\n"
    "Tokenizers split words into pieces; WordPiece keeps the pieces that explain the corpus best.\n"
    "Unaffable people rarely say hello, but the dog jumps anyway!\n"
) * 20


@pytest.fixture()
def trained(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    out = tmp_path / "wp.json"
    code, _ = run(["train", str(corpus), "--model", "wordpiece", "--vocab-size", "120", "--lowercase",
                   "-o", str(out), "-q"])
    assert code == 0
    return out


def test_train_encode_decode_round_trip(trained):
    tok = Tokenizer.load(trained)
    assert type(tok.model).__name__ == "WordPiece"
    assert tok.vocab_size == 120
    assert tok.special_tokens == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]  # BERT's, not the package default
    text = "The lazy fox says hello"
    code, out = run(["encode", "-t", str(trained)], stdin=text + "\n")
    assert code == 0
    ids = [int(x) for x in out.split()]
    assert ids == tok.encode(text).ids
    assert ids[0] == tok.token_to_id("[CLS]") and ids[-1] == tok.token_to_id("[SEP]")
    code, out = run(["encode", "-t", str(trained), "--tokens", "--no-special-tokens"], stdin=text + "\n")
    assert out.split() == tok.encode(text, add_special_tokens=False).tokens
    code, out = run(["decode", "-t", str(trained)], stdin=" ".join(map(str, ids)) + "\n")
    assert code == 0 and out == "the lazy fox says hello\n"


def test_export_hf_encodes_identically_in_tokenizers(trained, tmp_path):
    target = tmp_path / "tokenizer.json"
    code, _ = run(["export", "-t", str(trained), "--format", "hf", "-o", str(target)])
    assert code == 0
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["model"]["type"] == "WordPiece" and data["normalizer"]["type"] == "BertNormalizer"
    assert data["pre_tokenizer"]["type"] == "BertPreTokenizer" and data["decoder"]["type"] == "WordPiece"
    ref = HFTokenizer.from_file(str(target))
    ours = Tokenizer.load(trained)
    for line in CORPUS.splitlines()[:3] + ["Ünaffable DOGS jump; [MASK] über naïve 東京!", "a", ""]:
        got, exp = ours.encode(line, "second part"), ref.encode(line, "second part")
        assert (got.tokens, got.ids, got.type_ids, got.offsets) == (exp.tokens, exp.ids, exp.type_ids, exp.offsets)
        assert ours.decode(exp.ids) == ref.decode(exp.ids)


def test_course_sample_through_the_cli(tmp_path):
    out = tmp_path / "hug.json"
    code, _ = run(["train", "--sample", "hf-course-hug-pug", "--model", "wordpiece", "--special-tokens", "[UNK]",
                   "--vocab-size", "11", "-o", str(out), "-q"])
    assert code == 0
    # alphabet (7) + [UNK] = 8 entries; 3 merges: ##gs, hu, hugs (see test_wordpiece_train)
    tok = Tokenizer.load(out)
    assert sorted(tok.get_vocab(), key=tok.get_vocab().get)[-3:] == ["##gs", "hu", "hugs"]
    code, text = run(["encode", "-t", str(out), "--tokens"], stdin="hugs bugs mug\n")
    assert text.split() == ["hugs", "b", "##u", "##gs", "[UNK]"]


def test_import_bert_vocab(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hug", "##s", "Hug", "!"]) + "\n",
                     encoding="utf-8")
    uncased, cased = tmp_path / "uncased.json", tmp_path / "cased.json"
    assert run(["import", str(vocab), "--format", "bert-vocab", "-o", str(uncased)])[0] == 0
    assert run(["import", str(vocab), "--format", "bert-vocab-cased", "-o", str(cased)])[0] == 0
    assert run(["encode", "-t", str(uncased), "--tokens"], stdin="Hugs!\n")[1].split() == [
        "[CLS]", "hug", "##s", "!", "[SEP]"]
    assert run(["encode", "-t", str(cased), "--tokens"], stdin="Hugs!\n")[1].split() == [
        "[CLS]", "Hug", "##s", "!", "[SEP]"]


def test_bad_settings_exit_with_a_message(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello\n", encoding="utf-8")
    code, _ = run(["train", str(corpus), "--model", "wordpiece", "--vocab-size", "0", "-o", str(tmp_path / "x")])
    assert code == 2 and "vocab_size" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n", encoding="utf-8")
    code, _ = run(["train", str(empty), "--model", "wordpiece", "-o", str(tmp_path / "y")])
    assert code == 2 and "error:" in capsys.readouterr().err
