"""Reading the raw bytes of a corpus source (a path or uploaded bytes) within a size limit.

>>> read_source(b"hug pug", None, DEFAULT_MAX_BYTES)
(b'hug pug', 'uploaded text.txt')
>>> read_source(b"hug pug", "tiny.txt", 4)
Traceback (most recent call last):
...
tokenizer_core.errors.CorpusError: tiny.txt is 7 bytes, over the limit of 4 bytes. Use a smaller file, or raise the limit (max_bytes).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

from tokenizer_core.corpus.sizes import format_bytes
from tokenizer_core.errors import CorpusError

DEFAULT_MAX_BYTES = 200_000_000
Source = Union[str, os.PathLike, bytes, bytearray, memoryview]


def check_max_bytes(max_bytes: int) -> None:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        raise CorpusError(f"max_bytes must be a positive whole number of bytes, not {max_bytes!r}.")


def too_big(label: str, size: int, max_bytes: int) -> CorpusError:
    return CorpusError(
        f"{label} is {format_bytes(size)}, over the limit of {format_bytes(max_bytes)}. "
        "Use a smaller file, or raise the limit (max_bytes)."
    )


def read_source(source: Source, name: Optional[str], max_bytes: int) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        label = name or "uploaded text.txt"
        if len(data) > max_bytes:
            raise too_big(label, len(data), max_bytes)
        return data, label
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = name or path.name or str(path)
        try:
            size = path.stat().st_size
            if not path.is_file():
                raise CorpusError(f"{path} is not a file.")
            if size > max_bytes:
                raise too_big(label, size, max_bytes)
            with path.open("rb") as handle:
                data = handle.read(max_bytes + 1)
        except FileNotFoundError:
            raise CorpusError(f"{path} does not exist. Check the path.") from None
        except PermissionError:
            raise CorpusError(f"{path} cannot be read (permission denied).") from None
        except IsADirectoryError:
            raise CorpusError(f"{path} is a folder; give a file (or a .zip of files).") from None
        except OSError as err:
            raise CorpusError(f"{path} cannot be read ({err.strerror or err}).") from None
        if len(data) > max_bytes:
            raise too_big(label, len(data), max_bytes)
        return data, label
    raise CorpusError(f"A corpus source must be a file path or bytes, not {type(source).__name__}.")
