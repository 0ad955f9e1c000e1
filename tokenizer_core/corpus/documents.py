"""The :class:`Corpus` type: an immutable, hashable bag of documents, and joining corpora.

>>> combine_corpora([Corpus("a", ("x",)), Corpus("b", ("y",))]).text
'x\\ny'
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

from tokenizer_core.errors import CorpusError


def split_lines(text: str) -> Iterator[str]:
    """The lines of ``text``, each keeping its ``"\\n"`` (only ``"\\n"`` ends a line).

    >>> list(split_lines("a\\r\\nb\\n\\nc"))
    ['a\\r\\n', 'b\\n', '\\n', 'c']
    """
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            if start < len(text):
                yield text[start:]
            return
        yield text[start : end + 1]
        start = end + 1


@dataclass(frozen=True)
class Corpus:
    """An immutable collection of documents used for training and measuring tokenizers.

    ``texts`` holds the documents; ``source`` says where they came from (for
    people, not machines); ``replaced_bytes`` counts input bytes that were not
    valid text and became U+FFFD; ``word_counts`` is set for the samples that
    the literature defines by word counts (e.g. ``{"hug": 10, ...}``).

    >>> c = Corpus("two docs", ("a b", "c\\n"))
    >>> c.text, c.size_bytes, list(c.lines())
    ('a b\\nc\\n', 6, ['a b', 'c\\n'])
    """

    name: str
    texts: tuple[str, ...]
    source: str = ""
    replaced_bytes: int = 0
    # A dict is the convenient shape for callers; it is left out of the hash
    # so a Corpus stays hashable. Treat it as read-only.
    word_counts: Optional[dict[str, int]] = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if isinstance(self.texts, str) or not all(isinstance(t, str) for t in self.texts):
            raise CorpusError("Corpus texts must be a sequence of strings, one per document.")
        if not isinstance(self.texts, tuple):
            object.__setattr__(self, "texts", tuple(self.texts))

    @property
    def text(self) -> str:
        """All documents joined by a newline (the document itself when there is one)."""
        if len(self.texts) == 1:
            return self.texts[0]
        return "\n".join(self.texts)

    # Cached: a Corpus never changes, and big ones are costly to measure on every rerun.
    @cached_property
    def size_bytes(self) -> int:
        """Size of :attr:`text` in UTF-8 bytes."""
        return sum(len(t.encode("utf-8")) for t in self.texts) + max(len(self.texts) - 1, 0)

    @cached_property
    def num_chars(self) -> int:
        """Length of :attr:`text` in characters (code points)."""
        return sum(len(t) for t in self.texts) + max(len(self.texts) - 1, 0)

    def lines(self) -> Iterator[str]:
        """Yield the lines of every document, keeping ``"\\n"`` as files read by ``tokenizers`` do.

        Only ``"\\n"`` ends a line (not ``"\\r"`` or U+2028), so ``"".join(lines)``
        gives back the documents exactly.

        >>> list(Corpus("c", ("a\\r\\nb\\n\\n", "c")).lines())
        ['a\\r\\n', 'b\\n', '\\n', 'c']
        """
        for text in self.texts:
            yield from split_lines(text)

    def fingerprint(self) -> str:
        """A short hex digest of the documents, for cache keys.

        >>> Corpus("a", ("x",)).fingerprint() == Corpus("b", ("x",)).fingerprint()
        True
        """
        return self._digest

    @cached_property
    def _digest(self) -> str:
        h = hashlib.blake2b(digest_size=12)
        for text in self.texts:
            data = text.encode("utf-8", "surrogatepass")
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
        return h.hexdigest()

    def head(self, max_chars: int) -> str:
        """The start of :attr:`text`, at most ``max_chars`` characters, without joining everything.

        >>> Corpus("c", ("ab", "cd")).head(4)
        'ab\\nc'
        """
        parts: list[str] = []
        left = max(max_chars, 0)
        for index, text in enumerate(self.texts):
            if index:
                parts.append("\n"[:left])
                left -= len(parts[-1])
            parts.append(text[:left])
            left -= len(parts[-1])
            if left <= 0:
                break
        return "".join(parts)


def combine_corpora(corpora: Sequence[Corpus], *, name: Optional[str] = None) -> Corpus:
    """Join several corpora into one (documents in order; replaced bytes added up).

    >>> a, b = Corpus("a", ("x",)), Corpus("b", ("y", "z"))
    >>> combine_corpora([a, b]).texts, combine_corpora([a, b]).name
    (('x', 'y', 'z'), 'a + b')
    """
    corpora = list(corpora)
    if not corpora:
        raise CorpusError("There is no corpus to combine; choose at least one file.")
    if len(corpora) == 1 and name is None:
        return corpora[0]
    texts = tuple(t for c in corpora for t in c.texts)
    label = name or " + ".join(c.name for c in corpora)
    return Corpus(
        label,
        texts,
        source="; ".join(c.source or c.name for c in corpora),
        replaced_bytes=sum(c.replaced_bytes for c in corpora),
    )
