"""Values read from the address: each parser accepts what its widget can hold and refuses the rest
with a sentence a user can act on."""

from __future__ import annotations

import pytest

from ui.url_state import choice, flag, integer, many, number, text


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
    assert at.query_params["n"] == ["600"] or at.query_params["n"] == "600"
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
