"""Hostile files in Chromium: a refused file and then an odd but valid one go through the real file
uploader of the Corpus page, and a good tokenizer file and then a refused one through the Tokenizers
page's, in one session each. A refused file gets its error alert, never a traceback element, and the
corpus or tokenizer in use before stays in use (nothing lost).

Every other file of tests/_hostile.py takes the same upload path from a websocket client
(tests/app/test_hostile_uploads_client.py): the whole battery here took 62 s of browser time.
"""

from __future__ import annotations

import re

import pytest

from tests import _hostile
from tests._pages import wait_idle

pytestmark = pytest.mark.browser

MIME = {".zip": "application/zip", ".json": "application/json", ".model": "application/octet-stream"}


def _payload(name: str, data: bytes) -> dict:
    mime = next((m for ext, m in MIME.items() if name.endswith(ext)), "text/plain")
    return {"name": name, "mimeType": mime, "buffer": data}


def _upload(page, key: str, name: str, data: bytes) -> None:
    """Put one file in the uploader with widget key ``key``, replacing the one already there."""
    from playwright.sync_api import expect

    box = page.locator(f".st-key-{key}")
    delete = box.get_by_test_id("stFileChipDeleteBtn")
    while delete.count():
        delete.first.click()
        wait_idle(page)
    expect(delete).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)  # the last file's message went with it
    wait_idle(page)  # a rerun may still be drawing the uploader anew: files given to its old input are lost
    for attempt in range(3):
        box.locator("input[type=file]").set_input_files(_payload(name, data))
        try:
            expect(box).to_contain_text(name, timeout=30_000)  # the upload arrived
            break
        except AssertionError:
            if attempt == 2:
                raise
            wait_idle(page)  # the input was replaced under the file: give it again
    wait_idle(page)


def _no_traceback(page) -> None:
    assert page.get_by_test_id("stException").count() == 0


def test_hostile_corpus_files_on_the_corpus_page(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    # A small sample in use (a link): every upload reruns the page, which then redraws that corpus'
    # statistics, not the 2 MB default's.
    page.goto(streamlit_server + "/?corpus=hf-course-hug-pug")
    active = page.get_by_role("heading", name=re.compile("^Active corpus: .*hug"))
    expect(active).to_be_visible(timeout=90_000)
    page.get_by_text("Upload files", exact=True).click()
    wait_idle(page)
    use = page.locator(".st-key-corpus_use_upload button")
    enabled = page.locator(".st-key-corpus_use_upload button:enabled")
    error = page.get_by_test_id("stAlertContentError")

    for name, data, message in _hostile.corpus_files()[:1]:
        _upload(page, "corpus_upload", name, data)
        # Tables and zips are read (and may be refused) as soon as they arrive; text files on the click.
        expect(enabled.or_(error).first).to_be_visible(timeout=30_000)
        if enabled.count():
            use.click()
        expect(error, name).to_contain_text(re.compile(message), timeout=30_000)
        _no_traceback(page)
        expect(active, f"after {name}").to_be_visible()  # the corpus in use is kept

    for name, data, word in _hostile.corpus_files_accepted()[:1]:
        _upload(page, "corpus_upload", name, data)
        enabled.click()
        expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Now using", timeout=60_000)
        expect(page.get_by_role("heading", name=re.compile("^Active corpus: " + re.escape(name)))).to_be_visible()
        expect(page.get_by_test_id("stMainBlockContainer")).to_contain_text(word[:30])
        _no_traceback(page)
    assert page.console_errors == []


def test_hostile_tokenizer_files_on_the_tokenizers_page(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(streamlit_server + "/tokenizers?corpus=hf-course-hug-pug")
    expect(page.get_by_role("heading", name="Tokenizers", exact=True)).to_be_visible(timeout=90_000)
    wait_idle(page)
    page.get_by_text("Add a tokenizer to the shelf").click()
    page.get_by_role("tab", name="Upload a file").click()
    importer = page.locator(".st-key-tokenizers_import button")
    picker = page.get_by_role("combobox", name="Tokenizer")

    good = _hostile._bpe_json(_hostile.GOOD_VOCAB, _hostile.GOOD_MERGES)
    _upload(page, "tokenizers_upload", "good.json", good)
    expect(importer).to_be_enabled(timeout=30_000)
    importer.click()
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Imported good.json", timeout=30_000)
    expect(picker).to_have_value(re.compile("^good · BPE [0-9,]+ · imported"))

    for name, data, message in _hostile.tokenizer_files()[:1]:
        _upload(page, "tokenizers_upload", name, data)
        expect(importer).to_be_enabled(timeout=30_000)
        importer.click()
        expect(page.get_by_test_id("stAlertContentError"), name).to_contain_text(re.compile(message), timeout=60_000)
        _no_traceback(page)
        expect(picker, f"after {name}").to_have_value(re.compile("^good · BPE [0-9,]+ · imported"))  # nothing lost
    assert page.console_errors == []
