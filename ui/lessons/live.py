"""A live class on the Lessons page: the teacher starts it, students join with its code, every
student's screen follows the teacher's step, answers go to the class, the teacher sees the room.

The class lives in the workspace store (:mod:`ui.store.classes`), so students on other app servers
sharing a PostgreSQL store follow too. The teacher's secret stays in the teacher's session state
(never in a link); a student holds only an id the store handed out. The server's class watcher reruns
a student's page when the teacher moved (:mod:`ui.lessons.push`).

Module state: ``_ROOMS`` maps the store's database URL to its :class:`ClassRoom` (no user data).
"""

from __future__ import annotations

import io
import threading
from typing import Any, Optional

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from tokenizer_core.lessons.questions import Question
from ui import address
from ui.lessons import PREFIX, ask
from ui.store import workspace
from ui.store.backend import StoreError
from ui.store.classes import ClassError, ClassRoom, ClassState, clean_code, speaker_token
from ui.widgets.text import escape_markdown

ROLE = PREFIX + "class_role"  # "teacher", "student" or "speaker" (the teacher's second window)
CODE = PREFIX + "class_code"
SECRET = PREFIX + "class_secret"  # the teacher's, only in the teacher's session
TOKEN = PREFIX + "class_speaker"  # the speaker screen's token (reads the class, never moves it)
STUDENT = PREFIX + "class_student"
FOLLOW = PREFIX + "class_follow"
SEEN = PREFIX + "class_seen"  # the class version this student's page last showed
LEAD = PREFIX + "class_lead"  # the lesson and step the teacher's Lessons page shows (sent after the run)
_MINE = PREFIX + "class_mine"  # (code, student, step) -> this session's answer as sent or first read
JOIN_PARAM = "class"  # /lessons?class=CODE: the join link
SPEAKER_PARAM = "speaker"  # /lessons?class=CODE&speaker=TOKEN: the speaker screen
POLL_SECONDS = 1.0
ROOM_SECONDS = 2.0  # how often the teacher's and speaker's answer counts refresh

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


def person() -> str:
    """Who asks, for the per-person limits: the connection's address where the server sees one (a new
    tab is the same person), else the session (Streamlit gives no address on localhost)."""
    address_ = st.context.ip_address
    if isinstance(address_, str) and address_:
        return "address:" + address_
    ctx = get_script_run_ctx()
    return "session:" + str(ctx.session_id if ctx is not None else "")


def role() -> Optional[str]:
    return st.session_state.get(ROLE)


def _forget() -> None:
    for name in (ROLE, CODE, SECRET, TOKEN, STUDENT, FOLLOW, SEEN, LEAD, _MINE):
        st.session_state.pop(name, None)


_SNAPSHOT = "lessons_class_snapshot"  # (code, ClassState) as this run first read it


def new_run() -> None:
    """Forget the last run's view of the class (the router's first call of every full run)."""
    st.session_state.pop(_SNAPSHOT, None)


def class_state(r: ClassRoom, code: str) -> ClassState:
    """The class as this run sees it. A student's or speaker's run reads it once and every part of the
    page draws from that one snapshot (forty students following a step are forty reads, not two
    hundred, and no part of a page shows a newer step than another); a teacher's run moves the class
    as it goes, so the teacher's reads always go to the store. Fragments read the store themselves.
    """
    if role() == "teacher":
        return r.state(code)
    snap = st.session_state.get(_SNAPSHOT)
    if snap is None or snap[0] != code:
        # A copy a quarter of a second old will do (never older than the version the watcher saw):
        # the server's followers rerun for a move together, and one read answers them all.
        snap = st.session_state[_SNAPSHOT] = (code, r.state(code, max_age=POLL_SECONDS / 4))
    return snap[1]


def following() -> bool:
    """Whether this session's screen goes where the class is (a student not exploring, a speaker screen)."""
    return role() == "speaker" or role() == "student" and bool(st.session_state.get(FOLLOW, True))


