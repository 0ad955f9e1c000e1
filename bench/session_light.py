"""One session of the many-sessions bench without a browser: the moves of :mod:`bench.session_flow`
made by a websocket session of :mod:`bench.st_client`, on the same pages with the same data.

What it sends the server is what a browser tab sends (the page's widgets by key, the file through the
upload address, the same query strings), so the server does the same work and keeps the same state
per session; what it reads back is each element's text as the server sent it, not the drawn page.
A tab's moves that only the browser does are made the way a link or a field would: the step
buttons' last step is typed in the jump box, and the upload tab is opened by its address (both are
also what a user can do).

>>> _count("1,234 tokens; showing 12")
1234
"""

from __future__ import annotations

import re
import time
from typing import Optional

from bench.session_data import (
    COUNT_CAPTION,
    FOREIGN_WORD,
    TRAIN_VOCAB,
    TRAINED_LABEL,
    UPLOADED_LABEL,
    Search,
    SessionResult,
    corpus_text,
)
from bench.st_client import Session


def _count(caption: str) -> int:
    match = COUNT_CAPTION.match(caption.strip())
    if match is None:
        raise ValueError(f"not a count caption: {caption!r}")
    return int(match.group(1).replace(",", ""))


def _metric(session: Session, label: str) -> int:
    """The value of the ``st.metric`` labelled ``label`` (its element carries both)."""
    for element in session.elements():
        if element.WhichOneof("type") == "metric" and element.metric.label == label:
            return int(element.metric.body.replace(",", ""))
    raise AssertionError(f"no metric {label!r} on the page")


def _page_text(session: Session) -> str:
    return "\n".join(session.texts())


def _search(session: Session, result: SessionResult, tokenizer: str, query: str) -> None:
    session.fill(session.widget(key="tokenizers_search"), query)
    session.rerun()
    caption = session.wait_for_text(COUNT_CAPTION.pattern)
    result.searches.append(Search(tokenizer, query, _count(caption)))


def _search_all(session: Session, result: SessionResult, tokenizer: str) -> None:
    for query in (FOREIGN_WORD, result.other, result.word):
        _search(session, result, tokenizer, query)
    result.seen["tokenizers " + tokenizer] = _page_text(session)
    result.counts["tokenizers " + tokenizer] = _metric(session, "Tokens for that text")


def light_session(base: str, word: str, other: str, upload: bytes, *, timeout: float = 120.0) -> SessionResult:
    """The whole flow of one user for ``word`` (searching for ``other`` too); a failure is kept in the
    result (``error``), as the browser sessions keep theirs."""
    result = SessionResult(word, other)
    clock = time.perf_counter()

    def lap(phase: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        result.seconds[phase], clock = now - clock, now

    session: Optional[Session] = None
    try:
        with Session(base, timeout=timeout) as session:
            session.open("", "corpus=hf-course-hug-pug")
            lap("open")
            session.fill(session.widget(key="corpus_source"), "Paste text")
            session.rerun()
            session.fill(session.widget(key="corpus_paste"), corpus_text(word))
            session.click(session.widget(key="corpus_use_paste"))
            session.wait_for_text("Now using")
            lap("corpus")

            session.open("merges", session.query)
            lap("page")
            session.click(session.widget(key="merges_train"))
            session.wait_for_text(r"^Step 0 of ")
            lap("train")
            session.fill(session.widget(key="merges_jump"), 99_999)  # past the end: the last step
            session.rerun()
            result.heading = session.wait_for_text(r"^Step ([\d,]+) of \1$")
            lap("step")
            result.seen["merges"] = _page_text(session)

            session.open("tokenizers", session.query)
            session.fill(session.widget(key="tokenizers_vocab_size"), TRAIN_VOCAB)
            session.click(session.widget(key="tokenizers_train"))
            session.wait_for_text("put on the shelf")
            if not re.search(rf"[?&]tokenizers_vocab_size={TRAIN_VOCAB}(&|$)", session.query):
                raise AssertionError(f"the address does not say the vocabulary size: {session.query}")
            lap("shelf_train")
            _search_all(session, result, TRAINED_LABEL)
            lap("shelf_search")

            session.open("tokenizers", session.query + "&tokenizers_add_tab=Upload+a+file")
            session.upload(session.widget(label="Tokenizer file"), "tokenizer.json", upload, mime="application/json")
            session.click(session.widget(key="tokenizers_import"))
            session.wait_for_text(": 268 tokens. Rename it")
            lap("upload")
            _search_all(session, result, UPLOADED_LABEL)
            lap("upload_search")

            session.open("batch", session.query)
            session.fill(session.widget(key="batch_tokenizer"), UPLOADED_LABEL)
            session.rerun()
            session.fill(session.widget(key="batch_rows"), word)
            session.rerun()
            result.seen["batch"] = _page_text(session)
            result.counts["batch padded length"] = _metric(session, "Padded length")
            lap("batch")

            session.open("compare", session.query)
            session.fill(session.widget(key="compare_text"), word)
            session.rerun()
            session.fill(session.widget(key="compare_shelf"), [TRAINED_LABEL, UPLOADED_LABEL])
            session.rerun()
            result.seen["compare"] = _page_text(session)
            for label in (TRAINED_LABEL, UPLOADED_LABEL):
                found = re.search(re.escape(label) + r"\D{0,40}?([\d,]+)", result.seen["compare"])
                if found:
                    result.counts["compare " + label] = int(found.group(1).replace(",", ""))
            lap("compare")

            session.open("lattice", session.query)
            result.seen["lattice"] = _page_text(session)
            lap("lattice")
    except Exception as err:  # noqa: BLE001 - kept with what the page showed; leaks() reports it
        result.error = f"{type(err).__name__}: {err}"[:600]
        if session is not None:
            result.seen["at the error"] = _page_text(session)
    return result
