"""The one shelf picker: every page picks tokenizers the same way, and a tokenizer that cannot be
loaded is said on the page, never a traceback (the Batch page used to crash there)."""

from __future__ import annotations

import pytest

from tests._pages import ok, open_page
from tokenizer_core.errors import TokenizerError
from ui.shelf import state as shelf


@pytest.fixture
def broken_references(monkeypatch):
    real = shelf.tokenizer

    def tokenizer(key: str):
        if key.startswith("ref:"):
            raise TokenizerError(f"the file behind {key[4:]} is damaged")
        return real(key)

    monkeypatch.setattr(shelf, "tokenizer", tokenizer)


@pytest.mark.parametrize("page", ["pages/batch.py", "pages/tokenizers.py"])
def test_a_reference_that_fails_to_load_is_said_not_raised(page, broken_references):
    at = open_page(page)  # ok() inside: no exception
    errors = [e.value for e in at.error]
    assert any("Cannot load gpt2" in e and "damaged" in e for e in errors), errors


def test_a_label_from_a_link_not_on_this_shelf_is_said_and_another_is_shown():
    at = open_page("pages/batch.py")
    at.query_params["batch_tokenizer"] = "my private tokenizer · trained here"
    ok(at.run())
    assert any("is not on your shelf" in i.value for i in at.info)
    assert at.selectbox(key="batch_tokenizer").value == "gpt2 · reference"


def test_the_same_content_under_two_names_is_two_items_sharing_one_tokenizer(monkeypatch):
    """Shelf identity is the content digest and the name: two different tokenizers with the same
    default name never share a key, and the same content under another name (a link may name the
    first) is an item of its own that shares the tokenizer and the digest; the same name again is
    the same item."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from tokenizer_core.options import TrainOptions
        from tokenizer_core.training import train
        from ui.shelf import state as shelf

        a = train("bpe", ["zorbluxian zorblux zorb"] * 3, options=TrainOptions(vocab_size=40))
        b = train("bpe", ["plimwhistle plim whistle"] * 3, options=TrainOptions(vocab_size=40))
        one = shelf.add(a, name="BPE 40", kind="trained", detail="x")
        two = shelf.add(b, name="BPE 40", kind="trained", detail="x")
        again = shelf.add(a, name="renamed", kind="trained", detail="y")
        same = shelf.add(a, name="BPE 40", kind="trained", detail="x")
        st.text(repr((one.key != two.key, one.digest != two.digest, again.key != one.key,
                      again.digest == one.digest, shelf.tokenizer(again.key) is shelf.tokenizer(one.key),
                      same.key == one.key, len(shelf.items()) - len(shelf.references()))))

    at = AppTest.from_function(script).run()
    assert not at.exception, at.exception
    assert at.text[0].value == "(True, True, True, True, True, True, 3)"



def test_compare_draws_its_picker_and_tabs_without_loading_a_tokenizer(monkeypatch):
    """Compare's picker needs only labels: with the sweep tab open no reference is loaded (the page's
    skeleton never waits for one); the tab that shows the picks loads them."""
    loaded: list[str] = []
    real = shelf.tokenizer

    def tokenizer(key: str):
        loaded.append(key)
        return real(key)

    monkeypatch.setattr(shelf, "tokenizer", tokenizer)
    at = open_page("pages/corpus.py")
    at.query_params["compare_tab"] = "Vocabulary-size sweep"
    at = ok(at.switch_page("pages/compare.py").run())
    assert at.multiselect(key="compare_shelf").value == ["gpt2 · reference", "cl100k_base · reference"]
    assert at.tabs and not [k for k in loaded if k.startswith("ref:")], loaded
    at.session_state["compare_tab"] = "Side by side"
    at = ok(at.run())
    assert {"ref:gpt2", "ref:cl100k_base"} <= set(loaded)
