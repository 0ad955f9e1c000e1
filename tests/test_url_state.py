"""Values read from the address: each parser accepts what its widget can hold and refuses the rest
with a sentence a user can act on."""

from __future__ import annotations

import pytest

from ui.url_state import choice, flag, integer, number, text


@pytest.mark.parametrize(("param", "raw", "value"), [
    (integer("n", "k", default=1, lo=1, hi=30_000), "2000", 2000),
    (number("s", "k", default=0.5, lo=0.1, hi=2.0), "0.25", 0.25),
    (flag("raw", "k"), "1", True),
    (flag("raw", "k"), "0", False),
    (choice("algo", "k", ["bpe", "wordpiece"], default="bpe"), "wordpiece", "wordpiece"),
    (text("text", "k", limit=5), "abcdefgh", "abcde"),
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
])
def test_refused_values_say_why(param, raw, message):
    with pytest.raises(ValueError, match=message):
        param.parse(raw)


def test_long_texts_stay_out_of_the_address():
    p = text("text", "k", limit=10)
    assert p.dump("short") == "short" and p.dump("x" * 11) == ""


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
