"""The Corpus page (landing page): choose the text every other page uses, and look at it."""

from __future__ import annotations

import streamlit as st

from tokenizer_core.corpus.loading import corpus_from_text, list_samples
from tokenizer_core.errors import CorpusError, TokenizerError
from ui import session as state
from ui.corpus import state as corpus_state
from ui.corpus import upload_memo
from ui.corpus.counts import counts_from_bytes, is_counts, looks_like_counts
from ui.corpus.counts_view import counts_overview, render_counts
from ui.corpus.overview import overview_of
from ui.corpus.upload import UPLOAD_TYPES, corpus_from_uploads, needs_column, preferred_column, read_uploads
from ui.corpus.view import render_characters, render_preview, render_summary, render_words
from ui.widgets.text import display_name, escape_markdown, sample_name

SOURCES = {"sample": "Sample corpus", "upload": "Upload files", "paste": "Paste text"}
SAMPLES = {s.name: s for s in list_samples()}
MESSAGE = "corpus_message"  # (kind, text) left by the last button, shown once


def _report(kind: str, text: str) -> None:
    st.session_state[MESSAGE] = (kind, text)


def _use(corpus) -> None:
    state.set_active_corpus(corpus)
    _report("success", f"Now using “{display_name(corpus)}” on every page.")


def _use_sample() -> None:
    _use(state.load_sample_cached(st.session_state["corpus_sample"]))


def _use_upload() -> None:
    files = read_uploads(st.session_state.get("corpus_upload"))
    if any(looks_like_counts(name, data) for name, data in files):
        _use_counts(files)
        return
    try:
        corpus = corpus_from_uploads(
            files,
            text_column=st.session_state.get("corpus_column"),
            replace_invalid=st.session_state.get("corpus_replace", False),
        )
    except CorpusError as err:
        _report("error", str(err))
        return
    _use(corpus)


def _use_counts(files: list[tuple[str, bytes]]) -> None:
    if len(files) > 1:
        _report("error", "A counts file is a corpus on its own: upload it alone (remove the other files), "
                "or upload text files without it.")
        return
    try:
        corpus = counts_from_bytes(*files[0])
    except TokenizerError as err:  # CountsFormatError names the line; too many pieces says so
        _report("error", str(err))
        return
    _use(corpus)


def _use_paste() -> None:
    try:
        corpus = corpus_from_text(
            st.session_state.get("corpus_paste", ""),
            name=st.session_state.get("corpus_paste_name") or "pasted text",
        )
    except CorpusError as err:
        _report("error", str(err))
        return
    _use(corpus)


def _show_message() -> None:
    message = st.session_state.pop(MESSAGE, None)
    if message is not None:
        kind, text = message
        (st.error if kind == "error" else st.success)(escape_markdown(text))


def render_page() -> None:
    """The whole page (called by ``pages/corpus.py``)."""
    corpus_state.restore(active_sample=sample_name(state.active_corpus()))
    st.title("Corpus")
    st.markdown(
        "Choose the text that every page trains tokenizers on and measures them with. "
        "Start with a sample, or bring your own text."
    )
    source = st.radio(
        "Where should the text come from?", list(SOURCES), format_func=SOURCES.get, horizontal=True,
        key="corpus_source", on_change=corpus_state.save_now, args=("corpus_source",),
    )
    {"sample": _sample_source, "upload": _upload_source}.get(source, _paste_source)()
    _show_message()
    corpus_state.remember(source)
    _active_corpus()


def _sample_source() -> None:
    choice = st.selectbox("Sample", list(SAMPLES), format_func=lambda n: SAMPLES[n].title, key="corpus_sample",
                          on_change=corpus_state.save_now, args=("corpus_sample",))
    st.caption(SAMPLES[choice].description)
    st.button("Use this sample", key="corpus_use_sample", type="primary", on_click=_use_sample)


def _upload_source() -> None:
    uploaded = st.file_uploader(
        "Text files",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key="corpus_upload",
        help="UTF-8 or UTF-16 (with byte-order mark) text: .txt/.md, tables (.csv/.tsv, .jsonl), "
        "or a .zip of those. Up to 200 MB in total. A counts file (.tsv written by "
        "`python -m tokenizer_core count`) is a corpus of counted pieces.",
    )
    files = upload_memo.describe(uploaded)  # reads a file only the first time this session sees it
    ready = bool(files)
    counted = [f.name for f in files if f.counts]
    if counted:
        st.caption(escape_markdown(f"{counted[0]} is a counts file: the pieces a trainer counted, with their "
                                   "counts. It becomes the corpus on its own."))
    if files and needs_column(f.name for f in files if not f.counts):
        try:
            columns = upload_memo.columns(files)
        except CorpusError as err:
            st.error(escape_markdown(str(err)))
            columns, ready = [], False
        if columns:
            st.selectbox("Column or field holding the text", columns, index=preferred_column(columns),
                         key="corpus_column")
    st.checkbox(
        "Replace invalid bytes with U+FFFD (otherwise files that are not valid text are refused)",
        key="corpus_replace", on_change=corpus_state.save_now, args=("corpus_replace",), disabled=bool(counted),  # a counts file is read as it is, or refused
    )
    st.button(
        "Use uploaded files", key="corpus_use_upload", type="primary", disabled=not ready, on_click=_use_upload
    )


def _paste_source() -> None:
    st.text_area("Text", key="corpus_paste", height=180, placeholder="Type or paste any text, in any language…",
                 on_change=corpus_state.save_now, args=("corpus_paste",))
    st.text_input("Name for this corpus", key="corpus_paste_name", max_chars=80,
                  on_change=corpus_state.save_now, args=("corpus_paste_name",))
    st.button("Use this text", key="corpus_use_paste", type="primary", on_click=_use_paste)


def _active_corpus() -> None:
    """What every page uses: its numbers, words, characters and start (from one overview per corpus)."""
    corpus = state.active_corpus()
    if is_counts(corpus):
        counted = counts_overview(corpus, state.active_corpus_key())
        st.divider()
        st.header("Active corpus: " + escape_markdown(display_name(corpus)))
        render_counts(corpus, counted)
        return
    overview = overview_of(corpus, state.active_corpus_key())
    if overview is None:
        return  # the count was cancelled; run_job offers to start it again
    st.divider()
    st.header("Active corpus: " + escape_markdown(display_name(corpus)))
    render_summary(corpus, overview)
    render_words(overview)
    render_characters(overview)
    render_preview(corpus)
