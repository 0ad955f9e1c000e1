"""Values read from the address: each parser accepts what its widget can hold and refuses the rest
with a sentence a user can act on."""

from __future__ import annotations

import pytest

from ui.url_state import choice, flag, integer, many, number, text


def _value(at, name):
    """``?name=`` of an AppTest (a list or a string, depending on how it was set), or None."""
    if name not in at.query_params:
        return None
    value = at.query_params[name]
    return value[-1] if isinstance(value, list) else value


@pytest.mark.parametrize(("param", "raw", "value"), [
    (integer("n", "k", default=1, lo=1, hi=30_000), "2000", 2000),
    (number("s", "k", default=0.5, lo=0.1, hi=2.0), "0.25", 0.25),
    (flag("raw", "k"), "1", True),
    (flag("raw", "k"), "0", False),
    (choice("algo", "k", ["bpe", "wordpiece"], default="bpe"), "wordpiece", "wordpiece"),
    (text("text", "k", limit=5), "abcde", "abcde"),
    (many("tok", "k", options=["a", "b"]), "b", "b"),
])
def test_accepted_values_round_trip(param, raw, value):
    assert param.parse(raw) == value
    if param.name != "text":
        assert param.parse(param.dump(value)) == value


@pytest.mark.parametrize(("param", "raw", "message"), [
    (integer("n", "k", default=1, lo=1, hi=30_000), "0", "between 1 and 30,000"),
    (integer("n", "k", default=1, lo=1, hi=30_000), "x<script>", "is not a number"),
    (number("s", "k", default=0.5, lo=0.1, hi=2.0), "nan", "between"),
    (number("s", "k", default=0.5, lo=0.1, hi=2.0), "inf", "between"),
    (flag("raw", "k"), "yes", "not 0 or 1"),
    (choice("algo", "k", ["bpe", "wordpiece"], default="bpe"), "unigram", "not one of bpe, wordpiece"),
    # One length policy: a text longer than a link carries is refused whole, never cut.
    (text("text", "k", limit=5), "abcdef", "6 characters, more than the 5 a link carries"),
    (many("tok", "k", options=["a", "b"]), "c", "not one of a, b"),
])
def test_refused_values_say_why(param, raw, message):
    with pytest.raises(ValueError, match=message):
        param.parse(raw)


def test_a_text_exactly_at_the_limit_is_kept_and_one_more_character_is_not():
    p = text("text", "k", limit=10)
    assert p.parse("x" * 10) == "x" * 10
    with pytest.raises(ValueError):
        p.parse("x" * 11)


def test_a_stale_address_never_undoes_an_edit_but_a_new_link_is_followed():
    """The browser may send an address that does not yet show the last run's values: a value this
    session wrote itself is not read back as news, so a quick second edit is not undone."""
    from tests._pages import ok, open_page

    at = open_page("pages/merges.py")
    at.query_params["n"] = "500"
    ok(at.run())
    assert at.number_input(key="merges_budget").value == 500  # a link is followed
    ok(at.number_input(key="merges_budget").set_value(600).run())
    assert _value(at, "n") == "500"  # a setting being edited is not the run on show: the address waits
    ok(at.button(key="merges_train").click().run())
    assert _value(at, "n") == "600"  # Train: the address names the run now on show
    at.query_params["n"] = "500"  # the address as the browser had it before the edit arrived
    ok(at.run())
    assert at.number_input(key="merges_budget").value == 600
    at.query_params["n"] = "700"  # a value never seen in this session: a link pasted, followed
    ok(at.run())
    assert at.number_input(key="merges_budget").value == 700


def test_a_text_too_long_for_a_link_is_left_out_and_the_sidebar_says_so():
    """One length policy for every page: the text is kept whole in the page, left out of the address,
    and the sidebar names what the link does not carry."""
    from tests._pages import ok, open_page
    from ui.url_state import MAX_URL_TEXT

    at = open_page("pages/tokenizers.py")
    at.session_state["tokenizers_tab"] = "Pipeline on a text"  # only the open tab is drawn
    ok(at.run())
    key = "tokenizers_pipeline_text"
    ok(at.text_area(key=key).set_value("a" * MAX_URL_TEXT).run())
    assert at.query_params[key] in (["a" * MAX_URL_TEXT], "a" * MAX_URL_TEXT)  # at the limit: kept
    assert not any("Not in this page's link" in c.value for c in at.sidebar.caption)
    ok(at.text_area(key=key).set_value("b" * (MAX_URL_TEXT + 1)).run())
    assert key not in at.query_params
    assert at.text_area(key=key).value == "b" * (MAX_URL_TEXT + 1)  # never cut in the page
    notes = [c.value for c in at.sidebar.caption if "Not in this page's link" in c.value]
    assert notes and "1,001 characters" in notes[0]


