"""Golden checks of the bundled samples against the published worked examples."""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest
import regex

from tokenizer_core.corpus.loading import list_samples, load_sample
from tokenizer_core.errors import CorpusError

# The counts as published (not read back from our files).
LITERATURE = {
    # Wikipedia, "Byte pair encoding": the string aaabdaaabac.
    "wikipedia-aaabdaaabac": {"aaabdaaabac": 1},
    # Sennrich, Haddow & Birch (2016), Algorithm 1: 'l o w </w>': 5, 'l o w e r </w>': 2, ...
    "sennrich-low-lower-newest-widest": {"low": 5, "lower": 2, "newest": 6, "widest": 3},
    # Hugging Face NLP course, chapter 6: ("hug", 10), ("pug", 5), ("pun", 12), ("bun", 4), ("hugs", 5).
    "hf-course-hug-pug": {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
}


def test_sample_names_and_order():
    names = [s.name for s in list_samples()]
    assert names == [
        "default",
        "wikipedia-aaabdaaabac",
        "sennrich-low-lower-newest-widest",
        "hf-course-hug-pug",
        "multilingual",
    ]
    assert all(s.title and s.description for s in list_samples())


@pytest.mark.parametrize("name, counts", LITERATURE.items())
def test_counted_samples_match_the_literature(name, counts):
    corpus = load_sample(name)
    assert corpus.word_counts == counts
    # Training reads the text, so the text itself must carry the counts.
    assert Counter(corpus.text.split()) == Counter(counts)
    # One word per line: every pre-tokenizer sees exactly these words.
    assert [line.rstrip("\n") for line in corpus.lines()] == corpus.text.split()
    assert corpus.name == name and corpus.source


def test_wikipedia_text_is_exact():
    assert load_sample("wikipedia-aaabdaaabac").texts == ("aaabdaaabac",)


def test_counted_samples_keep_the_published_order():
    assert list(load_sample("hf-course-hug-pug").word_counts) == ["hug", "pug", "pun", "bun", "hugs"]


def test_word_counts_are_a_copy():
    first = load_sample("hf-course-hug-pug")
    first.word_counts["hug"] = 0
    assert load_sample("hf-course-hug-pug").word_counts["hug"] == 10


def test_multilingual_sample_covers_scripts_emoji_and_marks():
    text = load_sample("multilingual").text
    for script in ["Latin", "Greek", "Cyrillic", "Arabic", "Hebrew", "Devanagari", "Thai",
                   "Han", "Hiragana", "Katakana", "Hangul", "Georgian", "Armenian", "Ethiopic"]:
        assert regex.search(rf"\p{{Script={script}}}", text), script
    assert "\u200d" in text  # an emoji ZWJ sequence
    assert regex.search(r"\p{Emoji_Presentation}", text)
    assert regex.search(r"[\U0001F3FB-\U0001F3FF]", text)  # skin-tone modifier
    assert any(unicodedata.category(c) == "Mn" for c in text)  # combining marks
    assert "e\u0301" in text  # decomposed accent ...
    assert unicodedata.normalize("NFC", text) != text  # ... so normalization changes it
    assert unicodedata.normalize("NFKC", "\ufb01") in unicodedata.normalize("NFKC", text)
    assert len(text.splitlines()) >= 20


def test_unknown_sample_lists_the_names():
    with pytest.raises(CorpusError, match="hf-course-hug-pug"):
        load_sample("nope")
