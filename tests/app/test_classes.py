"""Live classes in the store (SQLite and PostgreSQL): codes and secrets, following by version,
answers kept once per student and step, reveals closing answers, limits, expiry and the CSV."""

from __future__ import annotations

import csv
import io
import threading

import pytest
import sqlalchemy as sa

from ui.store.classes import ALPHABET, CODE_LENGTH, ClassError, ClassLimits, ClassRoom, clean_code

QUICK = ClassLimits(answer_gap=0.0)  # answers as fast as a test sends them




@pytest.fixture(params=["sqlite", "postgresql"])
def open_room(request, tmp_path):
    """A function opening a class room on either database, with the given limits."""
    if request.param == "sqlite":
        url = str(tmp_path / "classes.sqlite3")
    else:
        url = request.getfixturevalue("postgres_url")
        room = ClassRoom.open(url)
        with room.engine.begin() as conn:  # empty: the server is shared by the module
            for table in ("tp_class_answers", "tp_class_students", "tp_classes", "tp_class_starts"):
                conn.execute(sa.text(f"DELETE FROM {table}"))

    def make(limits: ClassLimits = QUICK) -> ClassRoom:
        return ClassRoom.open(url, limits=limits)
    return make


def test_a_class_has_a_readable_code_and_only_its_teacher_moves_it(open_room):
    room = open_room()
    code, secret = room.start(lesson="bpe-aaabdaaabac", title="BPE")
    assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET)
    assert secret not in code and len(secret) >= 24
    before = room.version(code)
    with pytest.raises(ClassError, match="only the teacher"):
        room.move(code, "guess", lesson="x", step=3)
    with pytest.raises(ClassError, match="only the teacher"):
        room.reveal(code, "", step=0)
    with pytest.raises(ClassError, match="only the teacher"):
        room.tally(code, secret[:-1], step=0)
    assert room.version(code) == before
    state = room.move(clean_code(code.lower()), secret, lesson="hf-course-bpe", step=2)
    assert (state.lesson, state.step, state.version) == ("hf-course-bpe", 2, before + 1)
    assert room.move(code, secret, lesson="hf-course-bpe", step=2).version == before + 1  # no move, no new version
    assert room.state(code).step == 2  # what a late joiner lands on


def test_a_poll_takes_a_fresh_enough_copy_of_the_version_and_never_a_stale_one(open_room):
    """A server's followers share one read of the class's version (``max_age``); a move through the
    same room is seen at once, one through another server's room once the copy is older than
    ``max_age``, and ``max_age`` 0 always reads the store."""
    here, there = open_room(), open_room()  # two app servers on one database
    clock = [100.0]
    here.versions.clock = lambda: clock[0]
    code, secret = there.start(lesson="l", title="t")
    v = here.version(code, max_age=0.25)
    assert v == there.version(code)
    there.move(code, secret, step=1)  # the teacher is on the other server
    assert here.version(code, max_age=0.25) == v  # the copy is 0 s old: taken
    clock[0] += 0.25
    assert here.version(code, max_age=0.25) == v  # exactly max_age old: still taken
    clock[0] += 0.01
    assert here.version(code, max_age=0.25) == v + 1  # older: read again
    there.move(code, secret, step=2)
    assert here.version(code, max_age=0.25) == v + 1 and here.version(code) == v + 2  # max_age 0: the store
    moved = here.move(code, secret, step=3)  # a move through this room is its newest copy
    assert here.version(code, max_age=60) == moved.version == v + 3
    here.reveal(code, secret, step=3)
    assert here.version(clean_code(code.lower()), max_age=60) == v + 4
    there.end(code, secret)  # the class is gone: a fresh read says so, a young copy not yet
    assert here.version(code, max_age=60) == v + 4 and here.version(code) is None


def test_answers_are_kept_once_per_student_and_step_and_counted_in_the_database(open_room):
    room = open_room()
    code, secret = room.start(lesson="l", title="t")
    students = [room.join(code, name=f"s{i}") for i in range(5)]
    for i, s in enumerate(students):
        room.answer(code, s, step=1, answer="3" if i < 3 else "4", now=10.0 + i)
    room.answer(code, students[4], step=1, answer="3", now=20.0)  # changes their mind: replaced, not added
    assert room.tally(code, secret, step=1) == [("3", 4), ("4", 1)]
    assert room.tally(code, secret, step=2) == []
    assert room.my_answer(code, students[4], step=1) == "3"
    assert room.names(code, secret) == [f"s{i}" for i in range(5)]
    with pytest.raises(ClassError, match="only the teacher"):
        room.names(code, "")
    assert room.state(code).students == 5


