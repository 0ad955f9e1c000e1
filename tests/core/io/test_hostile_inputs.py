"""Hostile input in the core and the CLI: every file of tests/_hostile.py is refused with its own
clear message (a TokenizerError, exit status 2 and one line in the CLI, never a traceback); the
odd-but-valid ones load; training refuses a corpus with too many distinct words before training."""

from __future__ import annotations

import re

import pytest

from tests import _hostile
from tests._cli import run
from tokenizer_core import training
from tokenizer_core.corpus.decoding import decode_bytes
from tokenizer_core.corpus.loading import load_corpus
from tokenizer_core.errors import CorpusError, FormatError, TokenizerError
from tokenizer_core.io.uploads import import_files
from tokenizer_core.options import TrainOptions
from ui.corpus.upload import corpus_from_uploads, upload_columns

CORPUS = _hostile.corpus_files()
TOKENIZERS = _hostile.tokenizer_files()


@pytest.mark.parametrize("name, data, message", CORPUS, ids=[c[0] for c in CORPUS])
def test_hostile_corpus_files_are_refused_with_their_message(name, data, message):
    with pytest.raises(CorpusError, match=message):
        if name.endswith((".zip", ".jsonl")):  # the page asks for their columns first
            upload_columns([(name, data)])
        corpus_from_uploads([(name, data)])


@pytest.mark.parametrize("name, data, word", _hostile.corpus_files_accepted())
def test_odd_but_valid_corpus_files_load(name, data, word):
    assert word in corpus_from_uploads([(name, data)]).text


@pytest.mark.parametrize("name, data, message", TOKENIZERS, ids=[t[0] for t in TOKENIZERS])
def test_hostile_tokenizer_files_are_refused_with_their_message(name, data, message):
    with pytest.raises(FormatError, match=message):
        import_files([(name, data)])


@pytest.mark.parametrize("bom", [b"\xff\xfe", b"\xfe\xff"])
def test_utf8_behind_a_utf16_bom_is_not_read_as_utf16(bom):
    data = bom + "hug pug café\n".encode()
    with pytest.raises(CorpusError, match=f"starts with the bytes 0x{bom[0]:02X} 0x{bom[1]:02X}"):
        decode_bytes(data, label="x.txt")
    assert decode_bytes(data, errors="replace") == ("\ufffd\ufffdhug pug café\n", 2)


@pytest.mark.parametrize("text", ["日本語のテキスト「です」", "ぁ", "hug pug\n", "\u200a\u200a", "한국어"])
@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
def test_real_utf16_with_a_bom_still_decodes(text, codec):
    data = text.encode(codec) if codec == "utf-16" else ("\ufeff" + text).encode(codec)
    assert decode_bytes(data) == (text, 0)


def test_a_zip_member_that_lies_about_its_size_is_refused():
    # Small declared sizes: the reader stops at them and notices the bad checksum, never unpacking it all.
    with pytest.raises(CorpusError, match="liar.txt cannot be unpacked"):
        load_corpus(_small_liar(), name="liar.zip")


def test_the_zip_bomb_is_small_and_refused_by_its_declared_size(monkeypatch):
    import zipfile

    opened: list[str] = []
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, *a, **k: opened.append("open"))
    assert len(_hostile.zip_bomb()) < 2_000_000
    with pytest.raises(CorpusError, match="unpacked"):
        load_corpus(_hostile.zip_bomb(), name="bomb.zip")
    assert opened == []  # refused from the directory alone


def _small_liar() -> bytes:
    import io
    import struct
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("liar.txt", b"hug " * 1_000_000)
    data = bytearray(buf.getvalue())
    central = data.rfind(b"PK\x01\x02")
    struct.pack_into("<I", data, 22, 10)  # uncompressed size in the local header
    struct.pack_into("<I", data, central + 24, 10)  # and in the central directory
    return bytes(data)


@pytest.mark.parametrize("name, data, message", [c for c in CORPUS if c[0].endswith(".txt")][:8],
                         ids=[c[0] for c in CORPUS if c[0].endswith(".txt")][:8])
def test_the_cli_refuses_hostile_corpora_in_one_line(name, data, message, tmp_path, capsys):
    path = tmp_path / name
    path.write_bytes(data)
    code, _ = run(["train", str(path), "--model", "bpe", "--vocab-size", "300", "-o", str(tmp_path / "o.json"), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and re.search(message, err) and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv", [["import", "--format", "hf"], ["import", "--format", "own"],
                                  ["import", "--format", "tekken"], ["encode", "-t"]])
