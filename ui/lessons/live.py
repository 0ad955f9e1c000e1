"""A live class on the Lessons page: the teacher starts it, students join with its code, every
student's screen follows the teacher's step, answers go to the class, the teacher sees the room.

The class lives in the workspace store (:mod:`ui.store.classes`), so students on other app servers
sharing a PostgreSQL store follow too. The teacher's secret stays in the teacher's session state
(never in a link); a student holds only an id the store handed out. A student's page polls the
class's version once a second in a small fragment and reruns the page only when the teacher moved.

Module state: ``_ROOMS`` maps the store's database URL to its :class:`ClassRoom` (no user data).
"""

from __future__ import annotations

import io
import threading
from typing import Any, Optional

import streamlit as st

from tokenizer_core.lessons.questions import Question
from ui.lessons import PREFIX, ask
from ui.store import workspace
from ui.store.backend import StoreError
from ui.store.classes import ClassError, ClassRoom, ClassState, clean_code
from ui.widgets.text import escape_markdown

ROLE = PREFIX + "class_role"  # "teacher" or "student"
CODE = PREFIX + "class_code"
SECRET = PREFIX + "class_secret"  # the teacher's, only in the teacher's session
STUDENT = PREFIX + "class_student"
FOLLOW = PREFIX + "class_follow"
SEEN = PREFIX + "class_seen"  # the class version this student's page last showed
JOIN_PARAM = "class"  # /lessons?class=CODE: the join link
POLL_SECONDS = 1.0

_LOCK = threading.Lock()
_ROOMS: dict[str, ClassRoom] = {}


def room() -> Optional[ClassRoom]:
    """The server's class room (on the workspace store's database), or None when there is no store."""
    store = workspace.server_store()
    if store is None:
        return None
    url = store.engine.url.render_as_string(hide_password=True)  # the database, never a user's anything
    with _LOCK:
        found = _ROOMS.get(url)
        if found is None or found.engine is not store.engine:  # a store opened again (tests) gets its own
            found = _ROOMS[url] = ClassRoom(store.engine)
        return found


def role() -> Optional[str]:
    return st.session_state.get(ROLE)


def _forget() -> None:
    for name in (ROLE, CODE, SECRET, STUDENT, FOLLOW, SEEN):
        st.session_state.pop(name, None)


def following() -> bool:
    return role() == "student" and bool(st.session_state.get(FOLLOW, True))


# -- the panel -------------------------------------------------------------------------------------
def render_panel(*, lesson_id: str, title: str) -> None:
    """Start or join a class, or the class's controls for the teacher and the student."""
    r = room()
    if r is None:
        st.caption(escape_markdown(f"Live classes need the workspace store: {workspace.problem()}"))
        return
    try:
        if role() == "teacher":
            _teacher_panel(r)
        elif role() == "student":
            _student_panel(r)
        else:
            _start_or_join(r, lesson_id=lesson_id, title=title)
    except ClassError as err:
        st.warning(escape_markdown(str(err)), icon=":material/groups:")
        if st.button("Leave the class", key=PREFIX + "class_forget"):
            _forget()
            st.rerun()
    except StoreError as err:
        st.error(escape_markdown(str(err)))


def _start_or_join(r: ClassRoom, *, lesson_id: str, title: str) -> None:
    teach, join = st.columns(2, gap="large")
    with teach:
        st.markdown("**Teach this lesson live**")
        st.caption("Students join with a code; their screens follow your steps and their answers reach you.")
        if st.button("Start a class", key=PREFIX + "class_start", icon=":material/co_present:", type="primary"):
            code, secret = r.start(lesson=lesson_id, title=title)
            st.session_state.update({ROLE: "teacher", CODE: code, SECRET: secret})
            st.rerun()
    with join:
        st.markdown("**Join a class**")
        with st.form(PREFIX + "class_join_form", border=False):
            code = st.text_input("Class code", value=clean_code(st.query_params.get(JOIN_PARAM, "")), max_chars=12,
                                 key=PREFIX + "class_join_code")
            name = st.text_input("Your name (optional)", max_chars=40, key=PREFIX + "class_join_name")
            if st.form_submit_button("Join", icon=":material/login:"):
                student = r.join(code, name=name)
                st.session_state.update({ROLE: "student", CODE: clean_code(code), STUDENT: student, FOLLOW: True,
                                         SEEN: 0})
                st.rerun()


def join_url(code: str) -> str:
    """The link students open: this server's Lessons page with the class code."""
    base = str(st.context.url or "").split("?")[0].rstrip("/")
    base = base.rsplit("/lessons", 1)[0] if "/lessons" in base else base
    return f"{base}/lessons?{JOIN_PARAM}={code}"


def qr_png(text: str) -> bytes:
    """A QR code of ``text`` as a PNG (segno: pure Python, no network)."""
    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=6, border=2)
    return out.getvalue()


