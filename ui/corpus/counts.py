"""A counts file as the session's corpus: the pieces a trainer counted (``python -m tokenizer_core
count``, or any job writing that format), without the running text they were counted from.

A :class:`CountsCorpus` is a :class:`~tokenizer_core.corpus.documents.Corpus` with no documents, so
every page can hold it as the active corpus; its content identity (:meth:`CountsCorpus.fingerprint`,
hence :func:`ui.cache.corpus_digest`) is the digest of the file in canonical form (what
:func:`~tokenizer_core.counts.tsv.write_counts` writes for it), never its name. Pages that train from
distinct pieces (BPE, WordPiece, Unigram) train from it; pages that need running
text check :func:`is_counts` and say so with :func:`say_no_running_text`.

>>> c = counts_from_bytes("c.tsv", b"# tokenizer-playground counts 1\\n# model: bpe\\nthe\\t3\\n<b>\\t1\\n")
>>> c.texts, c.data.counts, c.total, c.fingerprint().startswith("counts-")
((), {'the': 3, '<b>': 1}, 4, True)
>>> from_payload("c.tsv", payload(c)).fingerprint() == c.fingerprint()  # kept and restored: the same content
True
>>> looks_like_counts("c.tsv", b"# tokenizer-playground counts 1\\n"), looks_like_counts("t.tsv", b"id\\ttext\\n")
(True, False)
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

import streamlit as st

from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.counts.spec import COUNT_MODELS, DEFAULT_MAX_PIECES
from tokenizer_core.counts.tsv import MAGIC, CountsFile, CountsFormatError, read_counts, write_counts
from ui.widgets.text import escape_markdown

#: The header facts shown for people, in this order, with their labels.
FACT_LABELS = {"model": "model", "normalizer": "normalizer", "pre_tokenizer": "pre-tokenizer",
               "max_sentence_length": "max sentence length", "files": "files counted", "bytes": "bytes counted",
               "lines": "lines counted", "min_count": "minimum count", "last_piece": "last piece"}


@dataclass(frozen=True)
class CountsCorpus(Corpus):
    """A counts file held as a corpus with no documents (``texts == ()``).

    ``data`` is the file as read (training never changes it); ``digest`` the
    hex digest of its canonical text, which is what :meth:`fingerprint` gives, so caches keyed by
    the corpus digest never mix a counts file with a text, nor two different files.
    """

    data: Optional[CountsFile] = field(default=None, compare=False, repr=False)
    digest: str = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.data, CountsFile) or self.texts:
            raise TypeError("a CountsCorpus holds a CountsFile and no documents")

    def fingerprint(self) -> str:
        return "counts-" + self.digest

    @property
    def counts(self) -> CountsFile:
        """The file as read (typed: ``data`` is never None once made)."""
        return self.data  # type: ignore[return-value]

    @property
    def distinct(self) -> int:
        return len(self.counts.counts)

    @cached_property
    def total(self) -> int:
        return sum(self.counts.counts.values())

    @property
    def model(self) -> str:
        return self.counts.facts.get("model", "")


def is_counts(corpus: Corpus) -> bool:
    """Whether ``corpus`` is a counts file (no running text)."""
    return isinstance(corpus, CountsCorpus)


def looks_like_counts(name: str, data: bytes) -> bool:
    """Whether an upload is a counts file: a ``.tsv`` starting with the format's first line (any other
    ``.tsv`` stays a table of text)."""
    return name.lower().endswith(".tsv") and data.startswith(MAGIC.encode("ascii"))


def canonical_text(data: CountsFile) -> str:
    """The file as :func:`write_counts` writes it: what the store keeps, and what the digest is of."""
    out = io.StringIO()
    write_counts(out, data)
    return out.getvalue()


class _Digest:
    """A text stream that keeps only the digest of what is written to it."""

    def __init__(self) -> None:
        self._hash = hashlib.blake2b(digest_size=16)

    def write(self, text: str) -> int:
        self._hash.update(text.encode("utf-8", "surrogatepass"))
        return len(text)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def counts_from_text(name: str, text: str) -> CountsCorpus:
    """Read a counts file's text (a CountsFormatError naming the line, or a TokenizerError for one with
    more distinct pieces than training takes)."""
    data = read_counts(io.StringIO(text, newline="\n"), max_pieces=DEFAULT_MAX_PIECES)
    digest = _Digest()
    write_counts(digest, data)  # the canonical text, hashed as it is written (never held whole)
    return CountsCorpus(name, (), source=f"counts file {name}", data=data, digest=digest.hexdigest())


def counts_from_bytes(name: str, raw: bytes) -> CountsCorpus:
    """Read an uploaded counts file (UTF-8); errors as :func:`counts_from_text`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CountsFormatError(f"{name}: not UTF-8 text (byte {err.start}); a counts file is UTF-8 text") from None
    try:
        return counts_from_text(name, text)
    except CountsFormatError as err:
        raise CountsFormatError(f"{name}: {err}") from None


def payload(corpus: CountsCorpus) -> bytes:
    """What the workspace store keeps of a counts corpus: its canonical text."""
    return canonical_text(corpus.counts).encode("utf-8", "surrogatepass")


def from_payload(name: str, raw: bytes) -> CountsCorpus:
    """A counts corpus back from :func:`payload` (errors as :func:`counts_from_text`)."""
    return counts_from_text(name, raw.decode("utf-8", "surrogatepass"))


def models_note(corpus: CountsCorpus) -> str:
    """Which trainers a counts file is for, for people."""
    model = corpus.model
    if model in COUNT_MODELS:
        return f"counted for {model} training"
    return "counted by another tool (no model named)" if not model else f"counted for {model!r}"


def say_no_running_text(corpus: Corpus, what: str) -> bool:
    """``st.info`` that ``what`` needs running text, when ``corpus`` is a counts file; whether it said so."""
    if not is_counts(corpus):
        return False
    st.info(escape_markdown(f"{what} needs running text, and the active corpus “{corpus.name}” is a counts file: "
                            "pieces and their counts, no lines. For this, pick a sample, or upload or paste text, "
                            "on the Corpus page. (BPE, WordPiece and Unigram train from the counts.)"),
            icon=":material/format_list_numbered:")
    return True
