"""Counting on every core (tokenizer_core/text/native_counting.py): the same counts, in the same order
of first appearance, whatever the number of threads; Cancel still stops it."""

from __future__ import annotations

import pytest

from tests._texts import real_lines
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.kernel.codes import PieceSplit
from tokenizer_core.kernel.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the compiled kernel is not installed")


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    """About 4.6 MB in lines: several ~1 MB chunks, plus lines with newlines inside (their own chunks)."""
    lines = [line + "\n" for line in real_lines(3000)] + [line + "\n" for line in load_sample("multilingual").lines()]
    return lines * 40 + ["one\ntwo three\n", "no newline at the end"]


@pytest.mark.parametrize("how", list(PieceSplit))
def test_threads_count_what_one_thread_counts(how, corpus):
    from tokenizer_core.text.native_counting import count_native

    one = count_native(corpus, how=how, threads=1)
    assert len(one) > 1000
    for threads in (2, 5):
        many = count_native(corpus, how=how, threads=threads)
        assert list(many.items()) == list(one.items())


def test_lines_without_newlines_are_counted_in_groups_as_one_thread_counts_them(corpus):
    """Each such line is a chunk of its own; on threads they go in groups of about a MB (one task
    each, not one per line), in order, so the counts and their order are one thread's."""
    from tokenizer_core.text import native_counting

    bare = [line.rstrip("\n") for line in corpus if "\n" not in line.rstrip("\n")]
    groups = list(native_counting._batches((line, False) for line in bare))
    assert 1 < len(groups) < len(bare) / 100 and [t for g in groups for t, _ in g] == bare
    one = native_counting.count_native(bare, how=PieceSplit.GPT2, threads=1)
    assert list(native_counting.count_native(bare, how=PieceSplit.GPT2, threads=3).items()) == list(one.items())


def test_the_normalizer_runs_on_every_chunk(corpus):
    from tokenizer_core.text.native_counting import count_native

    lowered = count_native(corpus, how=PieceSplit.WHITESPACE, normalize=str.lower, threads=3)
    assert lowered == count_native([line.lower() for line in corpus], how=PieceSplit.WHITESPACE, threads=1)


def test_cancel_stops_the_count(corpus):
    from tokenizer_core.text.native_counting import count_native

    class Cancelled(Exception):
        pass

    seen = []

    def progress(done, total, what):
        seen.append(done)
        if len(seen) == 1:
            raise Cancelled

    with pytest.raises(Cancelled):
        count_native(corpus, how=PieceSplit.GPT2, progress=progress, threads=2)
    assert len(seen) == 1


def test_byte_symbol_counts_equal_the_python_mapping() -> None:
    """counts(byte_symbols=True) maps each piece's UTF-8 bytes as GPT-2 does, in C: equal to the Python
    mapping of the raw counts, order included; pieces that differ only in lone surrogates (which read as
    U+FFFD) are summed under one key."""
    from collections import Counter

    from tokenizer_core.kernel.native import class_table, kernel
    from tokenizer_core.text.counting import _byte_mapped

    text = "héllo wörld 字字 😀x \t\n a\ud800 a\udfff a\ufffd ÿ\x00\x7f\x80 \u2028 hello\n"
    counter = kernel().PieceCounter(class_table(), PieceSplit.GPT2)
    counter.add(text * 3, True)
    raw = counter.counts()
    assert "\ud800" in raw and "\udfff" in raw  # the surrogates arrive raw
    mapped = counter.counts(byte_symbols=True)
    assert list(mapped.items()) == list(_byte_mapped(raw).items())
    assert mapped["ï¿½"] == 9  # "\ud800", "\udfff" and "\ufffd", three times each
    into = Counter({"Ġhello": 100})
    assert counter.counts(byte_symbols=True, into=into) is into
    assert into["Ġhello"] == 100 + mapped["Ġhello"]  # added to what was there
    with pytest.raises(TypeError, match="into must be a dict"):
        counter.counts(into=[])
    with pytest.raises(TypeError):
        counter.counts(True)  # keyword-only
