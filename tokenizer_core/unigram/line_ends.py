"""Which words end their lines: what SentencePiece's seed search sees after a word and counts lose.

SentencePiece looks for seed pieces in whole lines, so the character after a word is either the
next word's "▁" or the end of the line; word counts alone cannot tell the two apart. This module
counts the last word of each line while the lines stream past to the counter.

>>> from tokenizer_core.unigram.trainer import unigram_components
>>> parts = unigram_components()
>>> ends = LineEnds(["the cat\\n", "a cat\\n", "the dog \\n", "\\n"])
>>> sum(1 for _ in ends)
4
>>> sorted(ends.words(normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"]).items())
[('▁cat', 2), ('▁dog', 1)]
>>> ends.last_word(normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"])
'▁dog'
>>> list(short_lines(["ab\\n", "abc\\n", "é\\n"], max_bytes=2))   # "abc" has 3 bytes; "é" has 2
['ab\\n', 'é\\n']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any, Optional


def short_lines(lines: Iterable[str], *, max_bytes: int) -> Iterator[str]:
    """``lines`` without those longer than ``max_bytes`` UTF-8 bytes (their newline not counted):
    SentencePiece's ``max_sentence_length``, which skips such lines before it trains.
    Anything but text passes on (the counter refuses it with its own message).
    """
    # Only a line of between max_bytes/4 and max_bytes characters needs encoding to know.
    sure_short = max_bytes // 4
    for line in lines:
        if isinstance(line, str) and len(line) > sure_short:
            text = line[:-1] if line.endswith("\n") else line
            if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
                continue
        yield line


class LineEnds:
    """Passes ``lines`` through unchanged (once), counting each line's last whitespace-separated token."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = lines
        self._raw: Counter[str] = Counter()
        self._last = ""  # the last token of the last line that has one

    def __iter__(self) -> Iterator[str]:
        raw = self._raw
        for line in self._lines:
            if isinstance(line, str):
                # rsplit with a limit splits off just the last token, without splitting the whole line.
                tail = line.rsplit(None, 1)
                if tail:
                    raw[tail[-1]] += 1
                    self._last = tail[-1]
            yield line

    def last_word(self, *, normalizer: Any, pre_tokenizer: Any) -> Optional[str]:
        """The corpus' very last word (after it the text ends), as the counter sees it; ``None`` if none."""
        pieces = pre_tokenizer.words(normalizer.normalize_str(self._last) if normalizer is not None else self._last)
        return pieces[-1] if pieces else None

    def words(self, *, normalizer: Any, pre_tokenizer: Any) -> Counter[str]:
        """The line-final words as the counter sees them (normalized and pre-tokenized), with counts."""
        out: Counter[str] = Counter()
        for token, count in self._raw.items():
            text = normalizer.normalize_str(token) if normalizer is not None else token
            pieces = pre_tokenizer.words(text)
            if pieces:
                out[pieces[-1]] += count
        return out
