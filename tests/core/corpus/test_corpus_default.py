"""The default corpus: shipped (built from Python's own documentation), else built and cached; real prose."""

from __future__ import annotations

import os
import platform
import re
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tokenizer_core.corpus import default as default_corpus
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.corpus.stats import count_words


@pytest.fixture(scope="module")
def text() -> str:
    return load_sample("default").text


def test_at_least_one_megabyte_of_prose(text):
    assert len(text.encode("utf-8")) >= 1_000_000
    if not os.path.isdir(sysconfig.get_paths()["stdlib"]):  # pragma: no cover - stripped installs
        pytest.skip("this Python ships without standard-library sources")


def test_many_distinct_real_words(text):
    words = count_words([text.lower()])
    assert len(words) >= 10_000  # enough for vocabularies up to 16k to mean something
    for common in ["the", "function", "return", "module", "value", "string", "file"]:
        assert words[common] > 100, common
    # Mostly real words: few tokens mix letters with digits/underscores.
    odd = sum(n for w, n in words.items() if re.search(r"[\d_]", w))
    assert odd < 0.05 * sum(words.values())


def test_no_doctests_directives_or_markup(text):
    lines = text.split("\n")
    assert not any(line.lstrip().startswith((">>>", "... ", ".. ")) for line in lines)
    assert not re.search(r":(func|class|meth|mod|ref|attr|data|exc):`", text)
    assert not re.search(r"``\S[^`\n]*``", text)  # ``literal`` (TeX quotes ``like this'' are prose)
    assert not re.search(r"(^|\s)([=\-~^*])\2{4,}(\s|$)", text)  # title underlines, table rules


def test_one_paragraph_per_line_without_duplicates(text):
    assert text.endswith("\n")
    lines = text[:-1].split("\n")
    assert all(line.strip() == line and line for line in lines)
    assert len(set(lines)) == len(lines)


@pytest.fixture
def nothing_shipped(tmp_path, monkeypatch):
    """As if the shipped corpus file were missing: the corpus is then built and cached."""
    monkeypatch.setattr(default_corpus, "SHIPPED_PATH", tmp_path / "missing.txt.xz")


@pytest.fixture(scope="module")
def built() -> str:
    return default_corpus.build_default_corpus_text()


def test_the_shipped_corpus_is_what_the_builder_makes_on_its_python(text, built):
    assert text == default_corpus.shipped_corpus_text()
    if platform.python_version() != default_corpus.SHIPPED_BUILT_WITH:
        pytest.skip(f"shipped from Python {default_corpus.SHIPPED_BUILT_WITH}, this is {platform.python_version()}")
    assert built == text  # else: python -m tokenizer_core.corpus.ship


def test_the_shipped_corpus_carries_the_psf_licence():
    licence = default_corpus.LICENSE_PATH.read_text(encoding="utf-8")
    assert "PYTHON SOFTWARE FOUNDATION LICENSE" in licence
    assert "Copyright (c) 2001" in licence


def test_without_the_shipped_file_it_is_built_and_cached(nothing_shipped, isolated_cache, built):
    assert default_corpus.default_corpus_text() == built
    path = default_corpus.cache_path()
    assert path.parent == isolated_cache
    assert path.read_text(encoding="utf-8") == built
    assert not list(isolated_cache.glob("*.tmp"))  # atomic write leaves no temporary file


def test_a_damaged_shipped_file_is_not_used(tmp_path, monkeypatch):
    damaged = tmp_path / "default.txt.xz"
    damaged.write_bytes(b"\xfd7zXZ\x00 not really xz")
    monkeypatch.setattr(default_corpus, "SHIPPED_PATH", damaged)
    assert default_corpus.shipped_corpus_text() is None
    marker = "cached copy\n" * 200
    default_corpus.cache_path(tmp_path).write_text(marker, encoding="utf-8")
    assert default_corpus.default_corpus_text(directory=tmp_path) == marker


def test_cache_is_reused_and_rebuild_is_deterministic(nothing_shipped, tmp_path, built):
    marker = "cached copy\n" * 200
    default_corpus.cache_path(tmp_path).write_text(marker, encoding="utf-8")
    assert default_corpus.default_corpus_text(directory=tmp_path) == marker
    assert default_corpus.default_corpus_text(directory=tmp_path, rebuild=True) == built


def test_concurrent_first_uses_build_once(nothing_shipped, tmp_path, monkeypatch):
    calls = []

    def slow_build() -> str:
        calls.append(1)
        time.sleep(0.2)  # long enough for every thread below to ask while the first builds
        return "built once\n" * 200

    monkeypatch.setattr(default_corpus, "build_default_corpus_text", slow_build)
    with ThreadPoolExecutor(4) as pool:
        texts = list(pool.map(lambda _: default_corpus.default_corpus_text(directory=tmp_path), range(4)))
    assert texts == ["built once\n" * 200] * 4
    assert len(calls) == 1


def test_unusable_cache_folder_still_gives_the_text(nothing_shipped, tmp_path, monkeypatch):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setattr(default_corpus, "build_default_corpus_text", lambda: "built in memory\n")
    assert default_corpus.default_corpus_text(directory=blocker / "cache") == "built in memory\n"


def test_cache_key_has_python_version(tmp_path):
    assert platform.python_version() in default_corpus.cache_path(tmp_path).name


@pytest.mark.parametrize(
    "lines, expected",
    [
        (["Return the :func:`len` of *items*, or ``None``", "when empty."],
         "Return the len of items, or None when empty."),
        (["See `the docs <https://x.org>`_ for **much** more detail::"],
         "See the docs for much more detail:"),
        (["- A bullet point that is also a sentence."], "A bullet point that is also a sentence."),
        ([">>> print(1)", "1"], None),
        ([".. versionadded:: 3.2", "   The *x* parameter was added here."], None),
        (["def f(x): return g(x) + h(y) * k[z]"], None),
        (["Too short."], None),
        (["continues a sentence from somewhere else entirely here."], None),
        (["Title", "====="], None),
        (["x = foo(bar_baz) if a_b else c_d[e] or f_g(h)"], None),
        (["Subwidgets  Class", "---------- -----", "label      Label entry of the table"], None),
    ],
)
def test_clean_paragraph(lines, expected):
    assert default_corpus.clean_paragraph(lines) == expected
