"""A lesson's question step on the page: the question, the answer widget, and what is shown after.

Alone, a reader answers and then reveals the engines' answer with one click. In a live class
(:mod:`ui.lessons.live`) a student's answer goes to the class and nobody sees the right answer
until the teacher reveals it; the teacher sees how many answered and how the answers spread. The
right answer is always the engines' (:func:`tokenizer_core.lessons.questions.answer_key`).
Everything a student or lesson wrote is shown as text.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Optional

import pandas as pd
import streamlit as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.lessons.questions import (
    Key,
    Question,
    QuestionError,
    answer_key,
    canonical_answer,
    distance,
    is_right,
    shown_answer,
    warm_keys,
)
from ui.lessons import PREFIX
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import chips_html, display_text

_REVEALED = PREFIX + "revealed"  # steps (lesson id, index) a reader alone has revealed
_MINE = PREFIX + "answered"  # (lesson id, index) -> this reader's canonical answer, alone

# Module state, shared by every session: the question sets (content, never a user's anything) whose
# answer keys this server has started to work out, so a lesson is warmed once, not once per student.
_WARMED: dict[tuple[Question, ...], None] = {}
_WARMED_LOCK = threading.Lock()


def warm(questions: Sequence[Question]) -> bool:
    """Start working out the answer keys of an open lesson's ``questions`` in the background, once
    per server: a class reaching a question step then shows it at once instead of loading the
    tokenizers it names. Returns whether this call started the work."""
    todo = tuple(questions)
    with _WARMED_LOCK:
        if not todo or todo in _WARMED:
            return False
        if len(_WARMED) >= 256:  # uploaded lessons are many: forget, at worst warm one again
            _WARMED.clear()
        _WARMED[todo] = None
    warm_keys(todo)
    return True


def key_of(q: Question) -> Optional[Key]:
    """The engines' answer, or None (said on the page) when it cannot be computed."""
    try:
        with st.spinner("Working out the answer with the engines…"):
            return answer_key(q)
    except TokenizerError as err:
        st.error(escape_markdown(f"This question cannot be checked: {err}"))
        return None


def answer_widget(q: Question, key: Key, *, widget: str) -> Optional[str]:
    """The input for ``q`` and, once sent, its canonical answer (None until then or when refused)."""
    st.markdown(f"**{escape_markdown(q.asked)}**")
    if q.kind in ("count", "split", "choice") and q.text:
        st.code(q.text, language=None)
    if q.kind == "choice":
        render_html(chips_html([(None, t) for t in key.tokens], scheme="byte-level" if _bytes(key.tokens) else "plain"))
    with st.form(widget, border=False, enter_to_submit=True):
        if q.kind == "count":
            raw = st.number_input("Your count", min_value=0, max_value=100_000, step=1, value=None, key=widget + "_in")
        elif q.kind == "split":
            gaps = list(range(1, len(q.text)))
            raw = st.pills("Tap the boundaries", gaps, selection_mode="multi", key=widget + "_in",
                           format_func=lambda i: f"{display_text(q.text[i - 1])}|{display_text(q.text[i])}")
        elif q.kind in ("choice", "next_merge"):
            raw = st.radio("Your answer", list(key.choices), index=None, key=widget + "_in")
        else:
            raw = st.text_area("Your answer", max_chars=300, key=widget + "_in")
        sent = st.form_submit_button("Send", type="primary", icon=":material/send:")
    if not sent:
        return None
    try:
        return canonical_answer(q, raw if raw is not None else None)
    except QuestionError as err:
        st.warning(escape_markdown(str(err).capitalize() + "."))
        return None


def _bytes(tokens: Sequence[str]) -> bool:
    return any("Ġ" in t or "Ċ" in t for t in tokens)