def test_a_link_with_a_text_over_the_limit_is_refused_with_a_message():
    from tests._pages import ok, open_page
    from ui.url_state import MAX_URL_TEXT

    at = open_page("pages/tokenizers.py")
    at.query_params["tokenizers_tab"] = "Pipeline on a text"  # only the open tab is drawn
    at.query_params["tokenizers_pipeline_text"] = "c" * (MAX_URL_TEXT + 5)
    ok(at.run())
    assert at.text_area(key="tokenizers_pipeline_text").value != "c" * (MAX_URL_TEXT + 5)
    assert any("more than the 1,000 a link carries" in w.value for w in at.warning)


def test_a_field_shown_only_for_one_choice_keeps_its_value_when_hidden_and_shown_again():
    """Streamlit forgets the value of a widget a run does not draw; url_state.seed keeps the page's
    values, so the Batch page's custom template comes back as the user left it."""
    from tests._pages import ok, open_page

    at = open_page("pages/batch.py")
    ok(at.selectbox(key="batch_template").set_value("custom").run())
    ok(at.text_input(key="batch_single").input("<s> $A </s>").run())
    ok(at.selectbox(key="batch_template").set_value("none").run())  # the custom fields are not drawn
    ok(at.run())
    ok(at.selectbox(key="batch_template").set_value("custom").run())
    assert at.text_input(key="batch_single").value == "<s> $A </s>"


def test_a_form_input_reaches_the_address_only_when_its_button_acts():
    """The Tokenizers page's Train panel: editing the vocabulary size leaves the address alone (it
    describes what is on show), Train writes it; a link's value stays until then."""
    from tests._pages import ok, open_page

    at = open_page("pages/tokenizers.py")
    ok(at.number_input(key="tokenizers_vocab_size").set_value(1000).run())
    assert _value(at, "tokenizers_vocab_size") is None
    at.query_params["tokenizers_vocab_size"] = "1500"  # a link
    ok(at.run())
    assert at.number_input(key="tokenizers_vocab_size").value == 1500
    ok(at.number_input(key="tokenizers_vocab_size").set_value(900).run())
    assert _value(at, "tokenizers_vocab_size") == "1500"  # the link's value until Train
    ok(at.button(key="tokenizers_train").click().run())
    assert _value(at, "tokenizers_vocab_size") == "900"


def test_every_tab_is_in_the_address_and_a_link_opens_it():
    """Each page's tabs: the open one is a parameter; a link naming one sets it, a bad one is refused."""
    from tests._pages import ok, open_page

    for page, name, label in (("pages/lattice.py", "lattice_tab", "Viterbi table"),
                               ("pages/batch.py", "batch_tab", "Masks"),
                               ("pages/tokenizers.py", "tokenizers_tab", "Merge tree"),
                               ("pages/tokenizers.py", "tokenizers_add_tab", "Upload a file"),
                               ("pages/compare.py", "compare_tab", "Metrics")):
        at = open_page(page)
        assert name not in at.query_params  # the first tab is the default: a clean address
        at.query_params[name] = label
        ok(at.run())
        assert at.session_state[name] == label, page
        assert _value(at, name) == label
        at.query_params[name] = "No such tab"
        ok(at.run())
        assert any(f"?{name}= in the address was ignored" in w.value for w in at.warning), page


def test_back_shows_the_view_its_address_describes(monkeypatch):
    """The browser's Back reruns with an older address that this session wrote itself: every value is
    read from it (not only news), and those it lacks go back to their defaults."""
    from tests._pages import ok, open_page
    from ui import url_state

    at = open_page("pages/lattice.py")
    at.query_params["lattice_tab"] = "Training"
    at.query_params["lattice_alpha"] = "0.5"
    ok(at.run())
    assert at.session_state["lattice_alpha"] == 0.5
    del at.query_params["lattice_alpha"]  # Back to the address before alpha was changed
    at.query_params["lattice_tab"] = "Subword sampling"
    monkeypatch.setattr(url_state, "history_navigation", lambda: True)
    ok(at.run())
    assert at.session_state["lattice_alpha"] == 0.1  # the default again
    assert at.session_state["lattice_tab"] == "Subword sampling"
    monkeypatch.setattr(url_state, "history_navigation", lambda: False)
    at.query_params["lattice_tab"] = "Training"  # a stale echo of a value this session wrote: ignored
    ok(at.run())
    assert at.session_state["lattice_tab"] == "Subword sampling"


def test_a_run_writes_its_address_changes_in_one_message(monkeypatch):
    """Streamlit pushes a history entry per address message: one_entry gathers a run's changes, so
    a run that changes several values adds one entry, and a run that changes nothing adds none."""
    import streamlit as st

    from tests._pages import ok, open_page

    calls = []
    original = st.query_params.from_dict

    def counting(values):
        calls.append(dict(values))
        return original(values)

    at = open_page("pages/lattice.py")
    monkeypatch.setattr(type(st.query_params), "from_dict", lambda self, values: counting(values))
    ok(at.run())
    assert calls == []  # nothing changed: no message
    at.session_state["lattice_alpha"] = 0.7
    at.session_state["lattice_seed"] = 3
    ok(at.run())
    assert len(calls) == 1 and {"lattice_alpha", "lattice_seed"} <= set(calls[0])
