"""A reproducible English-ish benchmark corpus built offline from installed text.

The benches need megabytes of natural-ish text without the internet. Python ships
plenty: the reference manual topics in :mod:`pydoc_data.topics`, the docstrings
and comments of the standard library, and the README/METADATA/licence files and
docstrings of installed packages. :func:`bench_corpus_path` gathers them in a
fixed order (sorted paths), cuts at the requested size and caches the result
under ``$TOKENIZER_PLAYGROUND_CACHE`` (default ``~/.cache/tokenizer-playground``).
Order and content depend only on the Python version and the installed packages,
so two runs on the same machine measure the same text.

>>> p = bench_corpus_path(1)                    # doctest: +SKIP
>>> 0.9e6 < p.stat().st_size <= 1_100_000       # doctest: +SKIP
True
"""

from __future__ import annotations

import ast
import hashlib
import os
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

# Bump when the recipe changes so stale caches are not reused.
_RECIPE_VERSION = 2
# Docstrings can hold escaped control characters ("\\x00"); corpus readers take NUL for binary.
_CONTROLS = {c: None for c in range(32) if chr(c) not in "\t\n"} | {0x7F: None}
_MAX_SOURCE_BYTES = 2_000_000  # skip huge generated files (unicode tables, vendored blobs)
_DOC_SUFFIXES = (".txt", ".md", ".rst")
_DOC_NAMES = ("METADATA", "LICENSE", "LICENSE.txt", "README", "NOTICE")


def cache_dir() -> Path:
    """Where generated corpora are cached (created on demand)."""
    root = os.environ.get("TOKENIZER_PLAYGROUND_CACHE")
    path = Path(root) if root else Path.home() / ".cache" / "tokenizer-playground"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _read_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > _MAX_SOURCE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _python_prose(source: str) -> str:
    """Docstrings and comment lines of one Python source file, as paragraphs."""
    parts: list[str] = []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=True)
                if doc:
                    parts.append(doc)
    comments = []
    for line in source.splitlines():
        stripped = line.strip()
        # Only comments that read like prose: skip shebangs, pragmas and ruler lines.
        if stripped.startswith("# ") and len(stripped) > 12 and "noqa" not in stripped:
            comments.append(stripped[2:])
        elif comments:
            parts.append(" ".join(comments))
            comments = []
    if comments:
        parts.append(" ".join(comments))
    return "\n\n".join(parts)


def _stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def _site_dirs() -> list[Path]:
    paths = {Path(sysconfig.get_paths()["purelib"]), Path(sysconfig.get_paths()["platlib"])}
    return sorted(p for p in paths if p.is_dir())


def _sorted_files(root: Path, *, skip: tuple[Path, ...] = ()) -> list[Path]:
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if here / d not in skip and d != "__pycache__")
        files.extend(here / f for f in filenames)
    return sorted(files)


def _chunks() -> Iterator[str]:
    """All source texts in a fixed order: manual topics, stdlib prose, package docs, package prose."""
    try:
        from pydoc_data.topics import topics
    except ImportError:  # some distributions strip pydoc_data
        topics = {}
    for key in sorted(topics):
        yield topics[key]
    stdlib = _stdlib_dir()
    sites = tuple(_site_dirs())
    for path in _sorted_files(stdlib, skip=sites):
        if path.suffix == ".py":
            text = _read_text(path)
            if text:
                yield _python_prose(text)
    site_files = [f for site in sites for f in _sorted_files(site)]
    for path in site_files:
        if path.suffix in _DOC_SUFFIXES or path.name in _DOC_NAMES:
            text = _read_text(path)
            if text:
                yield text
    for path in site_files:
        if path.suffix == ".py":
            text = _read_text(path)
            if text:
                yield _python_prose(text)


def _fingerprint() -> str:
    """Identifies the text sources (Python version + installed distributions)."""
    h = hashlib.sha256(f"{_RECIPE_VERSION}|{sys.version}".encode())
    for site in _site_dirs():
        for entry in sorted(os.listdir(site)):
            if entry.endswith((".dist-info", ".egg-info")):
                h.update(entry.encode())
    return h.hexdigest()[:12]


def build_corpus(size_bytes: int) -> str:
    """Return about ``size_bytes`` bytes of UTF-8 text (whole lines, never more).

    When the installed text runs out, it is repeated from the start, so any size works.
    """
    if size_bytes <= 0:
        raise ValueError(f"corpus size must be positive, got {size_bytes}")
    out: list[str] = []
    total = 0
    while total < size_bytes:
        added_this_pass = 0
        for chunk in _chunks():
            for line in chunk.splitlines(keepends=False):
                line = line.rstrip().translate(_CONTROLS)
                encoded = len(line.encode("utf-8")) + 1
                if total + encoded > size_bytes:
                    return "".join(out)
                out.append(line + "\n")
                total += encoded
                added_this_pass += encoded
            out.append("\n")
            total += 1
        if added_this_pass == 0:
            raise RuntimeError("no text found in the Python installation to build a corpus from")
    return "".join(out)


def bench_corpus_path(size_mb: int = 10) -> Path:
    """Path of a cached ~``size_mb`` MB (10^6 bytes) benchmark corpus, building it if needed."""
    if size_mb <= 0:
        raise ValueError(f"size_mb must be positive, got {size_mb}")
    path = cache_dir() / f"bench-corpus-{size_mb}mb-{_fingerprint()}.txt"
    if not path.exists():
        text = build_corpus(size_mb * 1_000_000)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)  # atomic: parallel benches never read a half-written file
    return path


if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    p = bench_corpus_path(size)
    sys.stdout.write(f"{p} ({p.stat().st_size:,} bytes)\n")
