"""The command line with Unigram: train, encode (also sampled), decode, export, import a .model."""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer as HFTokenizer

import tokenizer_core.io.sentencepiece  # noqa: F401  (registers the sentencepiece importer)
import tokenizer_core.unigram.model  # noqa: F401  (registers the unigram trainer)
from tests._cli import run
from tokenizer_core.pipeline import Tokenizer

CORPUS = (
    "The quick brown fox jumps over the lazy dog.\n"
    "Unigram keeps the pieces whose removal would cost the corpus the most likelihood.\n"
    "Hugging bears hug pugs; the pugs hug back, unhappily.\n"
) * 30


@pytest.fixture()
def trained(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    out = tmp_path / "uni.json"
    code, _ = run(["train", str(corpus), "--model", "unigram", "--vocab-size", "150", "-o", str(out), "-q"])
    assert code == 0
    return out


def test_train_encode_decode_round_trip(trained):
    tok = Tokenizer.load(trained)
    assert type(tok.model).__name__ == "Unigram"
    # A corpus of three distinct lines supports fewer pieces: EM drops the ones it never uses.
    assert len(set(CORPUS)) < tok.vocab_size <= 150
    text = "The lazy pugs hug the quick bears"
    code, out = run(["encode", "-t", str(trained)], stdin=text + "\n")
    assert code == 0
    ids = [int(x) for x in out.split()]
    assert ids == tok.encode(text).ids
    code, out = run(["encode", "-t", str(trained), "--tokens"], stdin=text + "\n")
    assert out.split() == tok.encode(text).tokens and out.startswith("▁")
    code, out = run(["decode", "-t", str(trained)], stdin=" ".join(map(str, ids)) + "\n")
    assert code == 0 and out == text + "\n"


def test_sampled_encoding_is_seeded_and_decodes_to_the_text(trained):
    text = "Hugging bears unhappily hug the lazy pugs"
    args = ["encode", "-t", str(trained), "--tokens", "--sample", "--alpha", "0.0"]
    outs = {run(args + ["--seed", str(seed)], stdin=text + "\n")[1] for seed in range(12)}
    assert len(outs) > 1  # alpha 0: uniform over segmentations, so seeds differ
    again = run(args + ["--seed", "3"], stdin=text + "\n")[1]
    assert again == run(args + ["--seed", "3"], stdin=text + "\n")[1]
    code, ids = run(["encode", "-t", str(trained), "--sample", "--alpha", "0.5", "--nbest-size", "4",
                     "--seed", "1"], stdin=text + "\n")
    assert code == 0
    code, back = run(["decode", "-t", str(trained)], stdin=ids)
    assert back == text + "\n"
    viterbi = run(["encode", "-t", str(trained), "--tokens"], stdin=text + "\n")[1]
    assert run(args[:-2] + ["--nbest-size", "1", "--seed", "5"], stdin=text + "\n")[1] == viterbi


def test_export_hf_encodes_identically_in_tokenizers(trained, tmp_path):
    target = tmp_path / "tokenizer.json"
    code, _ = run(["export", "-t", str(trained), "--format", "hf", "-o", str(target)])
    assert code == 0
    hf = HFTokenizer.from_file(str(target))
    tok = Tokenizer.load(trained)
    for text in CORPUS.splitlines()[:3] + ["  spaced   out\ttext ", "unseen Zebra ☃"]:
        ours = tok.encode(text)
        theirs = hf.encode(text)
        assert (ours.tokens, ours.ids) == (theirs.tokens, theirs.ids)


def test_import_sentencepiece_model(tmp_path):
    spm = pytest.importorskip("sentencepiece")
    spm.SentencePieceTrainer.train(sentence_iterator=iter(CORPUS.splitlines()), model_prefix=str(tmp_path / "sp"),
                                   vocab_size=45, model_type="unigram", minloglevel=2)
    out = tmp_path / "imported.json"
    code, _ = run(["import", str(tmp_path / "sp.model"), "--format", "sentencepiece", "-o", str(out)])
    assert code == 0
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "sp.model"))
    text = "The lazy bears hug the fox"
    code, got = run(["encode", "-t", str(out), "--no-special-tokens"], stdin=text + "\n")
    assert [int(x) for x in got.split()] == sp.encode(text)


def test_bad_input_exits_with_a_clear_message(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    code, _ = run(["train", str(corpus), "--model", "unigram", "--vocab-size", "10", "-o", str(tmp_path / "x.json"),
                   "-q"])
    assert code == 2
    assert "distinct characters" in capsys.readouterr().err
    junk = tmp_path / "junk.model"
    junk.write_bytes(b"not a model at all")
    code, _ = run(["import", str(junk), "--format", "sentencepiece", "-o", str(tmp_path / "y.json")])
    assert code == 2
