"""Statistics of the bundled samples, kept on disk next to the cached default corpus.

Counting the words of the 2 MB default corpus takes a few tenths of a second, which is most of
what the app's first page costs on a fresh server. The samples never change, so their statistics
are computed once per machine and read back afterwards; the default corpus' ship with it (next to
the corpus, checked by a test), so even a fresh install's first page does not count. Only bundled
samples are stored: text a user uploads is never written to disk.

>>> import tempfile
>>> from tokenizer_core.corpus.loading import load_sample
>>> corpus = load_sample("hf-course-hug-pug")
>>> with tempfile.TemporaryDirectory() as d:
...     first = sample_stats(corpus, folder=Path(d))
...     again = sample_stats(corpus, folder=Path(d))   # read from the file written above
>>> first == again, first.words
(True, 36)
"""

from __future__ import annotations

import json
import lzma
import os
import tempfile
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Optional

from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.corpus.stats import CharInfo, CorpusStats, corpus_stats

_VERSION = 1  # bump when CorpusStats or its counting rules change
_COUNT_LOCK = threading.Lock()
SHIPPED_FOLDER = Path(__file__).resolve().parent / "samples"


def _path(corpus: Corpus, folder: Path) -> Path:
    return folder / f"stats-v{_VERSION}-{corpus.fingerprint()}.json"


def shipped_path(corpus: Corpus) -> Path:
    """Where statistics shipped with the project would be (the default corpus' are: see
    ``python -m tokenizer_core.corpus.ship``)."""
    return _path(corpus, SHIPPED_FOLDER).with_suffix(".json.xz")


def ship_stats(corpus: Corpus) -> Path:
    """Count ``corpus`` and write its statistics where :func:`sample_stats` finds shipped ones."""
    path = shipped_path(corpus)
    raw = json.dumps(asdict(corpus_stats(corpus)), ensure_ascii=False).encode("utf-8")
    path.write_bytes(lzma.compress(raw, preset=9))
    return path


def _read(path: Path) -> Optional[CorpusStats]:
    try:
        raw = path.read_bytes()
        data = json.loads(lzma.decompress(raw) if path.suffix == ".xz" else raw)
        data["word_freq"] = [(w, c) for w, c in data["word_freq"]]
        data["char_inventory"] = [CharInfo(**c) for c in data["char_inventory"]]
        return CorpusStats(**data)
    except (OSError, ValueError, TypeError, KeyError, lzma.LZMAError):
        return None  # missing, partial or from another version: count again


def sample_stats(corpus: Corpus, *, folder: Path) -> CorpusStats:
    """:func:`corpus_stats` of a bundled sample, from ``folder`` when it was counted before."""
    path = _path(corpus, folder)
    stats = _read(path) or _read(shipped_path(corpus))
    if stats is not None:
        return stats
    # The server's warm-up and a first session may ask at once: the second waits for the file.
    with _COUNT_LOCK:
        stats = _read(path)
        if stats is not None:
            return stats
        stats = corpus_stats(corpus)
        _write(path, stats, folder)
    return stats


def _write(path: Path, stats: CorpusStats, folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Written to a temporary name and renamed, so a reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(asdict(stats), out, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache folder only costs the next start a recount
