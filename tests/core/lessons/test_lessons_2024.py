"""The figures of SuperBPE and PickyBPE (tokenizer_core/lessons/figures_2024.py): their values against
the engines on inputs the built-in lessons do not use, and the clear errors of inputs they cannot use.
Every built-in step of the two lessons is checked against the engines in test_lessons.py."""

from __future__ import annotations

import re

import pytest

from tests.core.lessons._engines_2024 import check_pickybpe, check_superbpe
from tokenizer_core.errors import TokenizerError
from tokenizer_core.lessons import Context, LessonError, builtin_lessons, compute_figure, load_lesson
from tokenizer_core.lessons.figures import FIGURES, check_figure
from tokenizer_core.lessons.figures_2024 import text_of
from tokenizer_core.superbpe.trainer import train_superbpe

TOY = {"one of the best": 1, "most of the time": 1, "out of the box": 1}


def figure(**inputs: object) -> dict:
    """A figure's inputs checked and defaulted as a lesson file's are."""
    return check_figure(inputs, ("steps", 0, "figure"), {})


def lesson(figure_text: str) -> str:
    return f"id: x\ntitle: T\nsource: S\nsteps:\n  - title: A\n    say: B\n    figure: {figure_text}\n"


def test_both_kinds_are_registered_and_read_a_corpus():
    assert {"superbpe_merges", "pickybpe_events"} <= set(FIGURES)
    assert FIGURES["superbpe_merges"].uses_corpus and FIGURES["pickybpe_events"].uses_corpus


@pytest.mark.parametrize("transition", [256, 258, 261, 263, 264])
def test_superbpe_toy_against_the_trainer(transition):
    args = figure(kind="superbpe_merges", lines=TOY, vocab_size=264, transition=transition, text="out of the box")
    values = compute_figure(args, Context()).values
    check_superbpe(args, values)
    r = train_superbpe([f"{line}\n" for line in TOY], vocab_size=264, transition=transition, special_tokens=())
    assert values["superwords"] == len(r.superwords())
    assert values["merges_before"] + values["merges_after"] == len(r.merges)


def test_superbpe_percent_is_a_share_of_the_vocabulary_and_100_is_plain_bpe():
    share = compute_figure(figure(kind="superbpe_merges", lines={"of the cat and of the dog": 3}, vocab_size=280,
                                  transition_percent=95), Context()).values
    assert share["transition"] == 266
    plain = compute_figure(figure(kind="superbpe_merges", lines={"of the cat and of the dog": 3}, vocab_size=280,
                                  transition_percent=100), Context()).values
    assert plain["same_as_bpe"] and plain["superwords"] == 0 and plain["tokens"] == plain["bpe_tokens"]
    assert plain["saving_percent"] == 0


def test_superbpe_on_the_multilingual_sample():
    args = figure(kind="superbpe_merges", corpus="multilingual", vocab_size=400, max_chars=1000)
    check_superbpe(args, compute_figure(args, Context()).values)


def test_superbpe_draws_its_merges_stages_and_both_segmentations():
    r = compute_figure(figure(kind="superbpe_merges", lines=TOY, vocab_size=264, transition=261,
                              text="out of the box"), Context())
    merges = r.tables[0]
    assert [row[1] for row in merges.rows] == [1] * 5 + [2] * 3
    assert merges.rows[5][2:4] == ("·of + ·the", "·of·the") and merges.rows[5][5] == "yes"
    assert [row.tokens for row in r.token_rows] == [("o", "u", "t", "Ġof", "Ġthe", "Ġb", "o", "x"),
                                                     ("o", "u", "t", "ĠofĠthe", "Ġb", "o", "x")]
    assert r.charts[0].mark_x == 5.5 and {p["series"] for p in r.charts[0].rows} == {"stage 1", "stage 2"}


