"""The compiled kernel ``tokenizer_kernel`` (C in kernels/src, built by setup.py at install), if present,
and the character classes it reads, taken from the ``regex`` module itself so that the kernel
and the Python path can never disagree about what is a letter, a digit, a space or a word character.

The kernel is optional: without it (no compiler at install, or ``TOKENIZER_CORE_PURE=1``)
:func:`available` is False and every caller uses the Python path, which stays the reference.

>>> t = class_table(); t[ord("a")] & 7, t[ord("7")] & 7, t[ord(" ")], (t[0x17F] >> 3) & 15, t[ord("_")]  # ſ folds to s
(1, 2, 4, 1, 128)
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from array import array
from functools import lru_cache
from pathlib import Path
from typing import Any

import regex

from tokenizer_core.cache_paths import cache_dir
from tokenizer_core.kernel.codes import CASELESS_SHIFT, CharClass

try:  # built by `pip install .` (setup.py; requirements.txt installs it); optional by design
    import tokenizer_kernel as _kernel
except ImportError:  # pragma: no cover - exercised on machines without a compiler
    _kernel = None

_TABLE_VERSION = 1  # bump when the table's layout changes
_CASELESS = "sdmtlver"  # the letters of cl100k's (?i:[sdmt]|ll|ve|re)
_lock = threading.Lock()


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def available() -> bool:
    """Whether the compiled kernel is installed and not switched off (``TOKENIZER_CORE_PURE=1``)."""
    return _kernel is not None and os.environ.get("TOKENIZER_CORE_PURE", "") != "1"


def default_threads() -> int:
    """How many threads the kernel's parallel calls use by default: the cores this process may
    run on (its CPU affinity, which containers and ``taskset`` narrow), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


def kernel() -> Any:
    """The ``tokenizer_kernel`` module (check :func:`available` first)."""
    return _kernel


def class_table() -> bytes:
    """One byte per code point: 1 ``\\p{L}``, 2 ``\\p{N}``, 4 ``\\s`` as the ``regex`` module reads them,
    plus (bits 3..6) 1 + the index in "sdmtlver" of the letter a character matches case-insensitively,
    and 128 for ``\\w``. Built once per ``regex`` version (0.1 s) and kept in the cache folder, so a
    new process reads it in a millisecond."""
    with _lock:
        return _class_table()


@lru_cache(maxsize=1)
def _class_table() -> bytes:
    path = _table_path()
    try:  # the table, then its digest: a damaged file is rebuilt, never used
        stored = path.read_bytes()
        data, digest = stored[:0x110000], stored[0x110000:]
        if len(data) == 0x110000 and digest == _digest(data):
            return data
    except OSError:
        pass
    data = _build_class_table()
    try:  # best effort: a read-only home only costs the next process 0.1 s
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data + _digest(data))
        os.replace(tmp, path)
    except OSError:
        pass
    return data


def _table_path() -> Path:
    return cache_dir() / f"char-classes-v{_TABLE_VERSION}-regex-{regex.__version__}.bin"


def _build_class_table() -> bytes:
    # Every code point in one string, made from 4-byte units (no million one-character strings).
    everything = array("I", range(0x110000)).tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be",
                                                             "surrogatepass")
    table = bytearray(0x110000)
    # The three classes are disjoint general categories (L*, N*, and Z*/Cc), so plain assignment will do.
    for pattern, code in ((r"\p{L}+", CharClass.LETTER), (r"\p{N}+", CharClass.DIGIT), (r"\s+", CharClass.SPACE)):
        for m in regex.finditer(pattern, everything):
            s, e = m.span()
            table[s:e] = bytes([code]) * (e - s)
    for k, letter in enumerate(_CASELESS):
        for m in regex.finditer(f"(?i:{letter})", everything):
            table[m.start()] |= (k + 1) << CASELESS_SHIFT
    with_word = bytes(b | int(CharClass.WORD) for b in range(256))
    for m in regex.finditer(r"\w+", everything):
        s, e = m.span()
        table[s:e] = table[s:e].translate(with_word)
    return bytes(table)
