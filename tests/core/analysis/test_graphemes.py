"""Graphemes a tokenizer cuts (tokenizer_core/analysis/graphemes.py): worked examples with the byte and
character rows, and GPT-2's cuts computed from the offsets `tokenizers` gives equal ours."""

from __future__ import annotations

import pytest

from tokenizer_core.analysis.compare import Segment, granularity_tokenizer, segments
from tokenizer_core.analysis.graphemes import EXAMPLES, cut_graphemes, graphemes
from tokenizer_core.io.references import load_reference


def test_graphemes_are_what_a_reader_sees():
    family = EXAMPLES["family emoji (ZWJ sequence)"]
    assert [g.text for g in graphemes(family + " hi")] == [family, " ", "h", "i"]
    assert len(graphemes(EXAMPLES["flag (regional indicators)"])) == 1
    assert [g.text for g in graphemes(EXAMPLES["combining accents"])] == ["e\u0301", "t", "e\u0301", " ", "n\u0303"]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_byte_and_character_rows_cut_each_grapheme_into_its_bytes_and_code_points(name):
    text = EXAMPLES[name]
    byte = granularity_tokenizer("byte", [])
    char = granularity_tokenizer("char", [text])
    by_bytes = {(c.start, c.end): c.tokens for c in cut_graphemes(text, segments(byte, text))}
    by_chars = {(c.start, c.end): c.tokens for c in cut_graphemes(text, segments(char, text))}
    for g in graphemes(text):
        size = len(g.text.encode("utf-8"))
        assert by_bytes.get((g.start, g.end), 1) == size
        assert by_chars.get((g.start, g.end), 1) == len(g.text)


def test_a_token_covering_several_graphemes_cuts_none_and_empty_tokens_count_for_nothing():
    text = "ab\U0001F1EF\U0001F1F5"
    whole = [Segment(0, 4, text, 1), Segment(4, 4, "", 2)]
    assert cut_graphemes(text, whole) == []
    halves = [Segment(0, 3, "ab\U0001F1EF", 1), Segment(3, 4, "\U0001F1F5", 2)]
    assert [(c.text, c.tokens) for c in cut_graphemes(text, halves)] == [("\U0001F1EF\U0001F1F5", 2)]


def test_gpt2s_cuts_equal_those_from_tokenizers_offsets():
    tokenizers = pytest.importorskip("tokenizers")
    ours = load_reference("gpt2")
    theirs = tokenizers.Tokenizer.from_str(__import__("json").dumps(ours.to_hf_json()))
    text = " ".join(EXAMPLES.values()) + " caf\u00e9 na\u0308ive"
    enc = theirs.encode(text, add_special_tokens=False)
    reference = [Segment(a, b, t, i) for i, t, (a, b) in zip(enc.ids, enc.tokens, enc.offsets)]
    expected = cut_graphemes(text, reference)
    assert cut_graphemes(text, segments(ours, text)) == expected
    assert {c.text for c in expected} >= set(EXAMPLES.values()) - {EXAMPLES["combining accents"]}