@pytest.mark.parametrize(("words", "size", "threshold"), [
    ({"abc": 10, "ab": 1}, 258, 0.9), ({"abc": 10, "ab": 1}, 258, 0.95), ({"abc": 10, "ab": 1, "de": 2}, 259, 0.9),
    ({"aaaa": 5, "ab": 2, "aab": 3}, 262, 0.6), ({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 270, 0.7),
    ({"naïve": 3, "café": 4, "é": 1}, 265, 0.8), ({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 270, 1.0),
])
def test_pickybpe_toys_against_the_trainer(words, size, threshold):
    args = figure(kind="pickybpe_events", words=words, vocab_size=size, threshold=threshold)
    check_pickybpe(args, compute_figure(args, Context()).values)


def test_pickybpe_worked_example_removes_ab_with_ios_10_over_11():
    r = compute_figure(figure(kind="pickybpe_events", words={"abc": 10, "ab": 1}, vocab_size=258), Context())
    assert r.values["removed"] == ["ab"] and r.values["ios:ab"] == 10 / 11 and r.values["restored"] == ["ab"]
    assert [row[2] for row in r.tables[0].rows] == ["merge", "merge", "remove", "merge"]
    assert r.tables[0].rows[2][6] == 0.9091 and "split into a + b" in r.tables[0].rows[2][7]
    kept = compute_figure(figure(kind="pickybpe_events", words={"abc": 10, "ab": 1}, vocab_size=258,
                                 threshold=0.95), Context()).values
    assert kept["removals"] == 0 and kept["first_removed"] is None  # 10/11 is not above 0.95


def test_pickybpe_on_the_multilingual_sample():
    args = figure(kind="pickybpe_events", corpus="multilingual", vocab_size=400, max_chars=1000, threshold=0.7)
    check_pickybpe(args, compute_figure(args, Context()).values)


def test_token_text_shows_broken_bytes_as_bytes():
    assert text_of("ĠofĠthe") == " of the" and text_of("â") == "<0xE2>" and text_of("<|endoftext|>") == "<|endoftext|>"


@pytest.mark.parametrize(("figure_text", "message"), [
    ("{kind: superbpe_merges, vocab_size: 100}", "line 7, field steps[1].figure.vocab_size: vocab_size must be between 257 and 4000, got 100"),
    ("{kind: superbpe_merges, transition_percent: 0}", "transition_percent must be between 1 and 100"),
    ("{kind: superbpe_merges, lines: [of the]}", "lines must be a mapping"),
    ("{kind: superbpe_merges, lines: {of the: 0}}", "lines must be between 1 and 1000, got 0"),
    ("{kind: superbpe_merges, corpus: wiki}", "corpus must be one of active, default, multilingual"),
    ("{kind: superbpe_merges, max_chars: 10000000}", "max_chars must be between 1000 and 300000"),
    ("{kind: superbpe_merges, switch: 3}", "superbpe_merges has no input 'switch'"),
    ("{kind: pickybpe_events, threshold: 0}", "threshold must be between 0.01 and 1"),
    ("{kind: pickybpe_events, threshold: 1.5}", "threshold must be between 0.01 and 1"),
    ("{kind: pickybpe_events, words: {abc: -1}}", "words must be between 1 and 1e+06, got -1"),
    ("{kind: pickybpe_events, vocab_size: 2.5}", "vocab_size must be a whole number"),
])
def test_inputs_a_figure_cannot_take_name_the_field(figure_text, message):
    with pytest.raises(LessonError, match=re.escape(message)):
        load_lesson(lesson(figure_text))


def test_a_transition_past_the_vocabulary_says_how_to_fix_it():
    step = load_lesson(lesson("{kind: superbpe_merges, lines: {of the: 2}, vocab_size: 260, transition: 300}")).steps[0]
    with pytest.raises(TokenizerError, match=r"the transition \(300\) is past the vocabulary size \(260\)"):
        compute_figure(step.figure, Context())


@pytest.mark.parametrize("kind", ["superbpe_merges", "pickybpe_events"])
def test_an_empty_active_corpus_is_refused_with_a_reason(kind):
    step = load_lesson(lesson(f"{{kind: {kind}, corpus: active}}")).steps[0]
    with pytest.raises(TokenizerError, match="has no text to train on; pick a corpus of running text"):
        compute_figure(step.figure, Context(corpus_lines=lambda: ["", "  \n"], corpus_name="the corpus “x”"))


@pytest.mark.parametrize("kind", ["superbpe_merges", "pickybpe_events"])
def test_the_active_corpus_is_read_when_asked(kind):
    lines = ["the cat sat on the mat and the dog sat on the log\n"] * 40
    step = load_lesson(lesson(f"{{kind: {kind}, corpus: active, vocab_size: 300, max_chars: 1000}}")).steps[0]
    r = compute_figure(step.figure, Context(corpus_lines=lambda: lines, corpus_name="the corpus “cats”"))
    assert "the corpus “cats”" in r.title and r.values["bytes"] == 2 * 50  # 20 lines of 50 to train on, the next 2 held out


def test_the_two_lessons_load_with_links_the_bpe_page_takes():
    from ui.lessons.links import lesson_problems

    lessons = builtin_lessons()
    for lesson_id in ("superbpe", "pickybpe"):
        assert not lesson_problems(lessons[lesson_id])
        assert 4 <= len(lessons[lesson_id].steps) <= 5
        settings = [s.open.settings for s in lessons[lesson_id].steps if s.open is not None]
        assert settings and all(s["algo"] == lesson_id and s["stop"] == "vocab" for s in settings)
