"""What the Corpus page knows of each uploaded file, worked out once per upload.

Streamlit hands the page every uploaded file again on each rerun, and a click anywhere reruns the
page: reading and decoding up to 200 MB of tables for the column picker on every click made the
page slow. :func:`describe` reads a file only the first time it sees it (by Streamlit's file id,
name and size) and keeps an :class:`UploadInfo` in this session's state: a digest of its bytes and
the columns its tables offer. Columns are kept per digest, so the same content uploaded again is not
decoded again either. The bytes themselves are read again only when the user presses "Use".

Per-session state (a user's own files), so nothing here is shared with other sessions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import streamlit as st

from tokenizer_core.errors import CorpusError
from ui.corpus import PREFIX
from ui.corpus.counts import looks_like_counts
from ui.corpus.upload import check_total, upload_columns

_SEEN = PREFIX + "upload_seen"  # (file id, name, size) -> UploadInfo
_COLUMNS = PREFIX + "upload_columns"  # digest -> tuple of columns, or the CorpusError message


@dataclass(frozen=True)
class UploadInfo:
    """One uploaded file as the page needs it, without its bytes."""

    name: str
    size: int
    digest: str
    #: A counts file (:func:`ui.corpus.counts.looks_like_counts`), not text: it offers no columns.
    counts: bool = False


def _identity(file: Any) -> tuple[Any, str, int]:
    return (getattr(file, "file_id", None), file.name, file.size)


def describe(files: Optional[Iterable[Any]]) -> list[UploadInfo]:
    """An :class:`UploadInfo` per Streamlit ``UploadedFile`` (None gives []), reading only files
    this session has not seen; files no longer uploaded are forgotten."""
    ss = st.session_state
    seen: dict = ss.setdefault(_SEEN, {})
    columns: dict = ss.setdefault(_COLUMNS, {})
    out, kept = [], {}
    for file in files or []:
        ident = _identity(file)
        info = seen.get(ident)
        if info is None:
            data = file.getvalue()
            info = UploadInfo(file.name, file.size, hashlib.blake2b(data, digest_size=16).hexdigest(),
                              counts=looks_like_counts(file.name, data))
            if info.counts:
                columns[info.digest] = ()
            elif info.digest not in columns:
                columns[info.digest] = _columns_or_error(file.name, data)
        kept[ident] = info
        out.append(info)
    ss[_SEEN] = kept
    live = {info.digest for info in kept.values()}
    ss[_COLUMNS] = {d: c for d, c in columns.items() if d in live}
    return out


def _columns_or_error(name: str, data: bytes) -> Any:
    try:
        return tuple(upload_columns([(name, data)]))
    except CorpusError as err:
        return str(err)


def columns(uploads: Sequence[UploadInfo]) -> list[str]:
    """The columns the uploads offer, in order of first appearance (as
    :func:`~ui.corpus.upload.upload_columns` gives them); a CorpusError for files too big
    together or a file that cannot be read."""
    check_total(u.size for u in uploads)
    known = st.session_state.get(_COLUMNS, {})
    seen: dict[str, None] = {}
    for upload in uploads:
        found = known.get(upload.digest, ())
        if isinstance(found, str):
            raise CorpusError(found)
        seen.update(dict.fromkeys(found))
    return list(seen)