def open_speaker_link() -> None:
    """``?class=CODE&speaker=TOKEN`` opens this session as the class's speaker screen."""
    token, code = address.raw(SPEAKER_PARAM), address.raw(JOIN_PARAM)
    if token and code and role() is None:
        st.session_state.update({ROLE: "speaker", CODE: clean_code(code), TOKEN: str(token)[:64], SEEN: 0})


def note_lesson(*, lesson_id: str, step: int) -> None:
    """The teacher's Lessons page says where it is; the router sends it with the page's view."""
    if role() == "teacher":
        st.session_state[LEAD] = (lesson_id, step)


# -- the panel -------------------------------------------------------------------------------------
def render_panel(*, lesson_id: str, title: str, next_title: str = "") -> None:
    """Start or join a class, or the class's controls for the teacher and the student."""
    r = room()
    if r is None:
        st.caption(escape_markdown(f"Live classes need the workspace store: {workspace.problem()}"))
        return
    try:
        if role() == "teacher":
            _teacher_panel(r)
        elif role() == "speaker":
            _speaker_panel(r, next_title=next_title)
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


def _start_or_join(r: ClassRoom, *, lesson_id: str, title: str, prefix: str = PREFIX) -> None:
    narrow = prefix != PREFIX  # the sidebar's popover: one column
    teach, join = (st.container(), st.container()) if narrow else st.columns(2, gap="large")
    with teach:
        st.markdown("**Teach live**")
        st.caption("Students join with a code; their screens follow your pages and steps, and their answers "
                   "reach you.")
        if st.button("Start a class", key=prefix + "class_start", icon=":material/co_present:", type="primary"):
            try:
                code, secret = r.start(lesson=lesson_id, title=title, person=person())
            except ClassError as err:  # a limit: say which, and stay as you were
                st.warning(escape_markdown(str(err)), icon=":material/hourglass_top:")
            else:
                st.session_state.update({ROLE: "teacher", CODE: code, SECRET: secret})
                st.rerun()
    with join:
        st.markdown("**Join a class**")
        with st.form(prefix + "class_join_form", border=False):
            code = st.text_input("Class code", value=clean_code(address.raw(JOIN_PARAM, "") or ""), max_chars=12,
                                 key=prefix + "class_join_code")
            name = st.text_input("Your name (optional)", max_chars=40, key=prefix + "class_join_name")
            if st.form_submit_button("Join", icon=":material/login:"):
                student = r.join(code, name=name)
                st.session_state.update({ROLE: "student", CODE: clean_code(code), STUDENT: student, FOLLOW: True,
                                         SEEN: 0})
                st.rerun()


def render_sidebar_panel() -> None:
    """The class in the sidebar of every page: start or join from anywhere, and where you are."""
    r = room()
    if r is None:
        return
    st.markdown("**Live class**")
    try:
        if role() is None:
            with st.popover("Start or join a class", icon=":material/groups:", width="stretch"):
                _start_or_join(r, lesson_id=str(st.session_state.get("lessons_lesson") or "bpe-aaabdaaabac"),
                               title="A live class", prefix=PREFIX + "sb_")
            return
        state = class_state(r, st.session_state[CODE])
        who = {"teacher": "You lead", "student": "You are in", "speaker": "Speaker screen of"}[role()]
        st.caption(escape_markdown(f"{who} class {state.code} · {state.students} student"
                                   f"{'s' if state.students != 1 else ''}"))
        if role() == "student":
            _follow_switch(prefix=PREFIX + "sb_")
        st.page_link("pages/lessons.py", label="Class page", icon=":material/co_present:")
    except (ClassError, StoreError) as err:
        st.caption(escape_markdown(str(err)))


