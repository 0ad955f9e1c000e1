"""Turn files uploaded on the Corpus page into one :class:`Corpus`.

The functions take ``(file name, bytes)`` pairs rather than Streamlit's
``UploadedFile`` so they can be tested without a browser; :func:`read_uploads`
does the conversion. Errors are :class:`~tokenizer_core.errors.CorpusError`
with a message written for the user.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Optional

from tokenizer_core.corpus.loading import (
    DEFAULT_MAX_BYTES,
    TABLE_EXTENSIONS,
    Corpus,
    columns_of,
    combine_corpora,
    load_corpus,
)
from tokenizer_core.errors import CorpusError

Upload = tuple[str, bytes]

#: What the uploader accepts (without dots), in the order shown to users.
UPLOAD_TYPES = ["txt", "md", "csv", "tsv", "jsonl", "zip"]


def read_uploads(files: Optional[Iterable[object]]) -> list[Upload]:
    """``(name, bytes)`` pairs from Streamlit ``UploadedFile`` objects (None gives [])."""
    return [(f.name, f.getvalue()) for f in (files or [])]


def check_total(sizes: Iterable[int], *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
    """Refuse uploads whose sizes add up to more than ``max_bytes`` (a CorpusError saying so)."""
    total = sum(sizes)
    if total > max_bytes:
        raise CorpusError(
            f"The uploaded files add up to {total / 1_000_000:.1f} MB, over the limit of "
            f"{max_bytes / 1_000_000:.0f} MB. Upload fewer or smaller files."
        )


def needs_column(names: Iterable[str]) -> bool:
    """Whether any upload (by file name) is a table (or a zip, which may hold tables).

    >>> needs_column(["a.txt", "b.CSV"]), needs_column(["a.txt"])
    (True, False)
    """
    return any(name.lower().endswith(TABLE_EXTENSIONS + (".zip",)) for name in names)


def upload_columns(files: Sequence[Upload], *, max_bytes: int = DEFAULT_MAX_BYTES) -> list[str]:
    """The columns/fields offered by the tabular uploads, in order of first appearance."""
    check_total((len(data) for _, data in files), max_bytes=max_bytes)
    seen: dict[str, None] = {}
    for name, data in files:
        for column in columns_of(data, name=name, max_bytes=max_bytes):
            seen.setdefault(column, None)
    return list(seen)


#: Column names that usually hold the text of a table, best first (compared without case).
TEXT_COLUMN_NAMES = ("text", "content", "body", "sentence", "document", "review", "comment", "message")


def preferred_column(columns: Sequence[str]) -> int:
    """Index of the column to offer first: one with a usual name for text, else the first.

    >>> preferred_column(["id", "label", "Text"]), preferred_column(["id", "label"])
    (2, 0)
    """
    lowered = [c.strip().lower() for c in columns]
    for name in TEXT_COLUMN_NAMES:
        if name in lowered:
            return lowered.index(name)
    return 0


def corpus_from_uploads(
    files: Sequence[Upload],
    *,
    text_column: Optional[str] = None,
    replace_invalid: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Corpus:
    """Load every upload and join them into one corpus named after the files.

    >>> corpus_from_uploads([("a.txt", b"hug pug"), ("b.txt", b"bun")]).texts
    ('hug pug', 'bun')
    """
    if not files:
        raise CorpusError("No file was uploaded. Choose one or more files first.")
    check_total((len(data) for _, data in files), max_bytes=max_bytes)
    errors = "replace" if replace_invalid else "strict"
    corpora = [
        load_corpus(data, name=name, text_column=text_column, errors=errors, max_bytes=max_bytes)
        for name, data in files
    ]
    if len(corpora) == 1:
        return corpora[0]
    shown = ", ".join(name for name, _ in files[:3]) + (", …" if len(files) > 3 else "")
    return combine_corpora(corpora, name=f"{len(files)} files: {shown}")
