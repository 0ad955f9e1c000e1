"""Where rows part and which rule decides (tokenizer_core/analysis/rule_places.py): on real references,
each kind of place holds exactly the differing boundaries of that kind, and the rules it names are the
tokenizers' own."""

from __future__ import annotations

from tokenizer_core.analysis.compare import disagreements, segments
from tokenizer_core.analysis.rule_places import PLACE_RULES, parting_places, place_of, rules_for
from tokenizer_core.analysis.rules import split_rules
from tokenizer_core.io.references import load_reference


def test_places_are_classed_by_the_characters_around_them():
    text = "I don't have 12345 cafés"
    assert place_of(text, text.index("345")) == "digits"
    assert place_of(text, text.index("'t")) == "contractions"
    assert place_of(text, text.index(" have")) == "spaces"
    assert place_of(text, text.index("és")) == "characters outside ASCII"
    assert place_of(text, text.index("ave")) == "inside words"


def test_cl100k_and_qwen_part_at_digits_and_each_names_its_own_digit_rule():
    text = "I don't have 1234567 cats"
    toks = {name: load_reference(name) for name in ("cl100k_base", "qwen")}
    rows = [segments(t, text) for t in toks.values()]
    places = {p.place: p for p in parting_places(text, rows)}
    digit_positions = {p for p in disagreements(rows) if place_of(text, p) == "digits"}
    assert set(places["digits"].positions) == digit_positions and digit_positions
    assert "|" in places["digits"].example
    rules = {name: rules_for("digits", split_rules(t)) for name, t in toks.items()}
    assert rules == {"cl100k_base": ["digits in groups of up to 3, from the left"], "qwen": ["single digits"]}
    # every differing boundary is in exactly one kind of place
    assert sum(len(p.positions) for p in places.values()) == len([p for p in disagreements(rows) if 0 < p < len(text)])
    assert list(places) == [p for p in PLACE_RULES if p in places]  # shown in a fixed order