def _follow_switch(*, prefix: str) -> None:
    if following():
        if st.button("Explore on my own", key=prefix + "class_leave", icon=":material/explore:"):
            st.session_state[FOLLOW] = False
            st.rerun()
    elif st.button("Back to the class", key=prefix + "class_back", icon=":material/groups:", type="primary"):
        st.session_state[FOLLOW] = True
        st.session_state[SEEN] = 0  # take the class's place at once
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
        names = r.names(state.code, st.session_state[SECRET])
        if names:  # typed by students: text, never markup
            more = f" and {state.students - len(names)} more" if state.students > len(names) else ""
            st.caption(escape_markdown("In class: " + ", ".join(names) + more))
        st.download_button("Answers (CSV)", data=lambda: r.answers_csv(state.code, st.session_state[SECRET]),
                           file_name=f"class-{state.code}.csv", mime="text/csv", on_click="ignore",
                           key=PREFIX + "class_csv", icon=":material/download:")
        if st.button("End the class", key=PREFIX + "class_end", icon=":material/logout:"):
            r.end(state.code, st.session_state[SECRET])
            _forget()
            st.rerun()
        st.link_button("Speaker screen", url=speaker_url(state.code, st.session_state[SECRET]),
                       icon=":material/speaker_notes:",
                       help="For a second window: the notes, the next step and the answer counts, following you. "
                            "Its address can read the class's answers but never move the class.")
    with right:
        st.image(qr_png(url), caption="Scan to join", width=160)


def speaker_url(code: str, secret: str) -> str:
    return join_url(code) + f"&{SPEAKER_PARAM}={speaker_token(secret)}"


def _speaker_panel(r: ClassRoom, *, next_title: str) -> None:
    state = class_state(r, st.session_state[CODE])
    st.info(escape_markdown(f"Speaker screen of class {state.code} · {state.students} students: it follows the "
                            "teacher; the notes are always shown here."), icon=":material/speaker_notes:")
    st.markdown(escape_markdown(f"Next: {next_title}" if next_title else "This is the lesson's last step."))


def _student_panel(r: ClassRoom) -> None:
    state = class_state(r, st.session_state[CODE])
    if following():
        st.info(escape_markdown(f"In class {state.code} · “{state.title}”: your screen follows the teacher."),
                icon=":material/groups:")
    else:
        st.info(escape_markdown(f"In class {state.code}, exploring on your own."), icon=":material/explore:")
    _follow_switch(prefix=PREFIX)


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
    state = class_state(r, code)
    shown = index in state.revealed
    if role() == "teacher":
        return _teacher_question(r, state, index, q, key, shown)
    if role() == "speaker":
        _live_room(r, state, index, q, key, st.session_state[TOKEN])
        if shown:
            ask.render_reveal(q, key, mine=None, tally=r.tally(state.code, st.session_state[TOKEN], step=index))
        return shown
    student = st.session_state[STUDENT]
    # Only this session answers for its student id: the store is read once a step, and every answer
    # sent from here is noted (a class of forty reruns at once when the teacher moves).
    mine_by_step = st.session_state.setdefault(_MINE, {})
    if (code, student, index) not in mine_by_step:
        mine_by_step[(code, student, index)] = r.my_answer(code, student, step=index)
    mine = mine_by_step[(code, student, index)]
    if not shown:
        sent = ask.answer_widget(q, key, widget=f"{PREFIX}cq_{index}")
        if sent is not None:
            try:
                r.answer(code, student, step=index, answer=sent)
                mine = mine_by_step[(code, student, index)] = sent
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
    _live_room(r, state, index, q, key, secret)
    label = "Hide the answer" if shown else "Show the answer to the class"
    if st.button(label, key=f"{PREFIX}class_reveal_{index}", icon=":material/visibility:", type="primary"):
        r.reveal(state.code, secret, step=index, shown=not shown)
        st.rerun()
    if shown:
        ask.render_reveal(q, key, mine=None, tally=r.tally(state.code, secret, step=index))
    return shown


def _live_room(r: ClassRoom, state: ClassState, index: int, q: Question, key: Any, token: str) -> None:
    """The answer counts, redrawn every ROOM_SECONDS on their own (a fragment: the page stays put)."""

    @st.fragment(run_every=ROOM_SECONDS)
    def _room() -> None:
        try:
            now = r.state(state.code)
            ask.render_room(q, key, r.tally(state.code, token, step=index), students=now.students)
        except StoreError as err:
            st.caption(escape_markdown(str(err)))

    _room()
