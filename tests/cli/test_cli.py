"""The command line: train / encode / decode / inspect / export / import, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import tokenizers

from tests._cli import run
from tests._paths import ROOT


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("low low low lower newest newest widest\nThe cat sat on the mat.\n", encoding="utf-8")
    return path


def test_train_encode_decode_word_model(tmp_path, corpus):
    model = tmp_path / "word.json"
    code, _ = run(["train", str(corpus), "--model", "word", "--lowercase", "-o", str(model), "-q"])
    assert code == 0
    code, out = run(["encode", "-t", str(model), "--tokens"], "The lowest cat\nnewest\n")
    assert code == 0
    assert out.splitlines() == ["the [UNK] cat", "newest"]
    code, ids = run(["encode", "-t", str(model)], "low cat\n")
    assert code == 0
    code, text = run(["decode", "-t", str(model)], ids)
    assert (code, text) == (0, "low cat\n")


def test_one_output_line_per_input_line_even_when_empty(tmp_path, corpus):
    model = tmp_path / "char.json"
    assert run(["train", str(corpus), "--model", "char", "-o", str(model), "-q"])[0] == 0
    code, out = run(["encode", "-t", str(model)], "ab\n\ncat\n")
    assert code == 0
    assert out.split("\n")[:3] == [out.split("\n")[0], "", out.split("\n")[2]]
    assert len(out.splitlines()) == 3


def test_special_tokens_option(tmp_path, corpus):
    model = tmp_path / "word.json"
    code, _ = run(["train", str(corpus), "--model", "word", "--special-tokens", "<pad>,<unk>",
                   "--unk-token", "<unk>", "-o", str(model), "-q"])
    assert code == 0
    code, out = run(["encode", "-t", str(model), "--tokens"], "zebra low\n")
    assert out.strip() == "<unk> low"


def test_inspect_shows_the_stages(tmp_path, corpus):
    model = tmp_path / "word.json"
    run(["train", str(corpus), "--model", "word", "-o", str(model), "-q"])
    code, out = run(["inspect", "-t", str(model), "The cat."])
    info = json.loads(out)
    assert code == 0 and info["model"] == "WordLevel"
    assert [p["piece"] for p in info["text"]["pieces"]] == ["The", "cat", "."]


def test_export_hf_loads_in_tokenizers(tmp_path, corpus):
    model = tmp_path / "word.json"
    run(["train", str(corpus), "--model", "word", "-o", str(model), "-q"])
    out = tmp_path / "tokenizer.json"
    assert run(["export", "-t", str(model), "--format", "hf", "-o", str(out)])[0] == 0
    theirs = tokenizers.Tokenizer.from_file(str(out))
    _, ids = run(["encode", "-t", str(model)], "The cat sat on a mat.\n")
    assert theirs.encode("The cat sat on a mat.").ids == [int(i) for i in ids.split()]


def test_import_own_format(tmp_path, corpus):
    model = tmp_path / "word.json"
    run(["train", str(corpus), "--model", "word", "-o", str(model), "-q"])
    copy = tmp_path / "copy.json"
    assert run(["import", str(model), "--format", "own", "-o", str(copy)])[0] == 0
    assert json.loads(copy.read_text())["model"] == json.loads(model.read_text())["model"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["encode", "-t", "missing.json"], "cannot read"),
        (["train", "--model", "word", "-o", "x.json"], "needs corpus files"),
        (["encode"], "give a tokenizer file"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _ = run(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_binary_corpus_is_refused(tmp_path, capsys):
    blob = tmp_path / "image.txt"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    code, _ = run(["train", str(blob), "--model", "word", "-o", str(tmp_path / "o.json"), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "image.txt" in err and "Traceback" not in err


def test_undecodable_ids_exit_2(tmp_path, corpus, capsys):
    model = tmp_path / "word.json"
    run(["train", str(corpus), "--model", "word", "-o", str(model), "-q"])
    code, _ = run(["decode", "-t", str(model)], "1 two 3\n")
    assert code == 2 and "integers" in capsys.readouterr().err
    code, _ = run(["decode", "-t", str(model)], "123456\n")
    assert code == 2 and "not in the vocabulary" in capsys.readouterr().err


def test_runs_as_a_module(tmp_path, corpus):
    model = tmp_path / "byte.json"
    done = subprocess.run([sys.executable, "-m", "tokenizer_core", "train", str(corpus), "--model", "byte",
                           "-o", str(model)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([sys.executable, "-m", "tokenizer_core", "encode", "-t", str(model)],
                          input="hé\n", capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.split() == [str(4 + b) for b in "hé".encode()]
    bad = subprocess.run([sys.executable, "-m", "tokenizer_core", "encode", "-t", str(tmp_path / "nope")],
                         input="x\n", capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")


@pytest.mark.parametrize("model, key", [("bpe", "pair"), ("wordpiece", "score"), ("unigram", "loss")])
def test_train_writes_the_trace_as_json_lines(tmp_path, model, key):
    out, trace = tmp_path / "t.json", tmp_path / "trace.jsonl"
    code, _ = run(["train", "--sample", "hf-course-hug-pug", "--model", model, "--vocab-size", "30",
                   "-o", str(out), "--trace", str(trace), "-q"])
    assert code == 0
    rows = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert rows and all(key in r or any(key in k for k in r) for r in rows)


def test_sennrich_algorithm_with_first_seen_tie_break(tmp_path):
    out, trace = tmp_path / "t.json", tmp_path / "trace.jsonl"
    code, _ = run(["train", "--sample", "sennrich-low-lower-newest-widest", "--model", "bpe", "--num-merges", "3",
                   "--end-of-word-suffix", "</w>", "--suffix-as-symbol", "--tie-break", "first",
                   "-o", str(out), "--trace", str(trace), "-q"])
    assert code == 0
    rows = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    # Counts e s = s t = t </w> = 9 (newest 6 + widest 3); e s is seen first.
    assert [r["token"] for r in rows] == ["es", "est", "est</w>"]


def test_trace_of_a_model_without_one_is_a_clear_error(tmp_path, capsys):
    code, _ = run(["train", "--sample", "hf-course-hug-pug", "--model", "word", "-o", str(tmp_path / "w.json"),
                   "--trace", str(tmp_path / "t.jsonl"), "-q"])
    assert code == 2 and "no training trace" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [[], ["train"], ["encode", "--padding", "sideways"], ["frobnicate"]])
def test_usage_errors_are_one_line_with_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        run(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.startswith("error: ") and err.count("\n") == 1


def test_inspect_words_and_merge_tree_for_bpe(tmp_path):
    model = tmp_path / "bpe.json"
    code, _ = run(["train", "--sample", "hf-course-hug-pug", "--model", "bpe", "--num-merges", "3",
                   "-o", str(model), "-q"])
    assert code == 0
    code, out = run(["inspect", "-t", str(model), "hugs", "--words", "--merge-tree", "hug"])
    info = json.loads(out)
    [word] = info["words"]
    # The course's merges: u+g, then u+n, then h+ug; "hugs" uses the first and the third.
    assert [(s["left"], s["right"]) for s in word["trace"]["steps"]] == [("u", "g"), ("h", "ug")]
    tree = info["merge_tree"]
    assert (tree["token"], tree["left"]["token"], tree["right"]["token"]) == ("hug", "h", "ug")


@pytest.mark.parametrize("model, key", [("wordpiece", "attempts"), ("unigram", "log_prob")])
def test_inspect_words_for_other_models(tmp_path, model, key):
    path = tmp_path / "t.json"
    assert run(["train", "--sample", "hf-course-hug-pug", "--model", model, "--vocab-size", "30",
                "-o", str(path), "-q"])[0] == 0
    code, out = run(["inspect", "-t", str(path), "hugs pug", "--words"])
    words = json.loads(out)["words"]
    assert code == 0 and len(words) >= 2
    assert all(key in json.dumps(w["trace"]) for w in words)


def test_merge_tree_needs_bpe_and_a_known_token(tmp_path, capsys):
    path = tmp_path / "w.json"
    run(["train", "--sample", "hf-course-hug-pug", "--model", "word", "-o", str(path), "-q"])
    assert run(["inspect", "-t", str(path), "--merge-tree", "hug"])[0] == 2
    assert "needs a BPE tokenizer" in capsys.readouterr().err


@pytest.fixture(scope="module")
def bpe_and_unigram(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sampling")
    paths = {}
    for model in ("bpe", "unigram", "wordpiece"):
        paths[model] = folder / f"{model}.json"
        code, _ = run(["train", "--sample", "default", "--model", model, "--vocab-size", "400",
                       "-o", str(paths[model]), "-q"])
        assert code == 0
    return paths


@pytest.mark.parametrize("model, flags, message", [
    ("unigram", ["--dropout", "0.2"], "error: --dropout applies to BPE tokenizers only; unigram.json is Unigram; "
                                      "use --sample (with --alpha, --nbest-size) for Unigram sampling\n"),
    ("wordpiece", ["--dropout", "0.2"], "error: --dropout applies to BPE tokenizers only; wordpiece.json is WordPiece\n"),
    ("bpe", ["--sample"], "error: --sample applies to Unigram tokenizers only; bpe.json is BPE; "
                          "use --dropout for BPE-dropout\n"),
    ("bpe", ["--alpha", "0.5"], "error: --alpha applies to Unigram tokenizers only; bpe.json is BPE; "
                                "use --dropout for BPE-dropout\n"),
    ("bpe", ["--dropout", "0.1", "--nbest-size", "4"],
     "error: --nbest-size applies to Unigram sampling (--sample), not --dropout\n"),
    ("unigram", ["--alpha", "0.5"], "error: --alpha only changes sampled encodings; add --sample\n"),
    ("unigram", ["--sample", "--dropout", "0.1"],
     "error: --dropout (BPE-dropout) and --sample (Unigram sampling) exclude each other; give one\n"),
])
def test_sampling_options_that_do_not_apply_are_refused(bpe_and_unigram, capsys, model, flags, message):
    for extra in ([], ["--batch", "--padding", "do_not_pad"]):
        assert run(["encode", "-t", str(bpe_and_unigram[model]), *flags, *extra], "hug\n") == (2, "")
        assert capsys.readouterr().err == message


def test_sampling_options_that_apply_still_work(bpe_and_unigram):
    assert run(["encode", "-t", str(bpe_and_unigram["bpe"]), "--dropout", "1.0", "--tokens"], "hug\n")[0] == 0
    code, out = run(["encode", "-t", str(bpe_and_unigram["unigram"]), "--sample", "--seed", "1", "--tokens"], "hug\n")
    assert code == 0 and "".join(out.split()) == "▁hug"


def test_the_unigram_model_refuses_dropout():
    import random

    from tokenizer_core.errors import TokenizerError
    from tokenizer_core.types import Sampling
    from tokenizer_core.unigram.explain import course_model

    with pytest.raises(TokenizerError, match="BPE-dropout"):
        course_model().tokenize_sampled("hug", rng=random.Random(0), sampling=Sampling(dropout=0.1))
