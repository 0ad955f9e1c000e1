"""Reruns of the Corpus page stay cheap: statistics are computed once per corpus content and read back
as the same object (no count, no unpickled copy), and an upload is read once, not on every click."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import ui.corpus.overview as overview
from tests._pages import APP, TIMEOUT, ok
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.errors import CorpusError
from ui import cache
from ui.corpus import upload_memo


def test_statistics_are_built_once_per_content_and_shared_as_one_object(monkeypatch):
    built = []
    real = overview.build_overview
    monkeypatch.setattr(overview, "build_overview", lambda corpus, **kw: built.append(corpus.name) or real(corpus, **kw))
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input("quokka numbat quokka bilby\nquokka").run()
    at = ok(at.button(key="corpus_use_paste").click().run())
    assert built.count("pasted text") == 1
    key = cache.corpus_digest(Corpus("any name", ("quokka numbat quokka bilby\nquokka",)))
    first = cache.CORPUS_STATS.get((key,))
    assert first.hapax == 2 and list(first.top_words["word"][:1]) == ["quokka"]
    # Clicks elsewhere on the page: nothing is counted or copied again.
    at = ok(at.radio(key="corpus_source").set_value("upload").run())
    at = ok(at.checkbox(key="corpus_replace").check().run())
    at = ok(at.run())
    assert built.count("pasted text") == 1 and cache.CORPUS_STATS.get((key,)) is first
    # The same content under another name (another user's paste) shares the statistics.
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_input(key="corpus_paste_name").input("someone else's").run()
    at = ok(at.button(key="corpus_use_paste").click().run())
    assert built.count("pasted text") == 1 and "someone else's" not in built
    assert "Distinct words" in [m.label for m in at.metric]


class FakeUpload:
    """What the page reads of a Streamlit ``UploadedFile``: id, name, size and bytes (reads counted)."""

    def __init__(self, file_id: str, name: str, data: bytes) -> None:
        self.file_id, self.name, self.size, self._data, self.reads = file_id, name, len(data), data, 0

    def getvalue(self) -> bytes:
        self.reads += 1
        return self._data


@pytest.fixture
def session(monkeypatch):
    import streamlit as st

    state: dict = {}
    monkeypatch.setattr(st, "session_state", state)
    return state


def test_an_upload_is_read_once_however_often_the_page_reruns(session):
    table = FakeUpload("f1", "a.csv", b"id,text\n1,hello\n")
    text = FakeUpload("f2", "b.txt", b"plain words")
    for _ in range(5):
        files = upload_memo.describe([table, text])
        assert upload_memo.columns(files) == ["id", "text"]
    assert (table.reads, text.reads) == (1, 1)
    assert [f.name for f in files] == ["a.csv", "b.txt"] and files[0].size == len(b"id,text\n1,hello\n")
    again = FakeUpload("f3", "copy.csv", b"id,text\n1,hello\n")  # the same content uploaded again
    assert upload_memo.columns(upload_memo.describe([again])) == ["id", "text"] and again.reads == 1
    assert list(session[upload_memo._SEEN]) == [("f3", "copy.csv", len(b"id,text\n1,hello\n"))]  # gone: forgotten


def test_upload_errors_are_kept_and_said_on_every_rerun(session):
    bad = FakeUpload("f1", "bad.zip", b"not a zip")
    for _ in range(2):
        with pytest.raises(CorpusError, match="bad.zip"):
            upload_memo.columns(upload_memo.describe([bad]))
    assert bad.reads == 1
    big = [FakeUpload(f"b{i}", f"{i}.txt", b"x" * 10) for i in range(3)]
    files = upload_memo.describe(big)
    with pytest.raises(CorpusError, match="add up to"):
        upload_memo.check_total((f.size for f in files), max_bytes=25)


def test_a_run_stopped_for_a_rerun_keeps_the_text_being_pasted(monkeypatch):
    """A key press while the pasted text is being committed stops that run for a rerun, before the page
    saves its widgets' values. Streamlit keeps every widget's value across such a run, so the next run
    must not put back the older saved copies: the user's text stays (seen once, under load, as a pasted
    text replaced by an empty box). A visit to another page still gets its values back."""
    import streamlit as st

    from ui import session
    from ui.corpus import state as corpus_state

    ss: dict = {}
    runs = iter(range(1, 100))
    monkeypatch.setattr(st, "session_state", ss)

    def corpus_run(*, finished: bool, typed: str | None = None) -> None:
        ss[session._RUN] = next(runs)
        corpus_state.restore()
        if typed is not None:  # the browser sends the widget's new value with the rerun
            ss["corpus_paste"] = typed
        if finished:
            corpus_state.remember("paste")

    ss["corpus_source"] = "paste"
    corpus_run(finished=True, typed="old text")
    corpus_run(finished=False, typed="the text being pasted")  # stopped before it saved its widgets
    corpus_run(finished=True)
    assert ss["corpus_paste"] == "the text being pasted"
    ss[session._RUN] = next(runs)  # a run of another page: the Corpus widgets are not drawn
    ss["corpus_paste"] = "a value Streamlit brought back from code"
    corpus_run(finished=True)
    assert ss["corpus_paste"] == "the text being pasted"  # the last saved copy, not a stale one


def test_a_run_stopped_before_the_page_began_keeps_the_text_just_committed(monkeypatch):
    """The text is committed (Ctrl+Enter) and a key press in the name box stops that run before the
    Corpus page even began drawing (seen in a clean-clone browser test under load: "The pasted text is
    empty" after Use this text). The widget's on_change saved the text when the user committed it, so
    the next run's restore puts back that text, not the copy saved before it."""
    import streamlit as st

    from ui import session
    from ui.corpus import state as corpus_state

    ss: dict = {}
    runs = iter(range(1, 100))
    monkeypatch.setattr(st, "session_state", ss)

    def corpus_run() -> None:
        ss[session._RUN] = next(runs)
        corpus_state.restore()
        corpus_state.remember("paste")

    ss["corpus_source"] = "paste"
    ss["corpus_paste"] = ""
    corpus_run()
    ss["corpus_paste"] = "the text just committed"  # the browser's new value, then Streamlit's callback
    corpus_state.save_now("corpus_paste")
    ss[session._RUN] = next(runs)  # that run is stopped before the page's restore
    corpus_run()
    assert ss["corpus_paste"] == "the text just committed"
    corpus_state.save_now("corpus_missing")  # a key the session does not hold: nothing is saved
    assert "corpus_saved_missing" not in ss
