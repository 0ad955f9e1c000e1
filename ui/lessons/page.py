"""The Lessons page: pick a lesson, walk its steps (keys N/→ and P/←, the address following), upload
a lesson file, download any lesson and a handout of it.

``?lesson=ID&step=K`` opens step K (counted from 1) of a lesson: a built-in id, or the link id of a
lesson uploaded to the workspace store. Presenter mode (``?present=1``) folds the picker away and
hides the teacher's notes unless the notes switch is on.

>>> STEP_PARAM.parse("2"), STEP_PARAM.dump(1)
(1, '2')
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from tokenizer_core.lessons import BUILTIN_IDS, Lesson, LessonError
from ui import address, url_state
from ui.lessons import PREFIX, ask, follow, library, live
from ui.lessons.handout import build_handout
from ui.lessons.view import figure_of, render_step
from ui.widgets import display
from ui.widgets.stepper import StepperState, clamp_step, render_stepper_controls
from ui.widgets.text import escape_markdown

LESSON = PREFIX + "lesson"
STEP = PREFIX + "step"  # 0-based in the session, 1-based in the address
NOTES = PREFIX + "notes_on"
UPLOAD = PREFIX + "upload"
_UPLOAD_ERROR = PREFIX + "upload_error"  # why the last uploaded file was refused
_SHOWN = PREFIX + "shown"  # the lesson the last run showed
STEPPER = StepperState(step=STEP, playing=PREFIX + "playing", widget=PREFIX + "stepper")
MAX_STEPS = 40


def _step_parse(raw: str) -> int:
    value = int(raw) if raw.strip().isdigit() else -1
    if not 1 <= value <= MAX_STEPS:
        raise ValueError(f"{raw[:20]!r} is not a step number from 1 to {MAX_STEPS}")
    return value - 1


# Both always in the address: a lesson link names its lesson and step, whichever they are.
LESSON_PARAM = replace(url_state.label("lesson", LESSON, default=BUILTIN_IDS[0], what="the lesson", limit=60),
                       explicit=True)
STEP_PARAM = url_state.UrlParam("step", STEP, 0, _step_parse, dump=lambda v: str(int(v) + 1), explicit=True)
NOTES_PARAM = url_state.flag("notes", NOTES, default=False)
PARAMS = (LESSON_PARAM, STEP_PARAM, NOTES_PARAM)


def _new_lesson() -> None:
    st.session_state[STEP] = 0
    st.session_state[STEPPER.playing] = False


def _take_upload() -> None:
    """The uploader's callback (before the widgets are drawn, so it may pick the new lesson): check the
    file, keep it (session and store) and open it at its first step; a broken file is said."""
    file = st.session_state.get(UPLOAD)
    if file is None:
        return
    try:
        key = library.add_upload(file.getvalue())
    except LessonError as err:
        st.session_state[_UPLOAD_ERROR] = f"{file.name}: {err}"
        return
    st.session_state.pop(_UPLOAD_ERROR, None)
    st.session_state[LESSON] = key
    _new_lesson()


def _upload_panel() -> None:
    st.file_uploader("Upload a lesson (.yaml)", type=["yaml", "yml"], key=UPLOAD, on_change=_take_upload,
                     help="A lesson file in the format of the built-in ones (download one to start from). "
                          "It is kept on this server, so a link to it works after a reload.")


def _pick(lessons: dict[str, Lesson]) -> Lesson:
    keys = list(lessons)
    st.selectbox("Lesson", keys, key=LESSON, format_func=lambda k: lessons[k].title, on_change=_new_lesson,
                 help="The built-in lessons, then the ones uploaded in this session")
    return lessons[st.session_state[LESSON]]


def _downloads(lesson: Lesson, *, notes: bool) -> None:
    row = st.container(horizontal=True, key=PREFIX + "downloads")
    row.download_button("Lesson file", data=lesson.text.encode("utf-8"), file_name=f"{lesson.id}.yaml",
                        mime="application/x-yaml", key=PREFIX + "download_yaml", on_click="ignore",
                        icon=":material/download:", help="This lesson as a file, to edit and upload again")
    row.download_button("Handout (HTML)", data=lambda: build_handout(lesson, [figure_of(s) for s in lesson.steps],
                                                                     notes=notes).encode("utf-8"),
                        file_name=f"{lesson.id}.html", mime="text/html", key=PREFIX + "download_html",
                        on_click="ignore", icon=":material/download:",
                        help="The whole lesson as one web page: text, tables and charts, readable offline")


def render_page() -> None:
    """The whole page (called by ``pages/lessons.py``)."""
    step_from_link = url_state.is_news(STEP_PARAM.name, address.raw(STEP_PARAM.name))
    url_state.seed(PARAMS)
    if st.session_state.get(LESSON) not in library.available():
        found = library.restore(str(st.session_state.get(LESSON)))
        st.session_state[LESSON] = found if found is not None else BUILTIN_IDS[0]
        if found is None:
            st.session_state[STEP] = 0
    display.intro("Guided lessons built from the worked examples of the field. Each step's figure is "
                  "computed by the engines; what the source printed is checked against it. Walk the steps "
                  "with **N**/**→** and **P**/**←**; the address follows, so a link opens the same step.")
    with display.folded("Lesson"):
        left, right = st.columns([3, 2], gap="large")
        with left:
            lesson = _pick(library.available())
        with right:
            _upload_panel()
            st.toggle("Notes when presenting", key=NOTES, help="Show each step's notes for the teacher in "
                      "presenter mode too (they are always shown otherwise)")
        if st.session_state.get(_UPLOAD_ERROR):
            st.error(escape_markdown(st.session_state[_UPLOAD_ERROR]), icon=":material/error:")
    ask.warm([s.question for s in lesson.steps if s.question is not None])  # before a class gets there
    if st.session_state.get(_SHOWN) not in (None, st.session_state[LESSON]) and not step_from_link:
        st.session_state[STEP] = 0  # another lesson (a link without a step): from its start
    st.session_state[_SHOWN] = st.session_state[LESSON]
    with st.expander("Live class", icon=":material/groups:", expanded=live.role() is not None
                     or bool(address.raw(live.JOIN_PARAM))):
        at = clamp_step(st.session_state.get(STEP, 0), num_steps=len(lesson.steps) - 1)
        live.render_panel(lesson_id=st.session_state[LESSON], title=lesson.title,
                          next_title=lesson.steps[at + 1].title if at + 1 < len(lesson.steps) else "")
    # Presenting: only when asked; the speaker screen always shows them.
    show_notes = bool(st.session_state.get(NOTES)) or not display.presenter() or live.role() == "speaker"
    st.markdown(f"### {escape_markdown(lesson.title)}")
    if not display.presenter():
        st.caption(escape_markdown(f"Source: {lesson.source}"))
    last = len(lesson.steps) - 1
    st.session_state[STEP] = clamp_step(st.session_state.get(STEP, 0), num_steps=last)
    render_stepper_controls(STEPPER, num_steps=last, run_id=f"{st.session_state[LESSON]}:{lesson.id}", interval=4.0)
    index = clamp_step(st.session_state.get(STEP, 0), num_steps=last)
    st.caption(f"Step {index + 1} of {last + 1}")
    url_state.publish(PARAMS)  # before the figure: a failure below keeps the link
    live.note_lesson(lesson_id=st.session_state[LESSON], step=index)
    follow.lead("lessons")  # a teacher's class moves now, not after the figure below
    render_step(lesson, index, show_notes=show_notes)
    _downloads(lesson, notes=show_notes)
