"""``encode --batch`` on the command line: padding, truncation and pairs, against ``tokenizers``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models
from tokenizers import pre_tokenizers as hf_pre
from tokenizers import processors as hf_proc

from tests._cli import run
from tokenizer_core.batch.processors import TemplateProcessing
from tokenizer_core.classic.word import WordLevel
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.pre_tokenizers import Whitespace

os.environ.setdefault("RUST_BACKTRACE", "0")

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
WORDS = "the cat sat on mat a dog ran in park and then slept all day long".split()
VOCAB = {t: i for i, t in enumerate(SPECIALS + WORDS)}
LINES = ["the cat sat on the mat", "a dog ran", "the dog ran in the park and then slept all day long"]
PAIRS = ["the dog slept", "then the cat sat on a mat all day", "a cat"]




@pytest.fixture
def model(tmp_path: Path) -> Path:
    tok = Tokenizer(WordLevel(VOCAB, unk_token="[UNK]"), pre_tokenizer=Whitespace(),
                    post_processor=TemplateProcessing.bert(vocab=VOCAB), special_tokens=SPECIALS)
    path = tmp_path / "bert-words.json"
    tok.save(path)
    return path


def reference(*, pairs: bool, padding: dict, truncation: dict | None) -> list:
    hf = HFTokenizer(hf_models.WordLevel(VOCAB, unk_token="[UNK]"))
    hf.pre_tokenizer = hf_pre.Whitespace()
    hf.post_processor = hf_proc.BertProcessing(("[SEP]", VOCAB["[SEP]"]), ("[CLS]", VOCAB["[CLS]"]))
    hf.enable_padding(**padding)
    if truncation:
        hf.enable_truncation(**truncation)
    return hf.encode_batch(list(zip(LINES, PAIRS)) if pairs else LINES)


def test_batch_with_pairs_truncation_and_left_padding(model: Path, tmp_path: Path) -> None:
    pair_file = tmp_path / "pairs.txt"
    pair_file.write_text("\n".join(PAIRS) + "\n", encoding="utf-8")
    code, out = run(["encode", "-t", str(model), "--batch", "--padding", "longest", "--truncation", "longest_first",
                     "--max-length", "12", "--stride", "2", "--pad-to-multiple-of", "8", "--padding-side", "left",
                     "--pair-file", str(pair_file)], "\n".join(LINES) + "\n")
    assert code == 0
    data = json.loads(out)
    expected = reference(pairs=True, padding={"direction": "left", "pad_to_multiple_of": 8},
                         truncation={"max_length": 12, "stride": 2})
    assert data["input_ids"] == [e.ids for e in expected]
    assert data["attention_mask"] == [e.attention_mask for e in expected]
    assert data["token_type_ids"] == [e.type_ids for e in expected]
    assert data["special_tokens_mask"] == [e.special_tokens_mask for e in expected]
    assert [[o["ids"] for o in row] for row in data["overflowing"]] == [
        [o.ids for o in e.overflowing] for e in expected
    ]
    assert len(data["input_ids"][0]) == 16  # 12 rounded up to a multiple of 8


def test_batch_with_fixed_length_padding(model: Path) -> None:
    code, out = run(["encode", "-t", str(model), "--batch", "--padding", "max_length", "--max-length", "10"],
                    "\n".join(LINES) + "\n")
    assert code == 0
    data = json.loads(out)
    expected = reference(pairs=False, padding={"length": 10}, truncation=None)
    assert data["input_ids"] == [e.ids for e in expected]
    assert data["lengths"] == [8, 5, 14]  # the long line is not cut without --truncation


def test_impossible_settings_exit_with_a_message(model: Path, capsys: pytest.CaptureFixture) -> None:
    code, _ = run(["encode", "-t", str(model), "--batch", "--truncation", "only_second", "--max-length", "4"],
                  "\n".join(LINES) + "\n")
    assert code == 2
    assert "second text" in capsys.readouterr().err
    code, _ = run(["encode", "-t", str(model), "--batch", "--truncation", "longest_first", "--max-length", "1"],
                  "a dog\n")
    assert code == 2
    assert "special tokens" in capsys.readouterr().err
