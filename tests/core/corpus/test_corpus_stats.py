"""Corpus statistics on hand-computed examples and properties."""

from __future__ import annotations

import unicodedata

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from tokenizer_core.corpus.loading import Corpus, load_sample
from tokenizer_core.corpus.stats import char_info, corpus_stats, count_words, script_of, word_count


def test_hand_computed_tiny_corpus():
    stats = corpus_stats(Corpus("tiny", ("The cat sat.\nThe cat ran!", "Ünïcode, don't 42")))
    # Documents are joined by one newline: "The cat sat.\nThe cat ran!\nÜnïcode, don't 42"
    assert stats.documents == 2
    assert stats.lines == 3
    assert stats.chars == 12 + 1 + 12 + 1 + 17
    assert stats.bytes == stats.chars + 2  # Ü and ï take two bytes each
    assert stats.words == 9  # The cat sat The cat ran Ünïcode don't 42
    assert stats.unique_words == 7
    assert stats.word_freq == [
        ("The", 2), ("cat", 2), ("42", 1), ("don't", 1), ("ran", 1), ("sat", 1), ("Ünïcode", 1)
    ]
    assert stats.hapax == 5
    assert stats.top_words(2) == [("The", 2), ("cat", 2)]
    inventory = {row.char: row for row in stats.char_inventory}
    assert inventory["\n"].count == 2  # one inside the first document, one between documents
    assert inventory["a"].count == 4  # cat, sat, cat, ran
    assert inventory[" "].count == 6
    assert inventory["t"].count == 4  # cat, sat, cat, don't (not the capital T of The)
    assert inventory["'"].category == "Po"
    assert stats.char_inventory[0].char == " "  # most frequent first
    assert sum(row.count for row in stats.char_inventory) == stats.chars


def test_inventory_ties_are_sorted_by_code_point():
    stats = corpus_stats(Corpus("t", ("cba",)))
    assert [row.char for row in stats.char_inventory] == ["a", "b", "c"]


@pytest.mark.parametrize(
    "char, script, category",
    [
        ("a", "Latin", "Ll"), ("É", "Latin", "Lu"), ("я", "Cyrillic", "Ll"), ("λ", "Greek", "Ll"),
        ("中", "Han", "Lo"), ("あ", "Hiragana", "Lo"), ("カ", "Katakana", "Lo"), ("한", "Hangul", "Lo"),
        ("ب", "Arabic", "Lo"), ("א", "Hebrew", "Lo"), ("क", "Devanagari", "Lo"), ("ก", "Thai", "Lo"),
        ("\u0301", "Inherited", "Mn"), ("🙂", "Common", "So"), ("7", "Common", "Nd"), (" ", "Common", "Zs"),
        ("\u200d", "Inherited", "Cf"), ("\u0378", "Unknown", "Cn"), ("ᱚ", "Ol Chiki", "Lo"),
    ],
)
def test_script_and_category(char, script, category):
    info = char_info(char, 1)
    assert info.script == script
    assert info.category == category == unicodedata.category(char)
    assert info.codepoint == f"U+{ord(char):04X}"


def test_names_of_controls_and_unnamed_characters():
    assert char_info("\n").name == "LINE FEED (LF)"
    assert char_info("\x01").name == "<control>"
    assert char_info("é").name == "LATIN SMALL LETTER E WITH ACUTE"


@given(st.characters(blacklist_categories=("Cs",)))
def test_script_agrees_with_the_regex_module(char):
    script = script_of(char)
    try:
        pattern = regex.compile(rf"\p{{Script={script.replace(' ', '_')}}}")
    except regex.error:
        return  # a label from the character name that is not a script name (e.g. "Other")
    assert pattern.match(char), (char, script)


def test_words_definition():
    assert count_words(["l'été don't x_y 3.14 🙂 e\u0301te"]) == {
        "l'été": 1, "don't": 1, "x_y": 1, "3": 1, "14": 1, "e\u0301te": 1
    }
    assert word_count("👨\u200d👩\u200d👧 — ‽") == 0  # emoji joiners are not words
    assert word_count("日本語のテキスト") == 1  # no spaces: one run


