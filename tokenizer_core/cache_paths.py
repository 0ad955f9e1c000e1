"""The one folder every cached file goes to (the default corpus, its statistics, the kernel's tables).

>>> cache_dir().is_absolute()
True
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The folder for cached files: ``$TOKENIZER_PLAYGROUND_CACHE`` or ``~/.cache/tokenizer-playground``."""
    configured = os.environ.get("TOKENIZER_PLAYGROUND_CACHE")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "tokenizer-playground"