def test_concurrent_answers_are_neither_lost_nor_counted_twice(open_room):
    room = open_room()
    code, secret = room.start(lesson="l", title="t")
    students = [room.join(code, name=f"s{i}") for i in range(40)]
    errors = []

    def send(s: str, k: int) -> None:
        try:
            room.answer(code, s, step=0, answer=str(k % 3), now=100.0 + k)
        except Exception as err:  # noqa: BLE001 (any failure is the test's failure)
            errors.append(err)

    threads = [threading.Thread(target=send, args=(s, k)) for k, s in enumerate(students)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(room.tally(code, secret, step=0)) == [("0", 14), ("1", 13), ("2", 13)]


def test_a_reveal_closes_the_question_and_is_seen_by_version(open_room):
    room = open_room()
    code, secret = room.start(lesson="l", title="t")
    s = room.join(code, name="Ada")
    v = room.version(code)
    room.reveal(code, secret, step=1)
    assert room.version(code) == v + 1 and 1 in room.state(code).revealed
    with pytest.raises(ClassError, match="already shown"):
        room.answer(code, s, step=1, answer="x")
    room.answer(code, s, step=2, answer="y")  # other questions stay open
    room.reveal(code, secret, step=1, shown=False)
    room.answer(code, s, step=1, answer="x", now=1e12)


def test_limits_refuse_floods_outsiders_and_full_classes(open_room):
    room = open_room(ClassLimits(students=2, answer_gap=5.0, answer_chars=10))
    code, secret = room.start(lesson="l", title="t")
    a = room.join(code, name="x" * 500)
    room.join(code)
    with pytest.raises(ClassError, match="full"):
        room.join(code)
    with pytest.raises(ClassError, match="join the class"):
        room.answer(code, "not-a-student", step=0, answer="1")
    with pytest.raises(ClassError, match="at most 10"):
        room.answer(code, a, step=0, answer="1" * 11)
    room.answer(code, a, step=0, answer="1", now=100.0)
    with pytest.raises(ClassError, match="wait a moment"):
        room.answer(code, a, step=0, answer="2", now=101.0)
    room.answer(code, a, step=0, answer="2", now=106.0)
    assert room.tally(code, secret, step=0) == [("2", 1)]
    with pytest.raises(ClassError, match="no class"):
        room.join("ZZZZZZ")
    other, _ = room.start(lesson="l", title="t")
    with pytest.raises(ClassError, match="join the class"):
        room.answer(other, a, step=0, answer="1", now=200.0)  # a student of one class cannot answer in another


def test_one_person_opens_a_few_classes_an_hour_and_others_are_not_held_back(open_room):
    """A flood of classes from one address would fill the server's classes for everyone: each person
    opens at most ``starts`` per window; another person, and the same one after the window, may."""
    room = open_room(ClassLimits(starts=3, start_window=3600.0))
    for t in (0.0, 10.0, 20.0):
        room.start(lesson="l", title="t", person="address:10.0.0.7", now=1000.0 + t)
    with pytest.raises(ClassError, match=r"opened 3 classes in the last 60 minutes \(at most 3\); try again in 60 minutes"):
        room.start(lesson="l", title="t", person="address:10.0.0.7", now=1030.0)
    room.start(lesson="l", title="t", person="address:10.0.0.8", now=1030.0)  # another person
    with pytest.raises(ClassError, match="try again in 1 minute$"):
        room.start(lesson="l", title="t", person="address:10.0.0.7", now=4570.0)
    room.start(lesson="l", title="t", person="address:10.0.0.7", now=4601.0)  # the first start left the hour
    room.start(lesson="l", title="t", now=4601.0)  # no person (the store's own callers): no limit
    with room.engine.begin() as conn:  # the person is kept as a hash, never as the address
        people = conn.execute(sa.text("SELECT person FROM tp_class_starts")).scalars().all()
    assert people and not any("10.0.0" in p for p in people)


def test_classes_expire_and_end_with_their_answers(open_room):
    room = open_room(ClassLimits(lifetime=60.0, answer_gap=0.0))
    old, _ = room.start(lesson="l", title="t", now=0.0)
    with pytest.raises(ClassError, match="no class"):
        room.state(old)
    code, secret = room.start(lesson="l", title="t")
    s = room.join(code)
    room.answer(code, s, step=0, answer="1")
    room.end(code, secret)
    with pytest.raises(ClassError, match="no class"):
        room.version(code) or room.state(code)


def test_the_csv_has_every_answer_with_names_and_neutralizes_formulas(open_room):
    room = open_room()
    code, secret = room.start(lesson="l", title="t")
    hostile = room.join(code, name="=HYPERLINK(\"http://x\")")
    plain = room.join(code, name="<b>Bo</b>")
    room.answer(code, hostile, step=0, answer="@SUM(A1)")
    room.answer(code, plain, step=3, answer="st|raw|berry")
    rows = list(csv.reader(io.StringIO(room.answers_csv(code, secret).decode("utf-8-sig"))))
    assert rows[0] == ["step", "student", "answer", "seconds"]
    assert rows[1][:3] == ["1", "'=HYPERLINK(\"http://x\")", "'@SUM(A1)"]
    assert rows[2][:3] == ["4", "<b>Bo</b>", "st|raw|berry"]


def test_the_speaker_token_reads_the_room_but_never_moves_it(open_room):
    from ui.store.classes import speaker_token

    room = open_room()
    code, secret = room.start(lesson="l", title="t")
    s = room.join(code)
    room.answer(code, s, step=0, answer="7")
    token = speaker_token(secret)
    assert token != secret and room.tally(code, token, step=0) == [("7", 1)]
    assert room.answered(code, step=0) == 1 and room.answered(code, step=1) == 0
    for act in (lambda: room.move(code, token, lesson="x", step=1), lambda: room.reveal(code, token, step=0),
                lambda: room.answers_csv(code, token), lambda: room.end(code, token)):
        with pytest.raises(ClassError, match="only the teacher"):
            act()
    with pytest.raises(ClassError, match="only the teacher"):
        room.tally(code, speaker_token("another secret"), step=0)


def test_a_teacher_on_another_page_keeps_the_lesson_and_step(open_room):
    room = open_room()
    code, secret = room.start(lesson="strawberry", title="t")
    room.move(code, secret, lesson="strawberry", step=3, page="lessons", view={"lesson": "strawberry", "step": "4"})
    state = room.move(code, secret, page="merges", view={"corpus": "hf-course-hug-pug", "step": "2"})
    assert (state.lesson, state.step, state.page, state.view) == ("strawberry", 3, "merges",
                                                                   {"corpus": "hf-course-hug-pug", "step": "2"})
    with pytest.raises(ClassError, match="too long"):
        room.move(code, secret, page="compare", view={"text": "x" * 5000})
