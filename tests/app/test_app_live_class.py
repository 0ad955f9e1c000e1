"""A live class under AppTest: a teacher's session and students' sessions on one store. Students
follow the teacher's lesson and step, answer, and see the answer only once the teacher shows it."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests._pages import lesson_heading, ok, open_lessons
from tests.app.test_app_lessons import db as _fresh_store  # noqa: F401 (the Lessons tests' fixture `db`)
from tokenizer_core.lessons import builtin_lessons
from tokenizer_core.lessons.questions import answer_key
from ui.widgets.text import escape_markdown as escape

PAGE = "pages/lessons.py"
pytestmark = pytest.mark.usefixtures("_fresh_store")  # every test on a fresh SQLite store
STRAWBERRY = builtin_lessons()["strawberry"]


fresh = open_lessons


heading = lesson_heading


def test_students_follow_the_teacher_answer_and_see_the_answer_only_once_shown():
    from dataclasses import replace

    from ui.lessons import live

    teacher = fresh(lesson="strawberry")
    teacher.button(key="lessons_class_start").click()
    teacher = ok(teacher.run())
    # One student answers two questions within half a second here: no rate limit in this test
    # (tests/app/test_classes.py checks the limit).
    live.room().limits = replace(live.room().limits, answer_gap=0.0)
    code = teacher.session_state["lessons_class_code"]
    secret = teacher.session_state["lessons_class_secret"]
    assert any(code in m.value for m in teacher.markdown)
    # The join link carries the code, never the teacher's secret.
    links = [c.value for c in teacher.code]
    assert any(f"/lessons?class={code}" in v for v in links) and not any(secret in v for v in links)

    # A student opens the join link on another lesson, and lands where the class is.
    student = fresh(lesson="granularity", **{"class": code.lower()})
    assert student.text_input(key="lessons_class_join_code").value == code
    student.text_input(key="lessons_class_join_name").input("<img src=x onerror=alert(1)>")
    student.button(key="FormSubmitter:lessons_class_join_form-Join").click()
    student = ok(student.run())
    assert student.session_state["lessons_lesson"] == "strawberry" and heading(student).startswith("1.")

    # The teacher moves to the count question; the student's next run (its poll) follows.
    teacher.session_state["lessons_step"] = 1
    teacher = ok(teacher.run())
    student = ok(student.run())
    assert heading(student) == f"2. {STRAWBERRY.steps[1].title}"
    key = answer_key(STRAWBERRY.steps[1].question)
    assert not any(key.why in c.value for c in student.caption)  # nothing given away before the reveal
    student.number_input(key="lessons_cq_1_in").set_value(int(key.right) + 2)
    student.button(key="FormSubmitter:lessons_cq_1-Send").click()
    student = ok(student.run())
    assert any(c.value.replace("\\", "").startswith(f"Sent: {int(key.right) + 2}.") for c in student.caption)

    teacher = ok(teacher.run())
    assert any(m.value == "1 of 1" for m in teacher.metric)  # the room: one answer of one student
    teacher.button(key="lessons_class_reveal_1").click()
    teacher = ok(teacher.run())
    room, reads = live.room(), []
    room.my_answer = lambda *args, **kwargs: reads.append(args)  # the store is not asked again
    try:
        student = ok(student.run())
    finally:
        del room.my_answer
    shown = (" ".join(s.value for s in student.success) + " ".join(m.value for m in student.markdown)).replace("\\", "")
    assert f"**{key.right}**" in shown and "2 off" in shown and reads == []  # the answer this session sent

    # On the split question the teacher sees how many cut at each gap of the word.
    teacher.session_state["lessons_step"] = 0
    teacher = ok(teacher.run())
    student = ok(student.run())
    student.get("pills")[0].set_value([2, 5])
    student.button(key="FormSubmitter:lessons_cq_0-Send").click()
    student = ok(student.run())
    teacher = ok(teacher.run())
    assert any(m.value == "1 of 1" for m in teacher.metric)
    assert len(teacher.get("vega_lite_chart")) >= 2  # the gaps, then the answers
    teacher.session_state["lessons_step"] = 1
    teacher = ok(teacher.run())
    student = ok(student.run())
    # Exploring alone: the teacher's moves no longer pull the student, until they come back.
    student.button(key="lessons_class_leave").click()
    student = ok(student.run())
    teacher.session_state["lessons_step"] = 3
    teacher = ok(teacher.run())
    student = ok(student.run())
    assert heading(student).startswith("2.")
    student.button(key="lessons_class_back").click()
    student = ok(student.run())
    assert heading(student).startswith("4.")
    # The hostile name is on the teacher's screen as text (escaped Markdown), never as markup.
    names = next(c.value for c in teacher.caption if c.value.startswith("In class"))
    assert names == escape("In class: <img src=x onerror=alert(1)>")
    assert not any("<img" in h.proto.body for h in teacher.get("html"))


def teacher_and_student(lesson: str) -> tuple[AppTest, AppTest]:
    """A teacher's session that started a class on ``lesson``, and a student's that joined it."""
    teacher = fresh(lesson=lesson)
    teacher.button(key="lessons_class_start").click()
    teacher = ok(teacher.run())
    student = fresh(**{"class": teacher.session_state["lessons_class_code"]})
    student.button(key="FormSubmitter:lessons_class_join_form-Join").click()
    return teacher, ok(student.run())


def page_title(at: AppTest) -> str:
    return at.title[0].value if at.title else ""


def test_students_follow_the_teacher_to_another_page_and_its_view():
    teacher, student = teacher_and_student("hf-course-bpe")
    assert student.session_state["lessons_lesson"] == "hf-course-bpe"
    # The teacher opens the BPE page on the course sample at step 2 (its address is its view).
    teacher.query_params.update({"corpus": "hf-course-hug-pug", "n": "3", "step": "2"})
    teacher = ok(teacher.switch_page("pages/merges.py").run())
    view = teacher.query_params
    student = ok(student.run())
    assert page_title(student) == "BPE step-through"
    for name in ("corpus", "step"):
        assert student.query_params.get(name) == view.get(name), name
    # The class's own parameters never travel: the join code and presenter mode stay the student's.
    assert "present" not in student.query_params or student.query_params.get("present") != view.get("present")


def test_the_speaker_screen_reads_the_class_but_cannot_move_it():
    from ui.store.classes import speaker_token

    teacher = fresh(lesson="strawberry")
    teacher.button(key="lessons_class_start").click()
    teacher = ok(teacher.run())
    code, secret = teacher.session_state["lessons_class_code"], teacher.session_state["lessons_class_secret"]
    teacher.session_state["lessons_step"] = 1
    teacher = ok(teacher.run())
    speaker = fresh(**{"class": code, "speaker": speaker_token(secret), "present": "1"})
    assert speaker.session_state["lessons_class_role"] == "speaker"
    assert heading(speaker) == f"2. {STRAWBERRY.steps[1].title}"
    assert any(m.label == "Answered" for m in speaker.metric)
    nxt = escape(f"Next: {STRAWBERRY.steps[2].title}")
    assert any(m.value == nxt for m in speaker.markdown)  # the next step, for the teacher's eyes only
    # Moving on the speaker screen does not move the class.
    speaker.session_state["lessons_step"] = 4
    speaker = ok(speaker.run())
    from ui.lessons import live

    assert live.room().state(code).step == 1
    forged = fresh(**{"class": code, "speaker": "x" * 32})
    assert not any(m.label == "Answered" for m in forged.metric)


def test_the_class_moves_before_the_teachers_step_draws(monkeypatch):
    """The teacher's move reaches the store as soon as the step is known: a step whose figure
    fails (or is still computing) has moved the class already, with the step's own address."""
    from ui.lessons import live, view

    teacher = fresh(lesson="strawberry")
    teacher.button(key="lessons_class_start").click()
    teacher = ok(teacher.run())
    code = teacher.session_state["lessons_class_code"]
    before = live.room().state(code)

    def broken(step):
        raise RuntimeError("the figure's engine failed")

    monkeypatch.setattr(view, "figure_of", broken)
    teacher.session_state["lessons_step"] = 5  # "What the tokens were": a figure, no question
    teacher = teacher.run()
    assert teacher.exception and "the figure's engine failed" in teacher.exception[0].message
    moved = live.room().state(code)
    assert moved.version > before.version and moved.step == 5 and moved.view.get("step") == "6"


