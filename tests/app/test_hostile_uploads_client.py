"""The hostile-file battery against the real server, through its own upload path: every file of
tests/_hostile.py is handed to the Corpus page's or the Tokenizers page's file uploader the way the
browser hands it (an upload address asked over the websocket, a PUT with the XSRF token, the
widget's new value; bench/st_client.py), one after the other in one session. Each gets its own error
alert, never an exception element, and the corpus or tokenizer in use before stays in use (nothing
lost); the odd but valid files are then accepted.

The browser's part (Chromium's file input, the alert drawn) is tests/browser/test_browser_uploads.py,
with one refused and one accepted file per page: the battery there took 62 s of browser time.
"""

from __future__ import annotations

import re

import pytest

from bench.st_client import Session
from tests import _hostile

MIME = {".zip": "application/zip", ".json": "application/json", ".model": "application/octet-stream"}
ERROR = 1  # Alert.Format.ERROR
SUCCESS = 4  # Alert.Format.SUCCESS


def _mime(name: str) -> str:
    return next((m for ext, m in MIME.items() if name.endswith(ext)), "text/plain")


def _alerts(session: Session, kind: int) -> list[str]:
    """The alerts of one kind as the reader sees them (markdown's escapes taken out)."""
    return [re.sub(r"\\(.)", r"\1", e.alert.body) for e in session.elements()
            if e.WhichOneof("type") == "alert" and e.alert.format == kind]


def _no_exception(session: Session, what: str) -> None:
    shown = [e.exception.message for e in session.elements() if e.WhichOneof("type") == "exception"]
    assert shown == [], f"{what}: {shown}"


def _picked(session: Session) -> str:
    """The Tokenizers page's picker as shown: the value the server set, or its default option."""
    proto = session.widget(label="Tokenizer").proto
    if proto.set_value or proto.HasField("raw_value"):
        return proto.raw_value
    return proto.options[proto.default] if proto.HasField("default") else ""


def _active(session: Session) -> str:
    return next(t for t in session.texts() if t.startswith("Active corpus: "))


@pytest.mark.parametrize("name, data, message", _hostile.corpus_files(), ids=[f[0] for f in _hostile.corpus_files()])
def test_each_hostile_corpus_file_is_refused_and_the_corpus_in_use_kept(streamlit_server, name, data, message):
    with Session(streamlit_server, timeout=60) as s:
        s.open("", "corpus=hf-course-hug-pug")
        before = _active(s)
        assert "hug" in before
        s.fill(s.widget(key="corpus_source"), "Upload files")
        s.rerun()
        s.upload(s.widget(key="corpus_upload"), name, data, mime=_mime(name))
        use = s.widget(key="corpus_use_upload")
        # Tables and zips are read (and may be refused) as soon as they arrive; text files on the click.
        if not _alerts(s, ERROR) and not use.proto.disabled:
            s.click(use)
        errors = _alerts(s, ERROR)
        assert any(re.search(message, e) for e in errors), (name, errors)
        _no_exception(s, name)
        assert _active(s) == before  # the corpus in use is kept


@pytest.mark.parametrize("name, data, word", _hostile.corpus_files_accepted(),
                         ids=[f[0] for f in _hostile.corpus_files_accepted()])
def test_odd_but_valid_corpus_files_are_accepted(streamlit_server, name, data, word):
    with Session(streamlit_server, timeout=60) as s:
        s.open("", "corpus=hf-course-hug-pug")
        s.fill(s.widget(key="corpus_source"), "Upload files")
        s.rerun()
        s.upload(s.widget(key="corpus_upload"), name, data, mime=_mime(name))
        s.click(s.widget(key="corpus_use_upload"))
        assert any("Now using" in a for a in _alerts(s, SUCCESS))
        assert _active(s).startswith(f"Active corpus: {name}")
        assert any(word[:30] in t for t in s.texts())
        _no_exception(s, name)


def test_every_hostile_tokenizer_file_is_refused_and_the_imported_one_kept(streamlit_server):
    picked = re.compile(r"^good · BPE [0-9,]+ · imported")
    with Session(streamlit_server, timeout=90) as s:
        s.open("tokenizers", "corpus=hf-course-hug-pug")
        good = _hostile._bpe_json(_hostile.GOOD_VOCAB, _hostile.GOOD_MERGES)
        s.upload(s.widget(label="Tokenizer file"), "good.json", good, mime="application/json")
        s.click(s.widget(key="tokenizers_import"))
        assert any("Imported good.json" in a for a in _alerts(s, SUCCESS))
        assert picked.match(_picked(s)), _picked(s)
        for name, data, message in _hostile.tokenizer_files():
            s.upload(s.widget(label="Tokenizer file"), name, data, mime=_mime(name))
            s.click(s.widget(key="tokenizers_import"))
            errors = _alerts(s, ERROR)
            assert any(re.search(message, e) for e in errors), (name, errors)
            _no_exception(s, name)
            assert picked.match(_picked(s)), (name, _picked(s))  # nothing lost
