"""Tokenizer files from an upload box, and the vocabulary table the Tokenizers page shows."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models
from tokenizers import pre_tokenizers as hf_pre
from tokenizers import trainers as hf_trainers

from tokenizer_core.analysis.vocabulary import (
    length_histogram,
    token_bytes,
    token_counts,
    utilization,
    vocabulary_entries,
)
from tokenizer_core.errors import FormatError
from tokenizer_core.io.references import load_reference, reference_files
from tokenizer_core.io.uploads import detect_format, import_files
from tokenizer_core.options import TrainOptions
from tokenizer_core.training import train

LINES = ["the cat sat on the mat\n", "the dog sat on the log\n"] * 20


def _hf_bpe_json() -> bytes:
    tok = HFTokenizer(hf_models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = hf_pre.Whitespace()
    tok.train_from_iterator(LINES, hf_trainers.BpeTrainer(vocab_size=40, special_tokens=["[UNK]"]))
    return tok.to_str().encode()


def test_an_uploaded_tokenizer_json_encodes_like_tokenizers():
    data = _hf_bpe_json()
    ours = import_files([("tokenizer.json", data)])
    ref = HFTokenizer.from_str(data.decode())
    for line in ["the cat sat", "a dog on a mat", "unseen words"]:
        assert ours.encode(line).ids == ref.encode(line).ids


def test_own_files_round_trip_through_the_upload(tmp_path):
    tok = train("wordpiece", LINES, options=TrainOptions(vocab_size=60))
    data = json.dumps(tok.to_dict()).encode()
    assert detect_format("mine.json", data) == "own"
    back = import_files([("mine.json", data)])
    assert back.encode("the cat").ids == tok.encode("the cat").ids


def test_gpt2_needs_both_files_under_any_names():
    enc, bpe = reference_files("gpt2")
    tok = import_files([("my-encoder.json", enc.read_bytes()), ("my-merges.bpe", bpe.read_bytes())])
    assert tok.encode("Hello world").ids == [15496, 995]
    with pytest.raises(FormatError, match="vocab.bpe"):
        import_files([("encoder.json", enc.read_bytes())])


@pytest.mark.parametrize(
    "files, message",
    [
        ([("x.json", b"{not json")], "not valid JSON"),
        ([("notes.pdf", b"%PDF-1.7")], "not a tokenizer file"),
        ([("empty.model", b"")], "empty"),
        ([("t.model", b"\x00\x01garbage")], "^t.model is not a SentencePiece"),
        ([("a.json", b'{"model": {"type": "BPE"}}'), ("b.model", b"x")], "one tokenizer file"),
        ([("tokenizer.json", b'{"model": {"type": "Nonsense"}}')], "Nonsense"),
        ([], "no file"),
    ],
)
def test_bad_uploads_are_refused_with_a_clear_message(files, message):
    with pytest.raises(FormatError, match=message):
        import_files(files)


def test_vocabulary_entries_of_gpt2():
    tok = load_reference("gpt2")
    entries = vocabulary_entries(tok)
    assert len(entries) == tok.vocab_size
    by_token = {e.token: e for e in entries}
    the = by_token["Ġthe"]
    assert the.data == b" the" and the.length == 4 and not the.special
    assert the.merge_rank is not None and the.merge_rank < 100  # one of the first merges
    assert by_token["<|endoftext|>"].special and by_token["<|endoftext|>"].data is None
    assert by_token["Ã"].merge_rank is None  # a base byte symbol
    assert token_bytes(tok, "âĢ") == b"\xe2\x80"  # part of a UTF-8 sequence, kept as bytes


def test_unigram_entries_carry_scores_and_lengths_drop_markers():
    tok = train("unigram", LINES, options=TrainOptions(vocab_size=40, special_tokens=("<unk>",), unk_token="<unk>"))
    entries = vocabulary_entries(tok)
    scored = [e for e in entries if not e.special]
    assert all(e.score is not None and e.score < 0 for e in scored)
    assert all(e.length == len(e.token.replace("▁", " ")) for e in scored)


def test_counts_utilization_and_histogram():
    tok = train("word", LINES, options=TrainOptions())
    counts = token_counts(tok, ["the cat the\n"])
    assert counts[tok.token_to_id("the")] == 2 and counts[tok.token_to_id("cat")] == 1
    words = len([i for i in tok.get_vocab().values() if not tok.is_special_id(i)])
    assert utilization(counts, tok) == pytest.approx(2 / words)
    assert sum(length_histogram(vocabulary_entries(tok)).values()) == words
    # The budget of characters is respected: nothing past it is encoded.
    assert sum(token_counts(tok, ["the " * 100 + "\n"], max_chars=8).values()) == 2