def test_the_cli_refuses_deeply_nested_json(argv, tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_bytes(_hostile.DEEP_JSON)
    extra = ["-o", str(tmp_path / "o.json")] if argv[0] == "import" else []
    code, _ = run([*argv, str(path), *extra], stdin="hug\n")
    err = capsys.readouterr().err
    assert code == 2 and "too deeply" in err and "Traceback" not in err


def test_a_100000_character_word_trains_every_subword_model():
    # Unigram skips the long line as SentencePiece does (max_sentence_length, 4,192 bytes) and
    # learns from the others, so they hold "hug" often enough for it to become a piece.
    lines = ["q" * 100_000 + " hug pug\n", *["hug pug pun bun hugs\n"] * 20]
    for model in ("bpe", "wordpiece", "unigram"):
        opts = TrainOptions(vocab_size=60, special_tokens=("<unk>",), unk_token="<unk>")
        tok = training.train(model, lines, options=opts)
        tokens = tok.encode("hug " + "q" * 100_000).tokens
        assert any("hug" in t for t in tokens) and len(tokens) >= 2, model


@pytest.mark.parametrize("model", sorted(training.MAX_DISTINCT_WORDS))
def test_a_corpus_over_the_distinct_word_limit_is_refused_before_training(model, monkeypatch):
    reached: list[str] = []

    def trainer(lines, *, options, progress):
        for _ in lines:  # a real trainer counts every line's words first
            pass
        reached.append("training")
        raise AssertionError("the trainer's heavy phase must not start")

    monkeypatch.setitem(training.TRAINERS, model, trainer)
    monkeypatch.setitem(training.MAX_DISTINCT_WORDS, model, 50)
    lines = [f"w{i} w{i + 1} hug\n" for i in range(0, 100, 2)]  # 101 distinct words
    with pytest.raises(TokenizerError, match=f"more than 50 distinct words, more than {model} training takes"):
        training.train(model, lines, options=TrainOptions())
    assert reached == []


def test_a_corpus_at_the_distinct_word_limit_trains(monkeypatch):
    monkeypatch.setitem(training.MAX_DISTINCT_WORDS, "bpe", 4)
    tok = training.train("bpe", ["hug pug hug\n", "pun bun\n"], options=TrainOptions(vocab_size=30))
    assert tok.encode("hug").tokens


@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece"])
def test_the_bpe_page_trains_within_the_same_word_limit(algorithm, monkeypatch):
    from tokenizer_core.corpus.documents import Corpus
    from ui.merges.settings import MergeSettings
    from ui.merges.training import train_run

    monkeypatch.setitem(training.MAX_DISTINCT_WORDS, algorithm, 50)
    corpus = Corpus("many", tuple(f"w{i} w{i + 1} hug\n" for i in range(0, 100, 2)))
    settings = MergeSettings(algorithm=algorithm, budget=20)
    with pytest.raises(TokenizerError, match=f"more than 50 distinct words, more than {algorithm} training takes"):
        train_run(corpus, settings)
    monkeypatch.setitem(training.MAX_DISTINCT_WORDS, algorithm, 101)
    assert train_run(corpus, settings).num_steps > 0


def test_a_wordpiece_vocabulary_with_an_id_past_32_bits_is_refused():
    from tokenizer_core.wordpiece.model import WordPiece

    with pytest.raises(TokenizerError, match="past the largest id a tokenizer may use"):
        WordPiece({"[UNK]": 0, "a": 2**32})
    assert WordPiece({"[UNK]": 0, "a": 2**32 - 1}).token_to_id("a") == 2**32 - 1  # the largest allowed


def test_a_tokenizer_json_with_a_byte_order_mark_loads_like_tokenizers_would_without_it(tmp_path):
    from tokenizers import Tokenizer as HfTokenizer

    from tokenizer_core.io.hf_json import load_hf_file

    plain = _hostile._bpe_json(_hostile.GOOD_VOCAB, _hostile.GOOD_MERGES)
    path = tmp_path / "tokenizer.json"
    path.write_bytes(b"\xef\xbb\xbf" + plain)
    ours = load_hf_file(path).encode("hug hug")
    reference = HfTokenizer.from_str(plain.decode("utf-8")).encode("hug hug")
    assert ours.ids == reference.ids and ours.tokens == reference.tokens
