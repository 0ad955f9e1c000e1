"""Question steps: keys computed by the engines (never stored), answers in one canonical form,
checks at the edges (ties, options that tokenize alike, hostile and malformed input)."""

from __future__ import annotations

import pytest

from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.references import load_reference
from tokenizer_core.lessons import builtin_lessons, parse_lesson
from tokenizer_core.lessons.questions import (
    Question,
    QuestionError,
    answer_key,
    canonical_answer,
    distance,
    is_right,
    shown_answer,
)
from tokenizer_core.lessons.yaml_lines import LessonError


def test_split_and_count_keys_are_the_tokenizers_own_encoding():
    for name, text in [("gpt2", "strawberry"), ("cl100k_base", " unbelievably long"), ("mistral_v1", " unhug")]:
        enc = load_reference(name).encode(text, add_special_tokens=False)
        count = answer_key(Question("count", "", text=text, tokenizer=name))
        assert count.right == str(len(enc.tokens))
        split = answer_key(Question("split", "", text=text, tokenizer=name))
        cuts = sorted({a for a, _ in enc.offsets if 0 < a < len(text)})
        assert split.right == ",".join(map(str, cuts))
        assert split.shown.replace("|", "") == text  # the cuts drawn into the text, nothing lost


def test_a_merge_key_is_the_trainers_choice_and_ties_are_explained():
    words = (("aaabdaaabac", 1),)
    key = answer_key(Question("next_merge", "", words=words, merges_done=1))
    rec = train_bpe_counts(dict(words), num_merges=2).trace[1]
    assert key.right == f"{rec.left} + {rec.right}" and key.right in key.choices
    assert "2 pairs occur 2 times" in key.why  # the tie is said, not hidden
    assert len(set(key.choices)) == len(key.choices) > 1
    with pytest.raises(QuestionError, match="only"):
        answer_key(Question("next_merge", "", words=words, merges_done=50))


def test_every_option_that_tokenizes_alike_is_right():
    q = Question("choice", "", text=" hello", made_by="gpt2", options=("gpt2", "cl100k_base", "qwen"))
    key = answer_key(q)
    same = {n for n in q.options if load_reference(n).encode(" hello", add_special_tokens=False).tokens ==
            load_reference("gpt2").encode(" hello", add_special_tokens=False).tokens}
    assert {key.right, *key.also_right} == same and len(same) >= 2  # " hello" is one token in all three
    assert all(is_right(q, key, n) for n in same)
    digits = Question("choice", "", text=" 1234567", made_by="qwen", options=("gpt2", "cl100k_base", "qwen"))
    dkey = answer_key(digits)
    assert dkey.right == "qwen" and not dkey.also_right and len(dkey.tokens) == 8
    assert is_right(digits, dkey, "cl100k_base") is False


def test_answers_have_one_canonical_form_and_bad_ones_are_refused():
    split = Question("split", "", text="strawberry", tokenizer="gpt2")
    assert canonical_answer(split, [5, 2, 5]) == canonical_answer(split, "2, 5") == "2,5"
    assert canonical_answer(split, []) == "" and shown_answer(split, "") == "strawberry"
    for bad in ([0], [10], "2,x", [True], "-1"):
        with pytest.raises(QuestionError):
            canonical_answer(split, bad)
    count = Question("count", "", text="hi", tokenizer="gpt2")
    assert canonical_answer(count, " 7 ") == "7"
    key = answer_key(count)
    assert distance(count, key, "7") == 6 and is_right(count, key, "1")
    for bad in ("seven", "-3", "1e9", None):
        with pytest.raises(QuestionError):
            canonical_answer(count, bad)
    free = Question("text", "Why?")
    hostile = "<script>alert(1)</script>"
    assert canonical_answer(free, f"  {hostile} ") == hostile and is_right(free, answer_key(free), hostile) is None
    with pytest.raises(QuestionError):
        canonical_answer(free, "x" * 301)
    choice = Question("choice", "", text=" a", made_by="gpt2", options=("gpt2", "qwen"))
    with pytest.raises(QuestionError, match="pick one"):
        canonical_answer(choice, "llama3")


@pytest.mark.parametrize(("question", "message"), [
    ("{kind: quiz}", "must be one of"),
    ("{kind: count, text: hi}", "needs tokenizer"),
    ("{kind: count, text: hi, tokenizer: nope}", "no reference tokenizer is called 'nope'"),
    ("{kind: split, text: " + "a" * 61 + ", tokenizer: gpt2}", "at most 60"),
    ("{kind: next_merge, words: {ab: 1}, merges_done: 3}", "only"),
    ("{kind: next_merge, words: {ab: -1}}", "positive counts"),
    ("{kind: text, prompt: Why, answer: 42}", "unknown field"),
    ("[1, 2]", "a question is a mapping"),
])
def test_a_malformed_question_names_its_line_and_field(question, message):
    text = f"id: q\ntitle: Q\nsource: S\nsteps:\n  - title: A\n    say: B\n    question: {question}\n"
    with pytest.raises(LessonError, match=message) as info:
        parse_lesson(text)
    assert "line 7" in str(info.value)


