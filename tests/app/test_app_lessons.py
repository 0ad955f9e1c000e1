"""The Lessons page under AppTest: links to a step, every built-in lesson walked, uploads (kept in the
workspace store, broken and hostile ones), presenter mode's notes."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests._pages import html_bodies, lesson_heading, ok, open_lessons
from tokenizer_core.lessons import BUILTIN_IDS, builtin_lessons
from ui import cache
from ui.lessons.handout import build_handout
from ui.store import workspace

PAGE = "pages/lessons.py"
LESSONS = builtin_lessons()


fresh = open_lessons


def qp(at: AppTest, name: str) -> list[str]:
    value = at.query_params.get(name, [])
    return [value] if isinstance(value, str) else list(value)


heading = lesson_heading


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENIZER_PLAYGROUND_DB", str(tmp_path / "ws.sqlite3"))
    workspace.reset_for_tests()
    yield
    workspace.reset_for_tests()


def test_a_link_to_a_step_opens_that_step():
    at = fresh(lesson="bpe-aaabdaaabac", step="3")
    assert heading(at) == "3. Second merge: ab → Y"
    assert at.session_state["lessons_step"] == 2 and qp(at, "step") == ["3"]
    assert any("the engine agrees" in s.value for s in at.success)
    assert "ZYdZYac" in "".join(s.value for s in at.success)
    link = next(e.proto for e in at.get("page_link") if e.proto.page == "merges")  # the BPE page at this step
    assert "merges" in link.page and "step=2" in str(link) and "n=3" in str(link)


@pytest.mark.parametrize("lesson_id", BUILTIN_IDS)
def test_every_builtin_lesson_runs_to_its_end(lesson_id):
    at = fresh(lesson=lesson_id)
    lesson = LESSONS[lesson_id]
    for index, step in enumerate(lesson.steps):
        at.session_state["lessons_step"] = index
        ok(at.run())
        if step.question is not None:
            at = reveal(at, index)
        assert heading(at) == f"{index + 1}. {step.title}"
        assert not at.error, [e.value for e in at.error]
        if index:
            assert qp(at, "step") == [str(index + 1)]
        # Claims the lesson expects the engine to confirm are confirmed; the others explained.
        answer_box = step.question is not None and step.question.kind != "text"  # "The engines' answer: ..."
        assert len(at.success) == sum(c.expect == "agree" for c in step.claims) + answer_box
        assert len(at.warning) == sum(c.expect == "differ" for c in step.claims)


def reveal(at: AppTest, index: int) -> AppTest:
    """A reader alone shows a question step's answer (and with it the figure and the claims)."""
    at.button(key=f"lessons_reveal_{index}").click()
    return ok(at.run())


def test_the_course_wordpiece_slip_is_shown_with_the_engines_value():
    at = fresh(lesson="hf-course-wordpiece", step="3")
    # "Work it out with the class": the engine's answer waits for the reveal.
    assert not at.warning and "0.044444" not in " ".join(m.value for m in at.markdown)
    at = reveal(at, 2)
    text = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "0.044444" in text and "2/45" in text
    assert "hu + ##gs" in " ".join(m.value for m in at.markdown) + text


HOSTILE = """id: hostile-lesson
title: "<script>alert('title')</script> **bold**"
source: "<img src=x onerror=alert(1)>"
summary: "<iframe src=javascript:alert(2)>"
steps:
  - title: "<b onmouseover=alert(3)>step</b>"
    say: "<script>alert(4)</script> [click](javascript:alert(5))"
    notes: "<img src=x onerror=alert(6)>"
    figure: {kind: bpe_merges, words: {"<img src=x onerror=alert(7)>": 3, "</span><script>x</script>": 2}, merges: 3,
             text: "<img src=x onerror=alert(7)>"}
    source_says:
      - {quantity: "<svg onload=alert(8)>", value: "<script>", expect: differ, why: "<img src=x onerror=alert(9)>"}
"""


def upload(at: AppTest, data: bytes, name: str = "mine.yaml") -> AppTest:
    return ok(at.file_uploader(key="lessons_upload").set_value((name, data, "application/x-yaml")).run())


def test_a_hostile_lesson_is_shown_as_text(db):
    at = upload(fresh(), HOSTILE.encode())
    assert heading(at).startswith("1. <b onmouseover")  # shown as text, escaped for Markdown
    bodies = html_bodies(at)
    for bad in ("<img", "<script", "<svg", "onerror=alert", "<iframe"):
        assert bad not in bodies
    assert "tp-chip" in bodies and "&lt;" in bodies  # the token chips, their text escaped
    lesson = at.session_state["lessons_uploaded"][at.session_state["lessons_lesson"]]
    page = build_handout(lesson, [None], notes=True)
    for bad in ("<img", "<script>", "<svg onload", "<iframe", "<b onmouseover"):
        assert bad not in page
    assert "Content-Security-Policy" in page


