"""The light websocket student (bench/st_client.py) against the real server: it opens a page, fills
and clicks widgets, stays on its page across reruns, and follows a class when the server reruns its
page (the class watcher's push), as a browser tab does, so the live-class load test's light students are real
sessions. A teacher here is a light client too: it starts a class and changes the lesson."""

from __future__ import annotations

import re

import pytest

from bench.st_client import ClientError, Session


def _code(teacher: Session) -> str:
    return re.search(r"Class code\W+([A-Z0-9]{4,})", " ".join(teacher.texts())).group(1)


def test_a_light_student_joins_follows_a_lesson_change_and_stays_on_its_page(streamlit_server):
    with Session(streamlit_server, timeout=60) as teacher, Session(streamlit_server, timeout=60) as student:
        teacher.open("lessons", "lesson=strawberry&step=1")
        assert "Lessons" in teacher.texts() and teacher.page_hash  # the server named the page
        teacher.click(teacher.widget(key="lessons_class_start"))
        code = _code(teacher)

        student.open("lessons", f"class={code}")
        student.fill(student.widget(key="lessons_class_join_name"), "<b>light</b>")
        student.click(student.widget(label="Join"))
        student.wait_for_text("your screen follows the teacher")
        assert student.page == "lessons" and "Lessons" in student.texts()
        assert any("strawberry" in t for t in student.texts())

        # The teacher picks another lesson: the class moves, and the server's class watcher reruns the
        # student's page (the page has no timed fragment: nothing polls while the class stands still).
        assert student.timed_fragments == {}
        lesson = teacher.widget(label="Lesson")
        other = next(o for o in lesson.options() if "aaabdaaabac" in o)
        runs = student.runs
        teacher.fill(lesson, other)
        teacher.rerun()  # as the browser does when a select box changes
        student.wait_for_text(r"aaabdaaabac", timeout=30)
        student.wait_idle()
        assert student.runs > runs  # the server ran its page, unasked by the client
        assert student.page == "lessons"


def test_asking_for_what_is_not_there_is_a_clear_error(streamlit_server):
    with Session(streamlit_server, timeout=60) as s:
        s.open("lessons")
        with pytest.raises(ClientError, match="no widget 'Nope' on the page"):
            s.widget(label="Nope")
        with pytest.raises(ClientError, match="not one of 'Lesson'"):
            s.fill(s.widget(label="Lesson"), "no such lesson")
        with pytest.raises(ClientError, match="no text matching"):
            s.wait_for_text("never shown anywhere", timeout=0.3)
        with pytest.raises(ClientError, match="is a selectbox, not a file uploader"):
            s.upload(s.widget(label="Lesson"), "x.txt", b"x")


def test_a_light_session_uploads_a_tokenizer_file_and_picks_it_in_a_multiselect(streamlit_server):
    """The upload goes through the server's upload address (XSRF cookie and header), as the browser's
    does; the imported file is then on the session's shelf and a multiselect can pick it."""
    from bench.session_data import session_word, tokenizer_json

    word = session_word(3)
    with Session(streamlit_server, timeout=60) as s:
        s.open("tokenizers", "corpus=hf-course-hug-pug&tokenizers_add_tab=Upload+a+file")
        s.upload(s.widget(label="Tokenizer file"), "tokenizer.json", tokenizer_json(word), mime="application/json")
        s.click(s.widget(key="tokenizers_import"))
        s.wait_for_text(": 268 tokens. Rename it")
        s.open("compare", s.query)
        picker = s.widget(key="compare_shelf")
        label = next(o for o in picker.options() if o.startswith("tokenizer.json"))
        with pytest.raises(ClientError, match="are not all among"):
            s.fill(picker, ["not on the shelf"])
        s.fill(s.widget(key="compare_text"), word)
        s.fill(picker, [label])
        s.rerun()
        assert re.search(r"Tokens: .*" + re.escape(label) + r"\*\* 1\b", " ".join(s.texts()))