def test_samples_word_statistics_from_the_literature():
    hf = corpus_stats(load_sample("hf-course-hug-pug"))
    assert (hf.words, hf.unique_words) == (36, 5)
    assert hf.word_freq == [("pun", 12), ("hug", 10), ("hugs", 5), ("pug", 5), ("bun", 4)]
    sennrich = corpus_stats(load_sample("sennrich-low-lower-newest-widest"))
    assert (sennrich.words, sennrich.unique_words) == (16, 4)
    wiki = corpus_stats(load_sample("wikipedia-aaabdaaabac"))
    assert (wiki.words, wiki.chars, wiki.lines) == (1, 11, 1)
    assert [(r.char, r.count) for r in wiki.char_inventory] == [("a", 7), ("b", 2), ("c", 1), ("d", 1)]


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=50), min_size=1, max_size=4))
def test_stats_add_up(texts):
    corpus = Corpus("p", tuple(texts))
    stats = corpus_stats(corpus)
    assert stats.chars == len(corpus.text)
    assert stats.bytes == len(corpus.text.encode())
    assert sum(row.count for row in stats.char_inventory) == stats.chars
    assert sum(count for _, count in stats.word_freq) == stats.words == word_count(corpus.text)
    assert stats.word_freq == sorted(stats.word_freq, key=lambda kv: (-kv[1], kv[0]))
    assert stats.lines == sum(t.count("\n") + (0 if t.endswith("\n") or not t else 1) for t in texts)


def test_sample_stats_are_read_back_and_a_damaged_file_is_recounted(tmp_path):
    from tokenizer_core.corpus.loading import load_sample
    from tokenizer_core.corpus.stats_cache import sample_stats

    corpus = load_sample("sennrich-low-lower-newest-widest")
    first = sample_stats(corpus, folder=tmp_path)
    (stored,) = tmp_path.glob("stats-*.json")
    assert sample_stats(corpus, folder=tmp_path) == first == corpus_stats(corpus)
    stored.write_text('{"documents": 1', encoding="utf-8")  # cut short
    assert sample_stats(corpus, folder=tmp_path) == first
    assert stored.read_text(encoding="utf-8").endswith("}")  # written again, whole


def test_the_default_corpus_ships_its_statistics(tmp_path):
    from tokenizer_core.corpus.loading import load_sample
    from tokenizer_core.corpus.stats_cache import sample_stats, shipped_path

    corpus = load_sample("default")
    assert shipped_path(corpus).is_file()  # else: python -m tokenizer_core.corpus.ship
    assert sample_stats(corpus, folder=tmp_path) == corpus_stats(corpus)
    assert not list(tmp_path.iterdir())  # read from the shipped file: nothing counted or written


def test_concurrent_first_counts_count_once(tmp_path, monkeypatch):
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from tokenizer_core.corpus import stats_cache
    from tokenizer_core.corpus.loading import load_sample

    corpus = load_sample("sennrich-low-lower-newest-widest")
    calls = []

    def slow_count(c):
        calls.append(threading.get_ident())
        time.sleep(0.2)  # every thread below asks while the first counts
        return corpus_stats(c)

    monkeypatch.setattr(stats_cache, "corpus_stats", slow_count)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: stats_cache.sample_stats(corpus, folder=tmp_path), range(4)))
    assert results == [corpus_stats(corpus)] * 4
    assert len(calls) == 1


@given(st.text(alphabet=st.sampled_from("ab'’ \n.é\u0301-1_"), max_size=200), st.integers(1, 20))
def test_counting_in_chunks_never_splits_a_word(text, size):
    from tokenizer_core.corpus import stats as stats_module

    chunks = list(stats_module._chunks(text, size=size))
    assert "".join(chunks) == text
    in_chunks = [w for chunk in chunks for w in stats_module._WORD_RE.findall(chunk)]
    assert in_chunks == stats_module._WORD_RE.findall(text)