def _teacher_panel(r: ClassRoom) -> None:
    state = r.state(st.session_state[CODE])
    left, right = st.columns([3, 1])
    with left:
        st.markdown(f"### Class code: `{state.code}`")
        url = join_url(state.code)
        st.code(url, language=None)
        st.caption(f"{state.students} student{'s' if state.students != 1 else ''} joined. Your screen leads: "
                   "every step you show is shown to them.")
        st.download_button("Answers (CSV)", data=lambda: r.answers_csv(state.code, st.session_state[SECRET]),
                           file_name=f"class-{state.code}.csv", mime="text/csv", on_click="ignore",
                           key=PREFIX + "class_csv", icon=":material/download:")
        if st.button("End the class", key=PREFIX + "class_end", icon=":material/logout:"):
            r.end(state.code, st.session_state[SECRET])
            _forget()
            st.rerun()
    with right:
        st.image(qr_png(url), caption="Scan to join", width=160)


def _student_panel(r: ClassRoom) -> None:
    state = r.state(st.session_state[CODE])
    if following():
        st.info(escape_markdown(f"In class {state.code} · “{state.title}”: your screen follows the teacher."),
                icon=":material/groups:")
        if st.button("Explore on my own", key=PREFIX + "class_leave", icon=":material/explore:"):
            st.session_state[FOLLOW] = False
            st.rerun()
    else:
        st.info(escape_markdown(f"In class {state.code}, exploring on your own."), icon=":material/explore:")
        if st.button("Back to the class", key=PREFIX + "class_back", icon=":material/groups:", type="primary"):
            st.session_state[FOLLOW] = True
            st.session_state[SEEN] = 0  # take the teacher's place at once
            st.rerun()


# -- following ---------------------------------------------------------------------------------------
def follow(*, lesson_key: str, step_key: str) -> None:
    """Before the page draws: a following student's page takes the class's lesson and step when the
    class changed since this page last showed it (a late joiner lands on the current step)."""
    r = room()
    if r is None or not following():
        return
    try:
        state = r.state(st.session_state[CODE])
    except (ClassError, StoreError):
        return  # the panel says what is wrong
    if state.version != st.session_state.get(SEEN):
        st.session_state[SEEN] = state.version
        st.session_state[lesson_key] = state.lesson
        st.session_state[step_key] = state.step


def lead(*, lesson_id: str, step: int) -> None:
    """The teacher's page: where it is goes to the class (a new version only when it moved)."""
    r = room()
    if r is None or role() != "teacher":
        return
    try:
        r.move(st.session_state[CODE], st.session_state[SECRET], lesson=lesson_id, step=step)
    except (ClassError, StoreError):
        pass  # the panel says what is wrong


def poll() -> None:
    """A following student's page: a fragment that checks the class's version every second and
    reruns the page when the teacher moved or revealed."""
    if not following():
        return

    @st.fragment(run_every=POLL_SECONDS)
    def _poll() -> None:
        r = room()
        if r is None:
            return
        try:
            version = r.version(st.session_state[CODE])
        except StoreError:
            return
        if version is not None and version != st.session_state.get(SEEN):
            st.rerun(scope="app")

    _poll()


# -- questions -----------------------------------------------------------------------------------------
def render_question(lesson_id: str, index: int, q: Question) -> bool:
    """The step's question, alone or in the class; returns whether its answer may be shown."""
    r = room()
    if r is None or role() is None or (role() == "student" and not following()):
        return ask.render_alone(lesson_id, index, q)
    key = ask.key_of(q)
    if key is None:
        return True
    code = st.session_state[CODE]
    state = r.state(code)
    shown = index in state.revealed
    if role() == "teacher":
        return _teacher_question(r, state, index, q, key, shown)
    student = st.session_state[STUDENT]
    mine = r.my_answer(code, student, step=index)
    if not shown:
        sent = ask.answer_widget(q, key, widget=f"{PREFIX}cq_{index}")
        if sent is not None:
            try:
                r.answer(code, student, step=index, answer=sent)
                mine = sent
            except ClassError as err:
                st.warning(escape_markdown(str(err)))
        if mine is not None:
            st.caption(escape_markdown(f"Sent: {ask.shown_answer(q, mine)}. You may change it until the teacher "
                                       "shows the answer."))
        return False
    ask.render_reveal(q, key, mine=mine)
    return True


def _teacher_question(r: ClassRoom, state: ClassState, index: int, q: Question, key: Any, shown: bool) -> bool:
    secret = st.session_state[SECRET]
    st.markdown(f"**{escape_markdown(q.asked)}**")
    if q.text:
        st.code(q.text, language=None)
    tally = r.tally(state.code, secret, step=index)
    ask.render_room(q, key, tally, students=state.students)
    label = "Hide the answer" if shown else "Show the answer to the class"
    if st.button(label, key=f"{PREFIX}class_reveal_{index}", icon=":material/visibility:", type="primary"):
        r.reveal(state.code, secret, step=index, shown=not shown)
        st.rerun()
    if st.button("Refresh the answers", key=f"{PREFIX}class_refresh_{index}", icon=":material/refresh:"):
        st.rerun()
    if shown:
        ask.render_reveal(q, key, mine=None, tally=tally)
    return shown
