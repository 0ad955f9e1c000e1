"""Training lines read as blocks (tokenizer_core.line_blocks): the same lines, the same counts and the
same trained tokenizers as line by line, whatever the block size; checks still run on every block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.cli import main as cli_main
from tokenizer_core.corpus.streaming import stream_blocks, stream_lines
from tokenizer_core.errors import TokenizerError
from tokenizer_core.line_blocks import LineBlocks, split_lines
from tokenizer_core.options import TrainOptions
from tokenizer_core.text import line_chunks as chunks_module
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.pre_tokenizers import ByteLevel, Whitespace
from tokenizer_core.training import MAX_DISTINCT_WORDS, train, within_word_limit

_CHARS = st.sampled_from(list("ab c\n\r\t\u2028é字") + ["\r\n", "  ", "'s", "12"])
_TEXTS = st.lists(_CHARS, max_size=60).map("".join)


@given(text=_TEXTS)
def test_split_lines_cuts_only_at_newlines(text: str) -> None:
    lines = list(split_lines(text))
    assert "".join(lines) == text
    assert all(line.endswith("\n") for line in lines[:-1])
    assert all("\n" not in line[:-1] for line in lines)
    assert all(lines)


@given(text=_TEXTS, block=st.integers(min_value=1, max_value=20))
@settings(max_examples=60, deadline=None)
def test_stream_blocks_give_the_lines_of_stream_lines(tmp_path_factory: pytest.TempPathFactory, text: str,
                                                      block: int) -> None:
    path = tmp_path_factory.mktemp("blocks") / "c.txt"
    path.write_bytes(text.encode("utf-8"))
    if not text.strip():  # a file with no text is refused by both, with the loader's message
        return
    blocks = list(stream_blocks(path, block=block))
    assert all(b.endswith("\n") for b in blocks[:-1])
    assert [line for b in blocks for line in split_lines(b)] == list(stream_lines(path, block=block))


@given(text=_TEXTS, chunk=st.integers(min_value=1, max_value=8))
@settings(max_examples=80, deadline=None)
def test_counts_from_blocks_equal_counts_from_lines(text: str, chunk: int) -> None:
    """Blocks cut into tiny chunks count what the lines count, first-appearance order included, on one
    thread and on two."""
    lines = list(split_lines(text))
    # Blocks of two lines each: a block boundary after every other line, and inside none.
    blocks = ["".join(lines[i:i + 2]) for i in range(0, len(lines), 2)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chunks_module, "CHUNK_CHARS", chunk)
        for pre in (ByteLevel(), Whitespace()):
            by_lines = count_words(lines, pre_tokenizer=pre, workers=1)
            for workers in (1, 2):
                by_blocks = count_words(LineBlocks(lambda: iter(blocks)), pre_tokenizer=pre, workers=workers)
                assert list(by_blocks.items()) == list(by_lines.items())


def test_a_block_whose_last_line_has_no_newline_ends_that_line() -> None:
    blocks = LineBlocks(lambda: iter(["ab", "cd\n"]))
    assert list(blocks) == ["ab", "cd\n"]
    assert dict(count_words(blocks, pre_tokenizer=Whitespace(), workers=1)) == {"ab": 1, "cd": 1}


def test_the_distinct_word_limit_checks_every_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(MAX_DISTINCT_WORDS, "bpe", 3)
    seen: list[str] = []
    blocks = LineBlocks(lambda: iter(["a b\n", "c d\n"]))
    checked = within_word_limit(blocks, "bpe")
    assert isinstance(checked, LineBlocks)  # still blocks for the counting path
    with pytest.raises(TokenizerError, match="more than 3 distinct words"):
        for block in checked.blocks():
            seen.append(block)
    assert seen == ["a b\n"]  # refused at the block that passed the limit, before anything after it
    with pytest.raises(TokenizerError, match="more than 3 distinct words"):
        train("bpe", LineBlocks(lambda: iter(["a b\n", "c d\n"])), options=TrainOptions(vocab_size=300))


@pytest.mark.parametrize("model, extra", [
    ("bpe", ["--byte-level"]),
    ("bpe", []),
    ("wordpiece", []),
    ("unigram", []),
])
def test_cli_training_from_blocks_equals_training_from_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             model: str, extra: list[str]) -> None:
    """The command line reads files as blocks; tiny chunks put cuts everywhere. The tokenizer equals
    the one trained on the file's lines as a list."""
    text = "".join(f"The {w} cat's {n} naïve\r\nword{n % 7} 字{w}\u2028x\n" for n, w in
                   enumerate(["quick", "lazy", "brown", "red"] * 40))
    text += "last line without newline"
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8", newline="")
    monkeypatch.setattr(chunks_module, "CHUNK_CHARS", 50)
    out = tmp_path / "cli.json"
    assert cli_main(["train", str(path), "--model", model, "--vocab-size", "200", *extra, "-o", str(out), "-q"]) == 0
    from tokenizer_core.cli import build_parser
    from tokenizer_core.cli.train_args import options_from_args  # the same options the command line built

    args = build_parser().parse_args(["train", str(path), "--model", model, "--vocab-size", "200", *extra, "-o", "x"])
    reference = train(model, list(split_lines(text)), options=options_from_args(args, model=model))
    assert json.loads(out.read_text(encoding="utf-8")) == reference.to_dict()
