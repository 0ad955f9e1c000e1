"""Where the page's lessons come from: the built-in files, and lessons uploaded by a teacher (kept
in the session and in the workspace store, so ``?lesson=<link id>`` survives reloads and restarts).

An uploaded lesson is stored like a corpus: its text under its content digest, reached through
the store's random link id (never the digest, so nobody fetches a lesson by guessing it). Parsed
lessons are cached server-wide by the digest of their text (:data:`ui.cache.LESSONS`).
"""

from __future__ import annotations

import os
from typing import Optional

import streamlit as st

from tokenizer_core.lessons import BUILTIN_DIR, BUILTIN_IDS, Lesson, LessonError, load_lesson
from ui import cache
from ui.lessons import PREFIX, links
from ui.store import workspace
from ui.widgets.text import escape_markdown

KIND = "lesson"  # the store's kind for lesson files
UPLOADED = PREFIX + "uploaded"  # lesson key -> Lesson, this session's uploads (and lessons opened by link)
_OWN = "own-"  # the key of an upload the store could not keep (this session only)


def parse(text: str) -> Lesson:
    """A lesson file's text, parsed and checked (links included); :class:`LessonError` otherwise.
    Cached by the digest of the text: equal files are one lesson for every user."""
    def make() -> Lesson:
        lesson = load_lesson(text)
        problems = links.lesson_problems(lesson)
        if problems:
            raise LessonError("; ".join(problems))
        return lesson

    return cache.LESSONS.get_or_make((cache.digest_text(text),), make)


def _stamps() -> tuple[tuple[int, int], ...]:
    stats = (os.stat(BUILTIN_DIR / f"{lesson_id}.yaml") for lesson_id in BUILTIN_IDS)
    return tuple((s.st_size, s.st_mtime_ns) for s in stats)


def builtin() -> dict[str, Lesson]:
    """The built-in lessons by id, in teaching order (a fresh dict each call). Read once for the
    server (a class of forty reruns the Lessons page at once, and reading and digesting the eleven
    files was 6 % of a server's time during a follow), again when a file changes."""
    def make() -> dict[str, Lesson]:
        return {lesson_id: parse((BUILTIN_DIR / f"{lesson_id}.yaml").read_text(encoding="utf-8"))
                for lesson_id in BUILTIN_IDS}

    return dict(cache.BUILTIN_LESSONS.get_or_make((str(BUILTIN_DIR), _stamps()), make))


def uploaded() -> dict[str, Lesson]:
    return st.session_state.setdefault(UPLOADED, {})


def available() -> dict[str, Lesson]:
    """Every lesson this session can open, by the key its link uses."""
    return {**builtin(), **uploaded()}


def decode(data: bytes) -> str:
    """A lesson file's bytes as text (UTF-8, a byte-order mark allowed)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise LessonError(f"the file is not UTF-8 text (byte {err.start}); save it as UTF-8") from None


def add_upload(data: bytes) -> str:
    """Check an uploaded lesson file, keep it (session and store) and return its key."""
    text = decode(data)
    lesson = parse(text)
    if lesson.id in BUILTIN_IDS:
        raise LessonError(f"line 1, field id: {lesson.id!r} is a built-in lesson's id; give yours another id")
    digest = "lesson-" + cache.digest_text(text)
    link = workspace.save(KIND, digest, lambda: text.encode("utf-8"), meta={"id": lesson.id, "title": lesson.title[:120]},
                          what="a link to this lesson")
    key = link if link is not None else _OWN + digest[7:23]
    uploaded()[key] = lesson
    return key


def restore(raw: str) -> Optional[str]:
    """The key of the lesson ``?lesson=raw`` names (a built-in id, this session's upload, or a link to
    the store), or None after saying why not."""
    if raw in available():
        return raw
    if raw.startswith(_OWN) or not 8 <= len(raw) <= 40:
        st.warning(escape_markdown(f"There is no lesson {raw[:40]!r} here (a link to an uploaded lesson works only once the "
                   "server has saved it). Showing the first lesson instead."), icon=":material/link_off:")
        return None
    stored = workspace.load(raw)
    if stored is None:
        return None
    if stored.kind != KIND:
        st.warning("This link names something that is not a lesson.", icon=":material/link_off:")
        return None
    try:
        lesson = parse(decode(stored.payload))
    except LessonError as err:
        st.error(escape_markdown(f"The saved lesson cannot be used: {err}"))
        return None
    uploaded()[raw] = lesson
    return raw


def in_use() -> list[str]:
    """Store ids of the lessons this session holds (kept from expiry while it is open)."""
    return [k for k in uploaded() if not k.startswith(_OWN)]
