"""The default English corpus: prose from the documentation that ships with Python.

The corpus ships with the project (``samples/default.txt.xz``, 540 kB), built once from CPython 3.11.7. So every
machine and every Python sees the same corpus, and the first page of a fresh install opens at once.
``python -m tokenizer_core.corpus.ship`` rebuilds that file from the running Python. Sources, in this order, which
is deterministic for a given Python version:

1. ``pydoc_data.topics``: the language-reference topics that ``help()`` shows, generated from the Python
   documentation. It is imported, being a plain data module.
2. The docstrings of the standard library's ``.py`` files, found by parsing them with :mod:`ast`, never by importing
   them. Files and folders come in sorted order. Test suites and bundled third-party packages are left out.
3. The comment blocks of those same files.

All of it is © Python Software Foundation and distributed under the PSF License Agreement, the documentation under
the same terms. It allows copying and derived works with the licence notice, which ``samples/PSF-LICENSE.txt``
carries.

Only prose survives. A paragraph is dropped when it is a doctest (``>>>``), a reST directive, a literal or code
block, a grammar rule, or mostly identifiers. reST inline markup (``:func:`x```, ````x````, ``*x*``) is reduced to
its text. Each kept paragraph becomes one line, and exact duplicates are dropped. The result is about 2 MB, with
13 000+ distinct lowercase words.

If the shipped file is missing or damaged, the corpus is built from the running Python instead, in about 2 s. It is
then cached on disk, keyed by Python version, under ``$TOKENIZER_PLAYGROUND_CACHE`` or
``~/.cache/tokenizer-playground``. The file is written atomically, so concurrent first uses cannot see half a file.

>>> clean_paragraph(["Return the :func:`len` of *items*, or ``None``", "when empty."])
'Return the len of items, or None when empty.'
>>> clean_paragraph([">>> len([1, 2])", "2"]) is None
True
"""

from __future__ import annotations

import ast
import lzma
import os
import platform
import re
import sysconfig
import tempfile
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Optional

from tokenizer_core.cache_paths import cache_dir

__all__ = [
    "BUILD_VERSION",
    "cache_dir",
    "cache_path",
    "default_corpus_text",
    "shipped_corpus_text",
    "build_default_corpus_text",
    "clean_paragraph",
]

#: Bump when the cleaning rules change, so old caches are not reused.
BUILD_VERSION = 2

# Folders of the standard library that are not its documentation: test suites,
# bundled wheels, third-party installs, the generated topics (read separately),
# the codec tables and the deprecated lib2to3 (much of it Python 2 fixtures).
_SKIP_DIRS = frozenset(
    {
        "test", "tests", "idle_test", "site-packages", "dist-packages", "__pycache__",
        "pydoc_data", "lib2to3", "turtledemo", "ensurepip", "encodings",
    }
)

_ROLE = re.compile(r":[\w:.+-]+:`([^`<]*?)(?:\s*<[^`>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``")
_LINK = re.compile(r"`([^`<]+?)(?:\s*<[^`>]*>)?`_{1,2}")
_BACKTICK = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])")
_UNDERLINE = re.compile(r"^\s*([=\-~^*#+\"'`.:])\1{2,}\s*$")
# A rule of a plain-text table ("----- -----", "+---+---+", "=== ==="): its rows are not prose.
_TABLE_RULE = re.compile(r"^\s*[+|]?[=\-~^*+]{3,}(?:[ +|]+[=\-~^*+]{3,})+[ +|]*$")
_BULLET = re.compile(r"^(?:[-*+•]|\d+[.)]|[a-zA-Z][.)]|[IVX]+\.)\s+")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
# A whitespace-separated token "looks like code" when it has one of these.
_CODE_MARK = re.compile(r"[()\[\]{}=<>_;|@#$%^*`~+\\/]|\.\w|::")
_NOT_PROSE_START = (">>>", "...", ".. ", "$ ", "% ")

#: The corpus as shipped: built by :mod:`tokenizer_core.corpus.ship` (with CPython :data:`SHIPPED_BUILT_WITH`).
SHIPPED_PATH = Path(__file__).resolve().parent / "samples" / "default.txt.xz"
SHIPPED_BUILT_WITH = "3.11.7"
LICENSE_PATH = SHIPPED_PATH.with_name("PSF-LICENSE.txt")
_BUILD_LOCK = threading.Lock()  # one build per process at a time (see default_corpus_text)

_MIN_WORDS = 5
_MAX_CODE_SHARE = 0.2
_MIN_WORD_SHARE = 0.7


def cache_path(directory: Optional[Path] = None) -> Path:
    """Where the default corpus for this Python version is cached.

    >>> cache_path(Path("/c")).name.startswith("default-corpus-v")
    True
    """
    tag = f"{platform.python_implementation().lower()}{platform.python_version()}"
    return Path(directory or cache_dir()) / f"default-corpus-v{BUILD_VERSION}-{tag}.txt"


def _inline_markup(text: str) -> str:
    text = _ROLE.sub(r"\1", text)
    text = _LITERAL.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _BACKTICK.sub(r"\1", text)
    text = _STRONG.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    return text[:-2] + ":" if text.endswith("::") else text


