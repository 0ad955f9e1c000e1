"""Durable workspaces under AppTest: a pasted corpus and a trained shelf tokenizer survive a "server
restart" (every in-memory cache and the store's engine dropped) through their links; links are
random ids, not digests; an unknown link is said and keeps the view; a store that cannot be used
leaves the app working, saying so once."""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

from tests._pages import APP, TIMEOUT, ok
from ui import cache
from ui.store import workspace

WORDS = "zorbluxian plimwhistle " * 40


def _restart(monkeypatch, *, db: str) -> None:
    """What a server restart forgets: every server-wide table and the store's engine."""
    monkeypatch.setenv("TOKENIZER_PLAYGROUND_DB", db)
    cache._registry().clear()
    workspace.reset_for_tests()


def _paste(at: AppTest, text: str = WORDS, name: str = "private notes") -> AppTest:
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input(text).run()
    at.text_input(key="corpus_paste_name").input(name).run()
    return ok(at.button(key="corpus_use_paste").click().run())


def _train(at: AppTest) -> AppTest:
    ok(at.switch_page("pages/tokenizers.py").run())
    at.selectbox(key="tokenizers_algorithm").set_value("bpe-chars").run()
    at.number_input(key="tokenizers_vocab_size").set_value(300).run()
    return ok(at.button(key="tokenizers_train").click().run())


def _fresh(params: dict[str, object], page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    ok(at.run())
    return ok(at.switch_page(page).run()) if page else at


def _sidebar(at: AppTest) -> str:
    return " ".join(m.value for m in at.sidebar.markdown)


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = str(tmp_path / "ws.sqlite3")
    _restart(monkeypatch, db=path)
    yield path
    workspace.reset_for_tests()


def test_a_linked_corpus_and_shelf_tokenizer_survive_a_restart(db, monkeypatch):
    at = _paste(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    link = at.query_params["corpus"]
    link = link[0] if isinstance(link, list) else link
    assert len(link) >= 24 and cache.corpus_digest(at.session_state["state_active_corpus"])[7:] not in link
    _train(at)
    picked = at.selectbox(key="tokenizers_selected").value
    assert picked.endswith("trained here")
    shelf_ids = at.query_params.get("shelf", [])
    shelf_ids = [shelf_ids] if isinstance(shelf_ids, str) else list(shelf_ids)
    assert len(shelf_ids) == 1
    _restart(monkeypatch, db=db)
    # Another browser, after the restart, opens the link.
    again = _fresh({"corpus": link, "shelf": shelf_ids, "tokenizers_selected": picked}, "pages/tokenizers.py")
    assert "private notes" in _sidebar(again)
    assert again.selectbox(key="tokenizers_selected").value == picked
    assert not again.warning, [w.value for w in again.warning]


def test_an_unknown_or_expired_link_is_said_and_the_view_stays(db):
    at = _fresh({"corpus": "Zq0000000000000000000000"}, "")
    assert any("no longer keeps" in w.value for w in at.warning)
    assert "Python docs" in _sidebar(at) or "English" in _sidebar(at)  # the default corpus stays


@pytest.mark.parametrize("setting", ["corrupt", "postgres-down"])
def test_a_store_that_cannot_be_used_leaves_the_app_working(setting, tmp_path, monkeypatch):
    if setting == "corrupt":
        bad = tmp_path / "corrupt.sqlite3"
        bad.write_bytes(b"not a database at all\n" * 200)
        target = str(bad)
    else:
        from bench.app_server import free_port

        target = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    _restart(monkeypatch, db=target)
    try:
        at = _paste(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
        said = [w.value for w in at.warning if "not saved on this server" in w.value]
        assert len(said) == 1  # once, not on every page
        assert "private notes" in _sidebar(at)  # the corpus is in use all the same
        _train(at)
        assert [w.value for w in at.warning if "not saved on this server" in w.value] == []  # said already
        assert at.selectbox(key="tokenizers_selected").value.endswith("trained here")
        assert "corpus" not in at.query_params  # no link that would not work
    finally:
        workspace.reset_for_tests()


def test_links_are_unguessable_random_ids(db):
    at = _paste(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    first = at.query_params["corpus"]
    other = _paste(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    second = other.query_params["corpus"]
    assert first != second  # the same text in two sessions: two links, neither derived from it
    assert os.path.exists(db)


SMALL = "the cat sat on the mat\n" * 30  # too little text for a vocabulary of 300


def _train_unigram(at: AppTest, size: int) -> AppTest:
    ok(at.switch_page("pages/tokenizers.py").run())
    at.selectbox(key="tokenizers_algorithm").set_value("unigram").run()
    at.number_input(key="tokenizers_vocab_size").set_value(size).run()
    return ok(at.button(key="tokenizers_train").click().run())


def _shelf_ids(at: AppTest) -> list[str]:
    ids = at.query_params.get("shelf", [])
    return [ids] if isinstance(ids, str) else list(ids)


def test_a_link_keeps_its_tokenizer_after_a_training_of_the_same_content(db):
    """Unigram 500 and Unigram 300 both stop at the same pieces: the link to the first still names
    it, both are on the shelf, and each says the size asked and the size reached (issue 39)."""
    at = _paste(AppTest.from_file(APP, default_timeout=TIMEOUT).run(), text=SMALL, name="cats")
    at = _train_unigram(at, 500)
    first = at.selectbox(key="tokenizers_selected").value
    reached = at.session_state["shelf_items"][next(iter(at.session_state["shelf_items"]))][1].vocab_size
    assert reached < 300
    assert first == f"Unigram 500 → {reached:,} · trained here"
    assert any(f"{reached:,} tokens reached of the 500 asked for" in i.value for i in at.info)
    link = {"corpus": at.query_params["corpus"], "shelf": _shelf_ids(at), "tokenizers_selected": first}
    at = _train_unigram(at, 300)
    second = at.selectbox(key="tokenizers_selected").value
    assert second == f"Unigram 300 → {reached:,} · trained here"
    assert {first, second} <= set(at.selectbox(key="tokenizers_selected").options)
    assert _shelf_ids(at) != link["shelf"]
    student = _fresh(link, "pages/tokenizers.py")  # another browser opens the earlier link
    assert student.selectbox(key="tokenizers_selected").value == first
    assert not student.info, [i.value for i in student.info]
