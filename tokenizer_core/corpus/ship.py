"""Rebuild the files the default corpus ships as: ``python -m tokenizer_core.corpus.ship``.

Writes, next to the other samples, the corpus built from the running Python
(:func:`~tokenizer_core.corpus.default.build_default_corpus_text`, xz-compressed), Python's own
licence file with a note saying what it covers (the PSF License asks derived works to carry it),
and the corpus' statistics (:func:`~tokenizer_core.corpus.stats_cache.ship_stats`). Afterwards set
``SHIPPED_BUILT_WITH`` in :mod:`tokenizer_core.corpus.default` to the version it prints; a test
compares the shipped corpus with a fresh build on that version.
"""

from __future__ import annotations

import argparse
import lzma
import platform
import sysconfig
from pathlib import Path
from typing import Optional, Sequence

from tokenizer_core.corpus.default import LICENSE_PATH, SHIPPED_PATH, build_default_corpus_text
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.corpus.stats_cache import ship_stats

LICENCE_NOTE = (
    "default.txt.xz holds prose from the Python documentation and the docstrings and comments of\n"
    "Python's standard library, Copyright (c) 2001 Python Software Foundation; All Rights Reserved,\n"
    "selected and cleaned by tokenizer_core/corpus/default.py. It is used under the licence below,\n"
    "as shipped with the Python that built it.\n\n"
)


def main(argv: Optional[Sequence[str]] = None) -> int:
    argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0]).parse_args(argv)
    text = build_default_corpus_text()
    SHIPPED_PATH.write_bytes(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    licence = Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt"
    LICENSE_PATH.write_text(LICENCE_NOTE + licence.read_text(encoding="utf-8"), encoding="utf-8")
    for old in SHIPPED_PATH.parent.glob("stats-*.json.xz"):
        old.unlink()  # the statistics of an earlier build
    stats = ship_stats(load_sample("default"))
    print(f"wrote {SHIPPED_PATH.name} ({len(text.encode('utf-8')):,} bytes, {text.count(chr(10)):,} "
          f"paragraphs), {LICENSE_PATH.name} and {stats.name} from Python {platform.python_version()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
