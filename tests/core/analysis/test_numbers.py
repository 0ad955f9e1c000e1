"""Number splits: every integer's pieces as tiktoken cuts it (GPT-2, cl100k_base), the split shapes,
and the grouping rule read from long digit runs (from the left, from the right, single digits,
learned)."""

from __future__ import annotations

import pytest

from tokenizer_core.analysis.numbers import _grouping, number_splits
from tokenizer_core.io.references import load_reference


@pytest.mark.parametrize("name", ["llama3", "qwen"])
def test_every_numbers_pieces_are_tiktokens(name):
    """tiktoken on the very ranks file the reference reads (no download)."""
    tiktoken = pytest.importorskip("tiktoken")
    from tokenizer_core.io.bpe_files import read_tiktoken_ranks
    from tokenizer_core.io.encodings import ENCODINGS
    from tokenizer_core.io.references import reference_files

    spec = ENCODINGS[name]
    enc = tiktoken.Encoding(name + "-local", pat_str=spec.pattern, special_tokens={},
                            mergeable_ranks=read_tiktoken_ranks(reference_files(name)[0]))
    s = number_splits(load_reference(name), start=0, stop=10_000)
    for n in range(10_000):
        assert s.pieces[n] == [enc.decode_single_token_bytes(t).decode() for t in enc.encode(str(n))], n
    assert s.counts == [len(p) for p in s.pieces]
    assert sum(k for _, k in s.shape_share(4)) == 9000 and sum(k for _, k in s.shape_share(1)) == 10


def test_the_grouping_rules_of_the_references():
    assert number_splits(load_reference("cl100k_base"), stop=10).grouping == "from the left"
    assert number_splits(load_reference("qwen"), stop=10).grouping == "single digits"
    assert number_splits(load_reference("mistral_v1"), stop=10).grouping == "single digits"  # "▁" has no shape
    assert number_splits(load_reference("gpt2"), stop=10).grouping == "learned (no rule)"
    from tokenizer_core.analysis.compare import granularity_tokenizer

    word = number_splits(granularity_tokenizer("word", ["one two 12\n"]), stop=100)
    assert word.grouping == "unknown" and word.unknown == 99 and word.pieces[12] == ["12"]
    cl = number_splits(load_reference("cl100k_base"), start=1000, stop=10_000)
    assert cl.shape_share(4) == [("3+1", 9000)]


def test_the_grouping_rule_from_shapes():
    assert _grouping({4: "1+3", 5: "2+3", 6: "3+3", 7: "1+3+3"}) == "from the right"
    assert _grouping({4: "3+1", 5: "3+2", 6: "3+3", 7: "3+3+1"}) == "from the left"
    assert _grouping({4: "2+2", 5: "3+2", 6: "3+3", 7: "3+3+1"}) == "learned (no rule)"


@pytest.mark.parametrize("start, stop", [(5, 5), (-1, 3), (0, 100_001)])
def test_ranges_are_checked(start, stop):
    with pytest.raises(ValueError, match="non-negative integers"):
        number_splits(load_reference("gpt2"), start=start, stop=stop)
