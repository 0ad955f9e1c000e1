"""The five corpora of ``bench_unigram``, each built offline and deterministically.

* **English prose**: :func:`bench.corpus.bench_corpus_path` (Python's manual, docstrings, package docs).
* **Scripture-style**: the sentences of that prose, each numbered as a verse ("Jeremiah 32:34: ..."),
  so every line holds a book name, numbers and colons.
* **Code**: the Python standard library's own sources, sorted by path.
* **Japanese**: the Japanese message catalogs installed on the machine
  (``/usr/share/locale/ja/LC_MESSAGES/*.mo``) plus Vim's Japanese tutor, consecutive messages joined
  into paragraphs of at least :data:`PARAGRAPH_CHARS` characters, as Japanese prose is written.
* **Multilingual**: the same paragraphs from the catalogs of nine languages, one language's
  paragraph after another's.

>>> lines = scripture_lines(["One. Two!", "Three?"], size_bytes=100)
>>> lines[:2]
['Genesis 1:1: One.\\n', 'Genesis 1:2: Two!\\n']
"""

from __future__ import annotations

import gettext
import re
import sysconfig
from collections.abc import Iterable
from pathlib import Path

#: Shortest paragraph built from a catalog's messages (characters).
PARAGRAPH_CHARS = 300
_LOCALE_DIRS = ("/usr/share/locale", "/usr/share/locale-langpack")
_JA_TEXT_FILES = ("/usr/share/vim/vim90/tutor/tutor.ja.utf-8", "/usr/share/vim/vim91/tutor/tutor.ja.utf-8")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
#: Languages of the multilingual mix, each with a pattern its translated messages must match.
_MIX = (("de", r"[äöüß]"), ("fr", r"[éèàç]"), ("es", r"[ñáéó]"), ("ru", r"[а-я]"), ("el", r"[α-ω]"),
        ("ar", r"[\u0600-\u06ff]"), ("zh_CN", r"[\u4e00-\u9fff]"), ("ko", r"[\uac00-\ud7af]"),
        ("ja", r"[\u3040-\u30ff]"))
_BOOKS = ("Genesis", "Exodus", "Leviticus", "Numbers", "Deuteronomy", "Joshua", "Judges", "Ruth", "Samuel",
          "Kings", "Chronicles", "Ezra", "Nehemiah", "Esther", "Job", "Psalms", "Proverbs", "Ecclesiastes",
          "Isaiah", "Jeremiah", "Lamentations", "Ezekiel", "Daniel", "Hosea", "Joel", "Amos", "Obadiah",
          "Jonah", "Micah", "Nahum", "Habakkuk", "Zephaniah", "Haggai", "Zechariah", "Malachi", "Matthew",
          "Mark", "Luke", "John", "Acts", "Romans", "Corinthians", "Galatians", "Ephesians", "Philippians",
          "Colossians", "Thessalonians", "Timothy", "Titus", "Philemon", "Hebrews", "James", "Peter", "Jude",
          "Revelation")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _cut(lines: Iterable[str], size_bytes: int) -> list[str]:
    """The first lines (each ending in a newline) that fit in ``size_bytes`` of UTF-8."""
    out, total = [], 0
    for line in lines:
        total += len(line.encode("utf-8"))
        if total > size_bytes:
            break
        out.append(line)
    return out


def english_lines(size_bytes: int) -> list[str]:
    """The English prose corpus, cut at ``size_bytes``."""
    from bench.corpus import bench_corpus_path

    size_mb = max(1, -(-size_bytes // 1_000_000))
    text = bench_corpus_path(size_mb).read_text(encoding="utf-8")
    return _cut(text.splitlines(keepends=True), size_bytes)


def scripture_lines(prose: Iterable[str], *, size_bytes: int) -> list[str]:
    """Sentences of ``prose`` as numbered verses: book, chapter:verse, a colon, the sentence.

    Paragraphs (runs of non-empty lines) are joined and cut at sentence ends; a new chapter
    starts every 30 verses and a new book every 50 chapters.
    """
    def sentences() -> Iterable[str]:
        paragraph: list[str] = []
        for line in list(prose) + [""]:
            if line.strip():
                paragraph.append(line.strip())
                continue
            if paragraph:
                yield from (s for s in _SENTENCE_END.split(" ".join(paragraph)) if len(s) > 1)
                paragraph = []

    def verses() -> Iterable[str]:
        for n, sentence in enumerate(sentences()):
            book = _BOOKS[(n // 1500) % len(_BOOKS)]
            yield f"{book} {n // 30 % 50 + 1}:{n % 30 + 1}: {sentence}\n"

    return _cut(verses(), size_bytes)


def code_lines(size_bytes: int) -> list[str]:
    """Python standard-library source files, sorted by path, cut at ``size_bytes``."""
    root = Path(sysconfig.get_paths()["stdlib"])

    def lines() -> Iterable[str]:
        for path in sorted(root.glob("*.py")):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            yield from (ln if ln.endswith("\n") else ln + "\n" for ln in text.splitlines(keepends=True))

    return _cut(lines(), size_bytes)


def catalog_paragraphs(language: str, pattern: str) -> list[str]:
    """Paragraph lines of the messages translated into ``language`` (sorted files, sorted messages)
    that match ``pattern``; ``[]`` where no catalogs of it are installed.
    """
    wanted = re.compile(pattern)
    paragraphs: list[str] = []
    for root in _LOCALE_DIRS:
        folder = Path(root) / language / "LC_MESSAGES"
        for path in sorted(folder.glob("*.mo")) if folder.is_dir() else []:
            try:
                with path.open("rb") as fh:
                    catalog = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
            except (OSError, UnicodeDecodeError, ValueError):
                continue  # a catalog in another encoding or a broken file: skip it
            current = ""
            for key in sorted(catalog, key=str):
                text = catalog[key]
                if not key:  # the catalog's header, not a message
                    continue
                if not isinstance(text, str) or not wanted.search(text):
                    continue
                # Messages are wrapped for terminals: join the wrapped lines (with a space
                # except in Chinese and Japanese, which write none).
                sep = "" if language in ("ja", "zh_CN") else " "
                current += sep + sep.join(part.strip() for part in text.splitlines())
                if len(current) >= PARAGRAPH_CHARS:
                    paragraphs.append(current.strip() + "\n")
                    current = ""
            if current.strip():
                paragraphs.append(current.strip() + "\n")
    return paragraphs


def japanese_lines() -> list[str]:
    """Japanese paragraphs from the installed catalogs and Vim's tutor; ``[]`` where there are none."""
    paragraphs = catalog_paragraphs("ja", _JAPANESE.pattern)
    for name in _JA_TEXT_FILES:
        if Path(name).is_file():
            paragraphs.extend(ln + "\n" for ln in Path(name).read_text(encoding="utf-8").splitlines() if ln.strip())
    return paragraphs


def multilingual_lines(size_bytes: int) -> list[str]:
    """Paragraphs of nine languages interleaved (one of each in turn), cut at ``size_bytes``."""
    per_language = [catalog_paragraphs(lang, pattern) for lang, pattern in _MIX]
    mixed = [p for row in zip(*[lst for lst in per_language if lst]) for p in row] if any(per_language) else []
    return _cut(mixed, size_bytes)
