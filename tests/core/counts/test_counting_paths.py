"""count_words picks one counting path per normalizer and pre-tokenizer; every path counts exactly
what the line-by-line reference counts (tokenizer_core/text/counting.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._texts import real_lines
from tokenizer_core.kernel.codes import PieceSplit
from tokenizer_core.kernel.native import available
from tokenizer_core.text import counting
from tokenizer_core.text.normalizers import NFKC, BertNormalizer, Lowercase
from tokenizer_core.text.pre_tokenizers import (
    BertPreTokenizer,
    ByteLevel,
    Metaspace,
    Whitespace,
    WhitespaceSplit,
    WordSplit,
)


def _lines() -> list[str]:
    # Newline-ended lines (joined in chunks), lines without one, and one with a newline inside.
    lines = [line + "\n" for line in real_lines(400)]
    return lines + ["no newline at the end", "two\nlines in one\n", "  \n", ""]


def _name(path: object) -> str:
    return getattr(path, "func", path).__name__  # type: ignore[union-attr]


def _path(normalizer: object, pre_tokenizer: object) -> str:
    return _name(counting.counting_path(normalizer=normalizer, pre_tokenizer=pre_tokenizer))


kernel_only = pytest.mark.skipif(not available(), reason="the compiled kernel is not installed")


@kernel_only
@pytest.mark.parametrize(
    ("normalizer", "pre_tokenizer", "how"),
    [
        (None, ByteLevel(add_prefix_space=False), PieceSplit.GPT2),
        (Lowercase(), ByteLevel(add_prefix_space=False), PieceSplit.GPT2),
        (None, Whitespace(), PieceSplit.WHITESPACE),
        (None, WordSplit(), PieceSplit.WORD_SPLIT),
        (Lowercase(), WhitespaceSplit(), PieceSplit.WHITESPACE_SPLIT),
    ],
)
def test_the_kernel_counts_the_splits_it_knows(normalizer: object, pre_tokenizer: object, how: PieceSplit) -> None:
    path = counting.counting_path(normalizer=normalizer, pre_tokenizer=pre_tokenizer)
    assert _name(path) == "_count_in_kernel" and path.keywords == {"how": how}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("normalizer", "pre_tokenizer", "with_kernel", "without_kernel"),
    [
        (None, ByteLevel(add_prefix_space=False), "_count_in_kernel", "_count_gpt2_regex"),
        (None, ByteLevel(add_prefix_space=True), "_count_line_by_line", "_count_line_by_line"),
        (NFKC(), ByteLevel(add_prefix_space=False), "_count_line_by_line", "_count_line_by_line"),
        (None, Whitespace(), "_count_in_kernel", "_count_joined_lines"),
        (Lowercase(), BertPreTokenizer(), "_count_joined_lines", "_count_joined_lines"),
        (BertNormalizer(), BertPreTokenizer(), "_count_by_space_chunks", "_count_by_space_chunks"),
        (BertNormalizer(), WhitespaceSplit(), "_count_by_space_chunks", "_count_by_space_chunks"),
        (BertNormalizer(), Metaspace(), "_count_line_by_line", "_count_line_by_line"),
        (None, None, "_count_line_by_line", "_count_line_by_line"),
    ],
)
def test_each_setup_takes_its_path_and_counts_as_the_reference(
    monkeypatch: pytest.MonkeyPatch, normalizer: object, pre_tokenizer: object, with_kernel: str,
    without_kernel: str,
) -> None:
    lines = _lines()
    reference = counting._count_line_by_line(lines, normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                                             workers=1, progress=counting.no_progress)
    if isinstance(pre_tokenizer, ByteLevel):  # the reference yields ByteLevel's own (byte-mapped) pieces
        assert all(" " not in piece for piece in reference)
    for pure, expected in (("1", without_kernel), ("0", with_kernel)):
        if pure == "0" and not available():
            continue
        monkeypatch.setenv("TOKENIZER_CORE_PURE", pure)
        assert _path(normalizer, pre_tokenizer) == expected
        got = counting.count_words(lines, normalizer=normalizer, pre_tokenizer=pre_tokenizer, workers=1)
        assert got == reference
        # Without worker processes every path keeps the order of first appearance (BPE's "first" ties).
        assert list(got) == list(reference)



_BERT_HOSTILE = st.lists(st.text(alphabet=st.sampled_from(
    list("ab é\u0301中,.!\t\r\n") + ["\x0b", "\x0c", "\x85", "\u00a0", "\u2028", "\u3000", "\u200b", "\u00ad", "\ud800",
                                     "\x00", "\ufeff", "\U0001F600"]), max_size=30), max_size=12)


@pytest.mark.skipif(not available(), reason="the compiled kernel is not built")
@settings(max_examples=300, deadline=None)
@given(_BERT_HOSTILE)
def test_bert_chunks_split_by_the_kernel_count_as_line_by_line(lines: list[str]) -> None:
    # The kernel breaks BERT's chunks at space, tab, LF and CR only; every other whitespace or control
    # character (vertical tab, NEL, NBSP, U+2028...) is left to the normalizer and pre-tokenizer.
    normalizer, pre = BertNormalizer(), BertPreTokenizer()
    reference = counting._count_line_by_line(lines, normalizer=normalizer, pre_tokenizer=pre, workers=1,
                                             progress=counting.no_progress)
    got = counting._count_by_space_chunks(lines, normalizer=normalizer, pre_tokenizer=pre, workers=2,
                                          progress=counting.no_progress)
    assert list(got.items()) == list(reference.items())