def render_reveal(q: Question, key: Key, *, mine: Optional[str], tally: Sequence[tuple[str, int]] = ()) -> None:
    """The engines' answer and why, the reader's own verdict, and beside it the most common mistake."""
    if q.kind == "text":
        st.info("Free answers: there is no single right one.", icon=":material/forum:")
    else:
        st.success(f"The engines' answer: **{escape_markdown(key.shown)}**", icon=":material/check_circle:")
        st.caption(escape_markdown(key.why))
    if mine is not None and q.kind != "text":
        right = is_right(q, key, mine)
        far = distance(q, key, mine)
        verdict = "right" if right else f"not quite ({far:,} off)" if far is not None else "not right"
        st.markdown(escape_markdown(f"Your answer, {shown_answer(q, mine)}: {verdict}."))
    wrong = [(a, n) for a, n in tally if is_right(q, key, a) is False]
    if wrong:
        a, n = wrong[0]
        st.warning(escape_markdown(f"The most common mistake ({n} of the class): {shown_answer(q, a)}"),
                   icon=":material/psychology_alt:")


def render_room(q: Question, key: Key, tally: Sequence[tuple[str, int]], *, students: int) -> None:
    """The teacher's view of the class's answers: how many answered, and how the answers spread."""
    answered = sum(n for _, n in tally)
    st.metric("Answered", f"{answered} of {students}")
    if not tally:
        return
    if q.kind == "split":  # how many cut at each gap, the engine's cuts marked
        frame = boundary_frame(q, key, tally)
        st.bar_chart(frame, x="gap", y="students", color="tokenizer cuts here", height=220, sort=False)
    elif q.kind == "count":  # the histogram of counts, in order of the count
        frame = pd.DataFrame([{"count": int(a), "students": n} for a, n in tally]).sort_values("count")
        st.bar_chart(frame, x="count", y="students", height=220)
    rows = [{"answer": shown_answer(q, a), "students": n,
             "right": {True: "right", False: "wrong", None: "—"}[is_right(q, key, a)]} for a, n in tally[:12]]
    st.bar_chart(pd.DataFrame(rows), x="answer", y="students", color="right", horizontal=True,
                 height=min(60 + 28 * len(rows), 400), sort="-students")


def boundary_frame(q: Question, key: Key, tally: Sequence[tuple[str, int]]) -> pd.DataFrame:
    """For a split question: each gap of the text, how many students cut there, and whether the
    tokenizer does.

    >>> q = Question(kind="split", prompt="", text="abc", tokenizer="t")
    >>> frame = boundary_frame(q, Key(right="2", shown="ab|c", why=""), [("1,2", 3), ("2", 1), ("", 2)])
    >>> frame["students"].tolist(), frame["tokenizer cuts here"].tolist()
    ([3, 4], ['no', 'yes'])
    """
    right = {int(c) for c in key.right.split(",") if c}
    counts = dict.fromkeys(range(1, len(q.text)), 0)
    for answer, n in tally:
        for cut in (int(c) for c in answer.split(",") if c):
            counts[cut] = counts.get(cut, 0) + n
    return pd.DataFrame({
        "gap": [f"{i:02d} {display_text(q.text[i - 1])}|{display_text(q.text[i])}" for i in counts],
        "students": list(counts.values()),
        "tokenizer cuts here": ["yes" if i in right else "no" for i in counts],
    })


def render_alone(lesson_id: str, index: int, q: Question) -> bool:
    """A question for a reader alone: answer, then reveal; returns whether the answer is shown."""
    key = key_of(q)
    if key is None:
        return True
    spot = (lesson_id, index)
    mine = st.session_state.setdefault(_MINE, {})
    sent = answer_widget(q, key, widget=f"{PREFIX}q_{index}")
    if sent is not None:
        mine[spot] = sent
    revealed = st.session_state.setdefault(_REVEALED, set())
    if spot not in revealed:
        if st.button("Show the answer", key=f"{PREFIX}reveal_{index}", icon=":material/visibility:"):
            revealed.add(spot)
            st.rerun()
        return False
    render_reveal(q, key, mine=mine.get(spot))
    return True
