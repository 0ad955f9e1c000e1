"""Streaming a plain-text corpus gives exactly the loader's lines, and the loader's errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.corpus.loading import load_corpus
from tokenizer_core.corpus.streaming import stream_lines
from tokenizer_core.errors import CorpusError

CASES = {
    "mixed.txt": "héllo\nworld\r\n\n中文😀\nlast".encode(),
    "bom.txt": b"\xef\xbb\xbfbom\nx",
    "late-bad-byte.txt": b"ok\n" * 10 + b"\xff bad",
    "binary.txt": b"\x00\x01",
    "utf16.txt": "hi".encode("utf-16"),
    "blank.txt": b"   \n  ",
    "pdf.txt": b"%PDF-1.4 ...",
    "notes.md": b"# t\n",
    "empty.txt": b"",
    "cut-in-a-character.txt": ("é" * 5 + "\n").encode() * 100 + b"ab\xc3",
    "nul-late.txt": b"text\n" * 50 + b"\x00",
    "table.csv": b"text\nhug\n",
}


def _read(make):
    try:
        return list(make())
    except CorpusError as err:
        return ("error", str(err))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("block", [1, 7, 4096])
def test_stream_equals_the_loader(tmp_path, name, block):
    path = tmp_path / name
    path.write_bytes(CASES[name])
    assert _read(lambda: stream_lines(path, block=block)) == _read(lambda: load_corpus(path).lines())


@settings(max_examples=60, deadline=None, derandomize=True)
@given(text=st.text(alphabet=st.sampled_from(list("ab \n\r\té中😀")), min_size=1, max_size=60),
       block=st.integers(1, 9))
def test_stream_splits_any_text_like_the_loader(tmp_path_factory, text, block):
    path = tmp_path_factory.mktemp("s") / "t.txt"
    path.write_bytes(text.encode())
    assert _read(lambda: stream_lines(path, block=block)) == _read(lambda: load_corpus(path).lines())
