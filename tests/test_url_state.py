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