def test_builtin_lessons_ask_every_kind_and_every_key_computes():
    asked = {}
    for lesson in builtin_lessons().values():
        for step in lesson.steps:
            if step.question is not None:
                asked.setdefault(step.question.kind, []).append(lesson.id)
                key = answer_key(step.question)
                assert key.why
    assert set(asked) == {"count", "split", "next_merge", "choice", "text"}
    assert len({lid for ids in asked.values() for lid in ids} - {"strawberry"}) >= 5
    strawberry = builtin_lessons()["strawberry"]
    assert sum(s.question is not None for s in strawberry.steps) >= len(strawberry.steps) - 1  # mostly questions


def test_a_split_with_the_course_unigram_is_its_viterbi_walk():
    from tokenizer_core.unigram.explain import course_model

    q = Question("split", "", text="sunhug", tokenizer="course-unigram")
    key = answer_key(q)
    pieces = course_model().lattice("sunhug").viterbi().pieces
    assert key.shown == "|".join(pieces) == "s|un|hug" and key.right == "1,3"


def test_a_wordpiece_merge_key_is_the_trainers_choice_by_score_not_frequency():
    from tokenizer_core.wordpiece.trainer import train_wordpiece

    words = (("hug", 10), ("pug", 5), ("pun", 12), ("bun", 4), ("hugs", 5))
    q = Question("next_merge", "", words=words, algorithm="wordpiece")
    key = answer_key(q)
    m = train_wordpiece(dict(words), vocab_size=10_000, num_merges=1, special_tokens=()).merges[0]
    assert key.right == f"{m.left} + {m.right}" == "##g + ##s"
    assert "##u + ##g" in key.choices and "BPE would merge the most frequent pair, ##u + ##g" in key.why
    assert canonical_answer(q, "##u + ##g") == "##u + ##g" and is_right(q, key, "##u + ##g") is False
    assert q.asked == "Which pair does WordPiece merge next?"


def test_a_choice_questions_tokens_reach_the_page_escaped():
    from ui.widgets.safe_html import markup_problems
    from ui.widgets.tokens import chips_html

    hostile = "<img src=x onerror=alert(1)><script>x</script>"
    key = answer_key(Question("choice", "", text=hostile, made_by="gpt2", options=("gpt2", "qwen")))
    html = chips_html([(None, t) for t in key.tokens], scheme="byte-level")
    assert markup_problems(html) == [] and "<img" not in html and "<script" not in html
    assert "&lt;" in html


def test_students_reaching_a_cold_question_together_wait_for_one_answer_key(monkeypatch):
    import threading
    import time

    from tokenizer_core.lessons import questions

    calls: list[Question] = []
    real = questions._key

    def slow_key(q, load):
        calls.append(q)
        time.sleep(0.2)  # a tokenizer loading: the other threads arrive meanwhile
        return real(q, load)

    monkeypatch.setattr(questions, "_key", slow_key)
    q = Question("text", "What would forty students say at once?")
    keys: list[object] = []
    threads = [threading.Thread(target=lambda: keys.append(answer_key(q))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [q] and len(keys) == 6 and len({id(k) for k in keys}) == 1


def test_a_lessons_keys_are_worked_out_in_the_background_and_a_bad_question_is_left_to_its_step(monkeypatch):
    from tokenizer_core.lessons import questions

    seen: list[str] = []
    real = questions._key

    def counting(q, load):
        seen.append(q.prompt)
        return real(q, load)

    monkeypatch.setattr(questions, "_key", counting)
    good = Question("text", "Warmed in the background?")
    bad = Question("count", "Warm a tokenizer nobody ships?", text="x", tokenizer="no-such-tokenizer")
    questions.warm_keys([bad, good]).join(timeout=30)
    assert seen == [bad.prompt, good.prompt]  # the bad one raised, and the next was still worked out
    answer_key(good)
    assert seen == [bad.prompt, good.prompt]  # the step then finds it ready
    with pytest.raises(TokenizerError, match="no-such-tokenizer"):
        answer_key(bad)  # its step says why, as before


def test_the_lessons_page_warms_a_lessons_questions_once_per_server(monkeypatch):
    from ui.lessons import ask

    started: list[tuple[Question, ...]] = []
    monkeypatch.setattr(ask, "warm_keys", lambda qs: started.append(tuple(qs)))
    monkeypatch.setattr(ask, "_WARMED", {})
    lesson = [s.question for s in builtin_lessons()["strawberry"].steps if s.question is not None]
    assert ask.warm(lesson) is True and ask.warm(list(lesson)) is False  # equal content: warmed once
    assert ask.warm([]) is False and started == [tuple(lesson)]