def test_a_following_students_run_reads_the_class_once_and_the_teachers_each_time(monkeypatch):
    """Forty students follow each step with forty page runs: each reads the class from the store once
    (every part of the page draws from that snapshot), and the next run reads it again; a teacher's
    run moves the class as it goes, so its reads are never shared."""
    from ui.store.classes import ClassRoom

    teacher, student = teacher_and_student("strawberry")
    code = teacher.session_state["lessons_class_code"]
    reads: list[str] = []
    real = ClassRoom.state

    def counted(self, code, *, max_age=0.0):
        reads.append((code, max_age > 0))  # True: a server's followers may share one read
        return real(self, code, max_age=max_age)

    monkeypatch.setattr(ClassRoom, "state", counted)
    teacher.session_state["lessons_step"] = 1  # the count question: panel, sidebar and question all read
    teacher = ok(teacher.run())
    assert len(reads) >= 3 and not any(shared for _, shared in reads)  # the teacher's parts each asked the store
    reads.clear()
    student = ok(student.run())
    assert reads == [(code, True)] and heading(student) == f"2. {STRAWBERRY.steps[1].title}"
    reads.clear()
    teacher.session_state["lessons_step"] = 2
    teacher = ok(teacher.run())
    reads.clear()
    student = ok(student.run())  # a new run reads the new step, not the last run's snapshot
    assert reads == [(code, True)] and heading(student) == f"3. {STRAWBERRY.steps[2].title}"


def test_a_teacher_over_the_start_limit_is_told_when_and_stays_out_of_a_class():
    """The store's per-person limit on opening classes reaches the page as a message (where the
    button was), not a traceback; the session takes no class."""
    from dataclasses import replace

    from ui.lessons import live

    teacher = fresh(lesson="strawberry")
    teacher.button(key="lessons_class_start").click()
    teacher = ok(teacher.run())
    live.room().limits = replace(live.room().limits, starts=1)
    try:
        teacher.button(key="lessons_class_end").click()
        teacher = ok(teacher.run())
        teacher.button(key="lessons_class_start").click()
        teacher = ok(teacher.run())
    finally:
        live.room().limits = replace(live.room().limits, starts=10)
    assert any("opened 1 classes in the last 60 minutes" in w.value for w in teacher.warning)
    assert "lessons_class_code" not in teacher.session_state and teacher.button(key="lessons_class_start")
    assert not any(b.label == "Leave the class" for b in teacher.button)  # never in a class: nothing to leave
