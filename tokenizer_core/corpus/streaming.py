"""Lines of a big plain-text corpus file, read a few MB at a time instead of whole.

:func:`~tokenizer_core.corpus.loading.load_corpus` holds a file as one ``str``; with a single
character beyond Latin-1 that string takes four bytes per character, so a 50 MB file costs
about 450 MB at its peak. Training only needs the lines once, in order: this reader decodes
the file block by block and yields exactly the lines ``load_corpus(path).lines()`` would.

``load_corpus`` stays the reference for everything unusual: other formats, UTF-16, invalid
UTF-8, binary content, a file with no text. The reader hands such a file to it, whose checks
raise the usual :class:`~tokenizer_core.errors.CorpusError` (with offsets and advice).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.txt"
>>> _ = path.write_bytes(b"low lower\\nnewest")
>>> list(stream_lines(path))
['low lower\\n', 'newest']
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from tokenizer_core.corpus.decoding import BINARY_SIGNATURES, Errors
from tokenizer_core.corpus.formats import TEXT_EXTENSIONS
from tokenizer_core.corpus.loading import load_corpus
from tokenizer_core.corpus.sources import DEFAULT_MAX_BYTES
from tokenizer_core.errors import CorpusError
from tokenizer_core.line_blocks import split_lines

_BLOCK = 1 << 22
_UTF8_BOM = codecs.BOM_UTF8
# Starts of files that are not plain UTF-8 text: UTF-16 marks and binary signatures (the loader
# says what they are).
_NOT_UTF8 = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, *(signature for signature, _ in BINARY_SIGNATURES))


def stream_lines(path: Path, *, errors: Errors = "strict", max_bytes: int = DEFAULT_MAX_BYTES,
                 block: int = _BLOCK) -> Iterator[str]:
    """The lines of ``path`` as ``load_corpus(path).lines()`` gives them; plain UTF-8 text files
    (``.txt``/``.md``, strict decoding) are read ``block`` bytes at a time.

    A problem found part-way (invalid UTF-8, a NUL byte) raises the loader's own error then:
    training has not reached its memory-hungry phase yet, as it counts every line first.
    """
    for text in stream_blocks(path, errors=errors, max_bytes=max_bytes, block=block):
        yield from split_lines(text)


def stream_blocks(path: Path, *, errors: Errors = "strict", max_bytes: int = DEFAULT_MAX_BYTES,
                  block: int = _BLOCK) -> Iterator[str]:
    """:func:`stream_lines`' lines a block at a time: each block is whole lines (about ``block``
    bytes of a plain UTF-8 file; one line per block for what the loader reads), for
    :class:`~tokenizer_core.text.line_blocks.LineBlocks`.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.txt"
    >>> _ = path.write_bytes(b"low lower\\nnew\\nest")
    >>> list(stream_blocks(path, block=12))
    ['low lower\\nnew\\n', 'est']
    """
    path = Path(path)
    if path.suffix.lower() not in TEXT_EXTENSIONS or errors != "strict" or not path.is_file() \
            or path.stat().st_size > max_bytes or path.stat().st_size == 0:
        yield from load_corpus(path, errors=errors, max_bytes=max_bytes).lines()
        return
    with path.open("rb") as fh:
        data = fh.read(max(block, 64))  # enough for every signature
        if data.startswith(_NOT_UTF8):
            yield from load_corpus(path, errors=errors, max_bytes=max_bytes).lines()
            return
        if data.startswith(_UTF8_BOM):
            data = data[len(_UTF8_BOM):]
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        pending = ""
        has_text = False
        while True:
            final = not data
            try:
                if b"\x00" in data:
                    raise ValueError("NUL byte")
                text = pending + decoder.decode(data, final=final)
            except ValueError:  # UnicodeDecodeError too: the loader words the error
                _raise_as_loader(path, max_bytes)
            has_text = has_text or (bool(text) and not text.isspace())
            cut = text.rfind("\n") + 1
            if cut:
                yield text[:cut] if cut < len(text) else text
            pending = text[cut:]
            if final:
                break
            data = fh.read(block)
    if pending:
        yield pending
    if not has_text:
        _raise_as_loader(path, max_bytes)


def _raise_as_loader(path: Path, max_bytes: int) -> None:
    load_corpus(path, max_bytes=max_bytes)  # raises the CorpusError that explains the problem
    raise CorpusError(f"{path.name} could not be read as UTF-8 text")