def clean_paragraph(lines: Sequence[str]) -> Optional[str]:
    """Turn one paragraph (its lines) into a line of plain prose, or None if it is not prose."""
    if any(line.lstrip().startswith(_NOT_PROSE_START) or _TABLE_RULE.match(line) for line in lines):
        return None
    kept = [line.strip() for line in lines if not _UNDERLINE.match(line)]
    text = " ".join(_inline_markup(" ".join(kept)).split())
    text = _BULLET.sub("", text)
    if len(_WORD.findall(text)) < _MIN_WORDS:
        return None
    tokens = text.split()
    code = sum(1 for tok in tokens if _CODE_MARK.search(tok.rstrip(".,:;!?")))
    if code > _MAX_CODE_SHARE * len(tokens):
        return None
    wordlike = sum(1 for tok in tokens if tok.strip(".,:;!?\"'()").isalpha())
    if wordlike < _MIN_WORD_SHARE * len(tokens):
        return None
    # Fragments cut from a longer text start in lowercase; keep whole sentences.
    if not (text[0].isupper() or text[0] in "\"'"):
        return None
    return text


def _paragraphs(text: str) -> Iterator[list[str]]:
    block: list[str] = []
    for line in text.split("\n"):
        if line.strip():
            block.append(line)
        elif block:
            yield block
            block = []
    if block:
        yield block


def _comment_blocks(source: str) -> Iterator[list[str]]:
    # Consecutive full-line comments form a paragraph; a bare "#" ends one.
    block: list[str] = []
    for line in source.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#") and not stripped.startswith("#!"):
            body = stripped.lstrip("#").strip()
            if body:
                block.append(body)
                continue
        if block:
            yield block
            block = []
    if block:
        yield block


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
# Only these nodes can hold a definition below them (expressions never do), so the walk skips
# every expression subtree: a third of the build time was spent visiting expressions.
_CAN_HOLD_DEFINITIONS = (ast.stmt, ast.excepthandler, ast.match_case)
_STATEMENT_LISTS = frozenset({"body", "orelse", "handlers", "finalbody", "cases"})


def _docstrings(tree: ast.AST) -> Iterator[str]:
    """Docstrings in the order ``ast.walk`` (breadth first) would meet their nodes.

    Pruning subtrees that hold no definition keeps the relative breadth-first order of the rest.
    """
    queue = deque([tree])
    while queue:
        node = queue.popleft()
        if isinstance(node, _DOCUMENTED):
            doc = ast.get_docstring(node, clean=True)
            if doc:
                yield doc
        for field in node._fields:  # in ast.walk's order (a try's handlers before its else)
            children = getattr(node, field, None) if field in _STATEMENT_LISTS else None
            if children:
                queue.extend(c for c in children if isinstance(c, _CAN_HOLD_DEFINITIONS))


def _stdlib_files() -> Iterator[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    if not root.is_dir():
        return
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(folder) / name


def _raw_paragraphs() -> Iterator[list[str]]:
    from pydoc_data.topics import topics  # a generated dict of help texts, safe to import

    for key in sorted(topics):
        yield from _paragraphs(topics[key])
    for path in _stdlib_files():
        try:
            source = path.read_bytes()
            tree = ast.parse(source)
        except (OSError, SyntaxError, ValueError):
            continue  # unreadable or not Python 3: it holds no usable prose for us
        for doc in _docstrings(tree):
            yield from _paragraphs(doc)
        yield from _comment_blocks(source.decode("utf-8", "replace"))


def _unique_prose(blocks: Iterable[list[str]]) -> Iterator[str]:
    seen: set[str] = set()
    for block in blocks:
        text = clean_paragraph(block)
        if text is not None and text not in seen:
            seen.add(text)
            yield text


def build_default_corpus_text() -> str:
    """Build the corpus text from this Python installation (about 2 s); no caching.

    One paragraph per line, ending with a newline.
    """
    return "\n".join(_unique_prose(_raw_paragraphs())) + "\n"


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(temp, 0o644)  # mkstemp makes it private; a cache may be shared
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def shipped_corpus_text() -> Optional[str]:
    """The corpus that ships with the project, or None when its file is missing or damaged."""
    try:
        return _whole(lzma.decompress(SHIPPED_PATH.read_bytes()).decode("utf-8"))
    except (OSError, lzma.LZMAError, UnicodeDecodeError):
        return None


def default_corpus_text(*, directory: Optional[Path] = None, rebuild: bool = False) -> str:
    """The default corpus text: the shipped one, else read from the cache or built and cached.

    ``rebuild`` builds it from the running Python whatever is shipped or cached. A cache that
    cannot be read or written (read-only home, full disk) is not an error: the text is then
    rebuilt in memory each time.
    """
    if not rebuild:
        shipped = shipped_corpus_text()
        if shipped is not None:
            return shipped
    path = cache_path(directory)
    if not rebuild:
        cached = _read_cache(path)
        if cached is not None:
            return cached
    # One build per process at a time: the server's warm-up and the first sessions all ask for
    # the corpus at once on a fresh machine, and the later ones should wait for the first's file.
    with _BUILD_LOCK:
        if not rebuild:
            cached = _read_cache(path)
            if cached is not None:
                return cached
        text = build_default_corpus_text()
        try:
            _write_atomically(path, text)
        except OSError:
            pass  # caching is an optimisation only
    return text


def _read_cache(path: Path) -> Optional[str]:
    try:
        return _whole(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def _whole(text: str) -> Optional[str]:
    """``text`` if it looks like a whole corpus file (not cut short), else None."""
    return text if text.endswith("\n") and len(text) > 1000 else None

