"""Counting once into a counts file and training from it (issue #30, local engine).

The counts file must hold exactly what the trainer would count (piece for piece, in order of first
appearance, with Unigram's line ends), whatever the partitioning; training from it must give the
tokenizer training on the files gives, and the same merges as tokenizers' BpeTrainer.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._cli import run
from tests._paths import ROOT
from tests.core.bpe.test_bpe_train import hf_train, keep_last
from tokenizer_core.corpus.loading import load_corpus
from tokenizer_core.corpus.streaming import stream_lines
from tokenizer_core.counts import readers
from tokenizer_core.counts.engines import CountJob, count_local, count_partition
from tokenizer_core.counts.inputs import describe, expand, partitions
from tokenizer_core.counts.readers import lines_of
from tokenizer_core.counts.spec import CountSpec, Partial, combine
from tokenizer_core.counts.training import check_header, counts_file, train_from_counts
from tokenizer_core.counts.tsv import CountsFile, CountsFormatError, escape, read_counts, unescape, write_counts
from tokenizer_core.errors import CorpusError, TokenizerError
from tokenizer_core.options import BpeOptions, TrainOptions, UnigramOptions
from tokenizer_core.training import train

SAMPLES = ROOT / "tokenizer_core" / "corpus" / "samples"
_PROBE = "Lowest newer WIDEST héllo wörld, 1,000 tokens! 中文 ünïcode"


def _corpus_dir(tmp_path: Path) -> Path:
    """Five sample texts plus a generated file large enough to be split into many ranges."""
    d = tmp_path / "corpus"
    d.mkdir()
    for f in sorted(SAMPLES.glob("*.txt")):
        (d / f.name).write_bytes(f.read_bytes())
    rng = random.Random(7)
    words = ["the", "lower", "newest", "wïdest", "hug", "pugs", "中文", "tokens,", "x<y>", "über"]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for _ in range(3000)]
    (d / "zz-generated.txt").write_text("\n".join(lines) + "\nlast line without newline", encoding="utf-8")
    return d


def _raw_lines(d: Path) -> list[str]:
    return [line for f in sorted(d.iterdir()) for line in stream_lines(f)]


# ------------------------------------------------------------------------------------------ counts file


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(alphabet=st.sampled_from("ab\\\t\n\r ▁é😀<>&\"#"), min_size=1, max_size=8),
                       st.integers(1, 10**12), min_size=1, max_size=20))
def test_counts_file_round_trips_any_piece_in_order(counts: dict[str, int]) -> None:
    buf = io.StringIO()
    write_counts(buf, CountsFile(dict(counts), facts={"model": "bpe"}))
    back = read_counts(io.StringIO(buf.getvalue()))
    assert list(back.counts.items()) == list(counts.items())
    assert all("\t" not in line.split("\t", 1)[0] for line in buf.getvalue().splitlines()[1:])


def test_escapes_are_the_documented_ones() -> None:
    assert escape("a\\b\tc\nd\re") == "a\\\\b\\tc\\nd\\re"
    assert unescape("a\\\\b\\tc\\nd\\re") == "a\\b\tc\nd\re"
    # "\\t" written as two characters: a backslash and a t, never a tab.
    assert unescape(escape("\\t")) == "\\t"


@pytest.mark.parametrize("text, message", [
    ("piece\t3\n", "line 1: a counts file starts with"),
    ("# tokenizer-playground counts 2\na\t1\n", "version 2"),
    ("# tokenizer-playground counts 1\na\t1\t2\n", "line 2: expected 2 tab-separated columns, found 3"),
    ("# tokenizer-playground counts 1\na\tmany\n", "line 2: count 'many' is not a whole number"),
    ("# tokenizer-playground counts 1\na\t0\n", "line 2: count 0 must be at least 1"),
    ("# tokenizer-playground counts 1\na\t-3\n", "is not a whole number"),
    ("# tokenizer-playground counts 1\na\\q\t1\n", "line 2: unknown escape"),
    ("# tokenizer-playground counts 1\n\t1\n", "line 2: an empty piece"),
    ("# tokenizer-playground counts 1\n# columns: piece count line_final\na\t1\t2\n", "line_final 2 is more"),
    ("# tokenizer-playground counts 1\n# columns: word n\na\t1\n", "columns 'word n'"),
    ("# tokenizer-playground counts 1\n# model: bpe\n", "no pieces after the header"),
    ("# tokenizer-playground counts 1\na\t١\n", "is not a whole number"),  # an Arabic-Indic digit
])
def test_malformed_counts_files_say_which_line(text: str, message: str) -> None:
    with pytest.raises(CountsFormatError, match=message):
        read_counts(io.StringIO(text))


def test_windows_line_ends_are_read_and_a_pieces_own_carriage_return_kept(tmp_path: Path) -> None:
    path = tmp_path / "crlf.tsv"
    path.write_bytes(b"# tokenizer-playground counts 1\r\n# model: bpe\r\nhug\t5\r\npu\\rg\t2\r\n")
    data = read_counts(path)
    assert data.counts == {"hug": 5, "pu\rg": 2} and data.facts["model"] == "bpe"


def test_reading_adds_repeated_pieces_and_refuses_too_many(tmp_path: Path) -> None:
    text = "# tokenizer-playground counts 1\na\t2\nb\t1\na\t3\n"
    assert read_counts(io.StringIO(text)).counts == {"a": 5, "b": 1}
    with pytest.raises(TokenizerError, match="more than 1 distinct pieces"):
        read_counts(io.StringIO(text), max_pieces=1)
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"# tokenizer-playground counts 1\n\xff\t1\n")
    with pytest.raises(CountsFormatError, match="not UTF-8"):
        read_counts(bad)
    with pytest.raises(TokenizerError, match="no such counts file"):
        read_counts(tmp_path / "missing.tsv")


# ------------------------------------------------------------------------------------------ inputs


def test_expand_takes_files_directories_and_globs_once_each(tmp_path: Path) -> None:
    d = tmp_path / "in"
    (d / "sub").mkdir(parents=True)
    for name in ("a.txt", "sub/b.jsonl.gz", "sub/c.parquet", "notes.pdf", "empty.txt"):
        (d / name).write_bytes(b"" if name == "empty.txt" else b"x")
    names = [s.path.relative_to(d).as_posix() for s in expand([str(d), str(d / "**" / "*.txt"), str(d / "a.txt")])]
    assert names == ["a.txt", "sub/b.jsonl.gz", "sub/c.parquet"]  # sorted, no pdf, no empty file, no repeats
    with pytest.raises(CorpusError, match="cannot read files ending in .pdf"):
        expand([str(d / "notes.pdf")])
    with pytest.raises(CorpusError, match="no such file"):
        expand([str(d / "nope.txt")])
    with pytest.raises(CorpusError, match="no readable files match"):
        expand([str(d / "*.csv")])
    with pytest.raises(CorpusError, match="is empty"):
        expand([str(d / "empty.txt")])
    assert describe(Path("x.csv.bz2")) == ("csv", "bz2") and describe(Path("x.TSV.XZ")) == ("tsv", "lzma")


@pytest.mark.parametrize("block", [1, 5, 1 << 22])
def test_byte_ranges_give_the_lines_of_the_whole_file(tmp_path: Path, block: int, monkeypatch) -> None:
    monkeypatch.setattr(readers, "_BLOCK", block)
    rng = random.Random(block)
    path = tmp_path / "t.txt"
    for trial in range(120):
        text = "".join(rng.choice(["a", "é", "€", "😀", "\n", "\r\n", " ", "\n\n", "\t"]) for _ in range(rng.randint(1, 50)))
        if not text.strip():
            continue
        path.write_bytes((b"\xef\xbb\xbf" if trial % 5 == 0 else b"") + text.encode())
        want = list(stream_lines(path))
        for size in (1, 2, 3, 7, 16, 1000):
            got = [line for part in partitions(expand([str(path)]), part_bytes=size) for line in lines_of(part)]
            assert got == want, (text, size)


@pytest.mark.parametrize("suffix, pack", [(".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress),
                                          (".zst", None)])
def test_compressed_files_give_the_plain_lines(tmp_path: Path, suffix: str, pack) -> None:
    if pack is None:
        zstandard = pytest.importorskip("zstandard")
        pack = zstandard.ZstdCompressor().compress
    text = "héllo wörld\r\nsecond line\n\nthird 😀 line without newline"
    plain = tmp_path / "p.txt"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / f"p.txt{suffix}"
    packed.write_bytes(pack(text.encode()))
    [part] = partitions(expand([str(packed)]))
    assert list(lines_of(part)) == list(stream_lines(plain))


def test_tables_give_the_lines_the_loader_gives(tmp_path: Path) -> None:
    docs = ["first doc\nwith two lines", "  ", "<b>third</b> 中文\n", "last"]
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text("\n".join(json.dumps({"id": i, "text": t}) for i, t in enumerate(docs)) + "\n", encoding="utf-8")
    with (tmp_path / "d.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "text"])
        w.writerows(enumerate(docs))
    for name in ("d.jsonl", "d.csv"):
        [part] = partitions(expand([str(tmp_path / name)]))
        assert list(lines_of(part)) == list(load_corpus(tmp_path / name).lines()), name
    (tmp_path / "d.jsonl.gz").write_bytes(gzip.compress(jsonl.read_bytes()))
    [part] = partitions(expand([str(tmp_path / "d.jsonl.gz")]))
    assert list(lines_of(part)) == list(load_corpus(jsonl).lines())
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"n": list(range(len(docs))), "text": docs}), tmp_path / "d.parquet", row_group_size=2)
    [part] = partitions(expand([str(tmp_path / "d.parquet")]))
    assert list(lines_of(part)) == list(load_corpus(jsonl).lines())
    with pytest.raises(CorpusError, match="no column 'body'"):
        list(lines_of(part, text_column="body"))


def test_bad_text_is_named_with_its_file_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"good line\n" * 10 + b"bad \xff byte\n" + b"more\n" * 10)
    parts = partitions(expand([str(path)]), part_bytes=40)
    with pytest.raises(CorpusError, match=r"bad.txt: not valid UTF-8 at byte 104"):
        for part in parts:
            list(lines_of(part))
    png = tmp_path / "image.txt"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    with pytest.raises(CorpusError, match="PNG image"):
        list(lines_of(partitions(expand([str(png)]), part_bytes=100)[0]))
    gone = partitions(expand([str(path)]))[0]
    path.unlink()
    with pytest.raises(CorpusError, match="the file is gone"):
        list(lines_of(gone))


# ------------------------------------------------------------------------------------------ counting


@pytest.mark.parametrize("model", ["bpe", "wordpiece", "unigram"])
def test_partial_counts_summed_in_any_order_equal_one_count(tmp_path: Path, model: str) -> None:
    spec = CountSpec(model, TrainOptions(lowercase=model != "unigram"))
    d = _corpus_dir(tmp_path)
    parts = partitions(expand([str(d)]), part_bytes=2000)
    assert len(parts) > 20
    whole = count_local(CountJob(spec, parts), threads=1)
    partials = [count_partition(p, spec) for p in parts]
    rng = random.Random(3)
    while len(partials) > 1:  # neighbours summed in a random order: what a cluster's tasks do
        i = rng.randrange(len(partials) - 1)
        partials[i:i + 2] = [combine(partials[i + 1], partials[i]) if rng.random() < 0.5
                             else combine(partials[i], partials[i + 1])]
    [summed] = partials
    assert list(summed.counts.items()) == list(whole.counts.items())
    assert summed.line_final == whole.line_final and summed.last_piece == whole.last_piece
    assert summed.lines == whole.lines == len(_raw_lines(d))
    if model == "unigram":
        assert whole.last_piece == "▁newline" and whole.line_final


def test_a_corpus_over_the_piece_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    path.write_text(" ".join(f"w{i}" for i in range(500)), encoding="utf-8")
    job = CountJob(CountSpec("bpe"), partitions(expand([str(path)])), max_pieces=100)
    with pytest.raises(TokenizerError, match="more than 100 distinct pieces"):
        count_local(job)
    with pytest.raises(TokenizerError, match="more than 2 distinct"):
        combine(Partial({"a": 1, "b": 1}), Partial({"c": 1}, first=1, last=1), max_pieces=2)


# ------------------------------------------------------------------------------------------ training


_CASES = [
    ("bpe", TrainOptions(vocab_size=500)),
    ("bpe", TrainOptions(vocab_size=600, byte_level=True, top_k=0)),
    ("bpe", TrainOptions(num_merges=80, end_of_word_suffix="</w>", bpe=BpeOptions(tie_break="first"))),
    ("wordpiece", TrainOptions(vocab_size=500)),
    ("wordpiece", TrainOptions(vocab_size=500, lowercase=True)),
    ("unigram", TrainOptions(vocab_size=700, special_tokens=("<unk>",), unk_token="<unk>")),
    ("unigram", TrainOptions(vocab_size=700, special_tokens=("<unk>", "<s>"), unk_token="<unk>", lowercase=True,
                             unigram=UnigramOptions(max_sentence_length=60))),
]


@pytest.mark.parametrize("model, options", _CASES, ids=[f"{m}-{i}" for i, (m, _) in enumerate(_CASES)])
def test_training_from_the_counts_file_equals_training_on_the_files(tmp_path: Path, model: str,
                                                                    options: TrainOptions) -> None:
    d = _corpus_dir(tmp_path)
    raw = train(model, iter(_raw_lines(d)), options=options)
    spec = CountSpec(model, options)
    partial = count_local(CountJob(spec, partitions(expand([str(d)]), part_bytes=3000)))
    path = tmp_path / "c.tsv"
    write_counts(path, counts_file(spec, partial))
    tok = train_from_counts(model, read_counts(path), options=options)
    assert tok.to_dict() == raw.to_dict()
    assert tok.encode(_PROBE).tokens == raw.encode(_PROBE).tokens


def test_bpe_from_counts_gives_tokenizers_merges(tmp_path: Path) -> None:
    d = _corpus_dir(tmp_path)
    options = TrainOptions(vocab_size=400, special_tokens=(), unk_token=None, pre_tokenizer="whitespace")
    spec = CountSpec("bpe", options)
    partial = count_local(CountJob(spec, partitions(expand([str(d)]), part_bytes=5000)))
    path = tmp_path / "c.tsv"
    write_counts(path, counts_file(spec, partial))
    model = train_from_counts("bpe", read_counts(path), options=options).model
    merges, vocab = hf_train(iter(_raw_lines(d)), byte_level=False, vocab_size=400)
    assert keep_last(list(model.merges)) == keep_last(merges)
    assert model.get_vocab() == vocab


def test_counts_made_another_way_are_refused_or_noted(tmp_path: Path) -> None:
    spec = CountSpec("bpe", TrainOptions(pre_tokenizer="whitespace-split"))
    data = counts_file(spec, spec.count(["hug pug, hugs\n"]))
    with pytest.raises(TokenizerError, match="pre tokenizer .*WhitespaceSplit.*count again"):
        train_from_counts("bpe", data, options=TrainOptions(vocab_size=30))
    uni = CountSpec("unigram", TrainOptions())
    udata = counts_file(uni, uni.count(["hug pug\n"]))
    with pytest.raises(TokenizerError, match="max sentence length 4192"):
        train_from_counts("unigram", udata, options=TrainOptions(unigram=UnigramOptions(max_sentence_length=10)))
    spark = read_counts(io.StringIO("# tokenizer-playground counts 1\n▁hug\t5\n▁pug\t2\n"))
    notes = check_header(spark, CountSpec("unigram", TrainOptions()))
    assert any("normalizer" in n for n in notes) and any("line_final" in n for n in notes)
    tok = train_from_counts("unigram", spark, options=TrainOptions(vocab_size=12))
    assert tok.encode("hug").tokens == ["▁hug"]


# ------------------------------------------------------------------------------------------ command line


def test_cli_count_then_train_equals_train_on_the_files(tmp_path: Path, capsys) -> None:
    d = _corpus_dir(tmp_path)
    counts, a, b = tmp_path / "c.tsv", tmp_path / "a.json", tmp_path / "b.json"
    assert run(["count", str(d / "*.txt"), "--model", "wordpiece", "--lowercase", "--partition-mb", "0.002",
                "-o", str(counts)])[0] == 0
    assert "distinct pieces" in capsys.readouterr().err
    header = [line for line in counts.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    assert '# normalizer: {"clean_text": true' in "\n".join(header) and "# files: 6" in header
    assert run(["train", "--from-counts", str(counts), "--model", "wordpiece", "--lowercase", "--vocab-size", "400",
                "-o", str(a), "-q"])[0] == 0
    assert run(["train", str(d), "--model", "wordpiece", "--lowercase", "--vocab-size", "400", "-o", str(b), "-q"])[0] == 0
    assert json.loads(a.read_text()) == json.loads(b.read_text())


@pytest.mark.parametrize("argv, message", [
    (["count", "{d}/missing.txt", "-o", "{d}/o.tsv"], "no such file"),
    (["count", "{d}/bad.txt", "-o", "{d}/o.tsv"], "bad.txt.*UTF-8"),
    (["count", "{d}/ok.txt", "--model", "word", "-o", "{d}/o.tsv"], "invalid choice"),
    (["count", "{d}/ok.txt", "--scheduler", "tcp://127.0.0.1:1", "-o", "{d}/o.tsv"], "apply to --engine dask only"),
    (["count", "{d}/ok.txt", "--byte-level", "--model", "unigram", "-o", "{d}/o.tsv"], "--byte-level applies"),
    (["count", "{d}/ok.txt", "--min-count", "9", "-o", "{d}/o.tsv"], "lower --min-count"),
    (["count", "{d}/ok.txt", "--pre-tokenizer", "nonsense", "-o", "{d}/o.tsv"], "nonsense"),
    (["train", "{d}/ok.txt", "--from-counts", "{d}/c.tsv", "--model", "bpe", "-o", "{d}/o.json"], "not both"),
    (["train", "--from-counts", "{d}/c.tsv", "--model", "char", "-o", "{d}/o.json"], "trains bpe, wordpiece, unigram"),
    (["train", "--from-counts", "{d}/ok.txt", "--model", "bpe", "-o", "{d}/o.json"], "line 1: a counts file starts"),
], ids=["missing", "not-utf8", "model", "scheduler", "byte-level", "min-count", "pre-tokenizer", "both", "char",
        "not-counts"])
def test_cli_count_errors_are_one_line_and_exit_2(tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    (tmp_path / "ok.txt").write_text("hug pug\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"hug \xc3\x28\n")
    (tmp_path / "c.tsv").write_text("# tokenizer-playground counts 1\nhug\t1\n", encoding="utf-8")
    with pytest.raises(SystemExit) if message == "invalid choice" else _no_exit() as caught:
        code, _ = run([a.format(d=tmp_path) for a in argv])
    code = getattr(caught, "value", None).code if message == "invalid choice" else code
    err = capsys.readouterr().err
    assert code == 2 and pytest.approx(err.count("\n")) == 1 and "Traceback" not in err
    assert __import__("re").search(message, err), err


class _no_exit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@given(n=st.integers(1, 12), seed=st.integers(0, 10**6))
def test_partials_ready_in_any_order_are_summed_in_corpus_order(n: int, seed: int) -> None:
    """The Dask engine's pairing (NeighbourSums), with tasks finishing in a random order and each
    sum becoming ready at a random later time: the whole is the partitions in order, each once."""
    import random

    from tokenizer_core.counts.neighbours import NeighbourSums

    rng = random.Random(seed)
    sums = NeighbourSums()
    waiting = [(f"<{i}>", i, i) for i in range(n)]  # what is running; the next to finish is drawn
    while waiting:
        partial, first, last = waiting.pop(rng.randrange(len(waiting)))
        pair = sums.ready(partial, first, last)
        if pair is not None:
            assert pair.first < pair.last and pair.left.startswith(f"<{pair.first}>")
            waiting.append((pair.left + pair.right, pair.first, pair.last))
    assert sums.whole() == "".join(f"<{i}>" for i in range(n))