def _my_copy() -> str:
    """The Wikipedia lesson's file under another id and title, as a teacher would upload it."""
    with open("lessons/bpe-aaabdaaabac.yaml", encoding="utf-8") as fh:
        text = fh.read()
    return text.replace("id: bpe-aaabdaaabac", "id: my-copy").replace("Byte-pair encoding by hand",
                                                                        "My copy of the BPE lesson")


def test_an_open_session_keeps_its_uploaded_lesson_from_expiry(db, monkeypatch):
    touched: list[str] = []
    monkeypatch.setattr(workspace, "keep_in_use", lambda links: touched.extend(links))
    at = upload(fresh(), _my_copy().encode())
    link = at.session_state["lessons_lesson"]
    assert link in touched


def test_an_uploaded_lesson_survives_a_restart_by_its_link(db):
    data = _my_copy()
    at = upload(fresh(), data.encode())
    link = at.session_state["lessons_lesson"]
    assert link not in BUILTIN_IDS and qp(at, "lesson") == [link]
    cache._registry().clear()  # a restart: every server-wide table forgotten, the store kept
    workspace.reset_for_tests()
    again = fresh(lesson=link, step="4")
    assert heading(again) == "4. Third merge: ZY → X"
    assert "My copy of the BPE lesson" in " ".join(m.value for m in again.markdown).replace("\\", "")


def test_broken_uploads_say_the_line_and_field_and_the_lesson_stays(db):
    at = fresh(lesson="padding-waste")
    at = upload(at, b"id: x\ntitle: T\nsource: S\nsteps:\n  - title: A\n    say: B\n    figure: {kind: nope}\n")
    assert any("line 7, field steps[1].figure.kind" in e.value.replace("\\", "") for e in at.error)
    at = upload(at, b"id: x\ntitle: T\nsource: S\nsteps:\n  - title: A\n    say: B\n    open: {page: merges, settings: {k: 1}}\n",
                name="other.yaml")
    assert any("the merges page has no setting 'k'" in e.value.replace("\\", "") for e in at.error)
    assert at.session_state["lessons_lesson"] == "padding-waste"
    upload(at, b"\xff\xfe not utf-8", name="bin.yaml")
    assert any("not UTF-8" in e.value for e in at.error)


def test_presenter_mode_hides_the_notes_unless_asked():
    lesson = LESSONS["bpe-aaabdaaabac"]
    notes = lesson.steps[0].notes
    plain = fresh(lesson="bpe-aaabdaaabac")
    assert any(m.value == notes for m in plain.markdown)
    presenting = fresh(lesson="bpe-aaabdaaabac", present="1")
    assert not any(m.value == notes for m in presenting.markdown)
    presenting.toggle(key="lessons_notes_on").set_value(True).run()
    assert any(m.value == notes for m in ok(presenting).markdown)
    assert qp(presenting, "notes") == ["1"]


def test_an_unknown_lesson_in_a_link_is_said(db):
    at = fresh(lesson="no-such-lesson-here", step="2")
    assert any("no longer keeps" in w.value for w in at.warning)  # said, and the first lesson shown
    short = fresh(lesson="nope")
    assert any("nope" in w.value.replace("\\", "") for w in short.warning)
    assert heading(at).startswith("1. ")


def test_the_built_in_lessons_are_read_once_and_again_when_a_file_changes(tmp_path, monkeypatch):
    """Every Lessons run asks for the built-in lessons (twice); the files are read once for the server
    and read again when one changes (its size or modification time)."""
    import os
    import shutil

    from tokenizer_core.lessons import BUILTIN_DIR
    from ui.lessons import library

    folder = tmp_path / "lessons"
    shutil.copytree(BUILTIN_DIR, folder)
    monkeypatch.setattr(library, "BUILTIN_DIR", folder)
    reads: list[str] = []
    real = type(folder).read_text

    def counted(path, *args, **kwargs):  # noqa: ANN001, ANN202
        reads.append(path.name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(type(folder), "read_text", counted)
    first = library.builtin()
    assert list(first) == list(BUILTIN_IDS) and len(reads) == len(BUILTIN_IDS)
    first.clear()  # a caller's dict is its own
    again = library.builtin()
    assert list(again) == list(BUILTIN_IDS) and len(reads) == len(BUILTIN_IDS)  # nothing read again
    changed = folder / f"{BUILTIN_IDS[0]}.yaml"
    text = changed.read_text(encoding="utf-8")
    reads.clear()
    changed.write_text(text.replace("title: \"", "title: \"Edited ", 1), encoding="utf-8")
    os.utime(changed, ns=(1, 1))
    edited = library.builtin()
    assert len(reads) == len(BUILTIN_IDS) and edited[BUILTIN_IDS[0]].title.startswith("Edited ")
