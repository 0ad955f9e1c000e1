"""Live classes in the workspace store: the teacher's position, the students, their answers.

No Streamlit here (tested directly, on SQLite and PostgreSQL). A class is a row: its short **code**
(what students type or scan), the hash of the teacher's **secret** (held only by the teacher's
session, never in a link), and where the teacher is (lesson, step, page, view) with a **version**
that grows at every move, so a student's poll compares one number. Answers are one row per
(class, step, student): answering again replaces the answer, so nothing is counted twice, and the
tally is a ``GROUP BY`` in the database, never every answer loaded into every session. Limits keep a
shared server alive: students per class, name and answer sizes, one answer per student per
``answer_gap`` seconds, classes per server and classes one person opens per hour; a class idle for ``lifetime`` seconds expires.

>>> room = ClassRoom.open("sqlite://")
>>> code, secret = room.start(lesson="bpe-aaabdaaabac", title="BPE by hand")
>>> ada = room.join(code, name="Ada")
>>> room.move(code, secret, lesson="bpe-aaabdaaabac", step=2).step
2
>>> room.answer(code, ada, step=2, answer="4", now=100.0); room.tally(code, secret, step=2)
[('4', 1)]
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Optional

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ui.store.backend import StoreError, StoreUnavailable, describe_error, engine_url
from ui.store.class_copies import ClassCopies

_META = sa.MetaData()
_CLASSES = sa.Table(
    "tp_classes", _META,
    sa.Column("code", sa.String(12), primary_key=True),
    sa.Column("secret_hash", sa.String(64), nullable=False),
    sa.Column("speaker_hash", sa.String(64), nullable=False),  # the speaker screen's token: reads, never moves
    sa.Column("title", sa.String(200), nullable=False),
    sa.Column("lesson", sa.String(80), nullable=False),
    sa.Column("step", sa.Integer, nullable=False),
    sa.Column("page", sa.String(40), nullable=False),
    sa.Column("view", sa.Text, nullable=False),  # JSON: the page's address parameters
    sa.Column("revealed", sa.Text, nullable=False),  # JSON list of revealed step numbers
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("updated", sa.Float, nullable=False, index=True),
)
_STUDENTS = sa.Table(
    "tp_class_students", _META,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("code", sa.String(12), nullable=False, index=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("joined", sa.Float, nullable=False),
    sa.Column("last_answer", sa.Float, nullable=False),
)
_ANSWERS = sa.Table(
    "tp_class_answers", _META,
    sa.Column("code", sa.String(12), primary_key=True),
    sa.Column("step", sa.Integer, primary_key=True),
    sa.Column("student", sa.String(40), primary_key=True),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
_STARTS = sa.Table(  # who opened a class when: one person cannot fill the server's classes
    "tp_class_starts", _META,
    sa.Column("person", sa.String(64), nullable=False, index=True),  # a hash: no address is stored
    sa.Column("at", sa.Float, nullable=False, index=True),
)
#: Class codes: no 0/O, 1/I/L, so a code read off a projector is typed right.
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


class ClassError(StoreError):
    """A class action refused (unknown code, wrong secret, a limit); the message is for people."""


@dataclass(frozen=True)
class ClassLimits:
    """What one class, and the server, may hold."""

    students: int = 200
    name_chars: int = 40
    answer_chars: int = 400
    answer_gap: float = 0.5  # seconds between two answers of one student
    classes: int = 500  # open classes on the server
    starts: int = 10  # classes one person may open per ``start_window`` seconds
    start_window: float = 3600.0
    lifetime: float = 12 * 3600.0  # seconds a class lives after its last move


@dataclass(frozen=True)
class ClassState:
    """Where the teacher is: what a student's screen follows."""

    code: str
    title: str
    lesson: str
    step: int
    page: str
    view: dict[str, Any]
    revealed: frozenset[int]
    version: int
    students: int


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def speaker_token(secret: str) -> str:
    """The speaker screen's token, derived from the teacher's secret: it reads the class (notes,
    answers) but cannot move it or reveal, so a second window may hold it in its address.

    >>> speaker_token("s") == speaker_token("s") != speaker_token("t")
    True
    """
    return hashlib.sha256(("speaker:" + secret).encode("utf-8")).hexdigest()[:32]


def clean_code(raw: str) -> str:
    """A typed code as stored: upper case, spaces and dashes dropped.

    >>> clean_code(" ab-c 23d ")
    'ABC23D'
    """
    return "".join(ch for ch in str(raw).upper() if ch.isalnum())[:CODE_LENGTH * 2]


class ClassRoom:
    """The classes of one database (thread-safe: one connection per operation)."""

    def __init__(self, engine: Engine, *, limits: ClassLimits = ClassLimits()) -> None:
        self.engine = engine
        self.limits = limits
        # Each class as last read or written here: a server's followers all read the same class.
        self.copies = ClassCopies()
        self.versions = self.copies.versions
        try:
            _META.create_all(engine, checkfirst=True)
        except SQLAlchemyError as err:
            raise StoreUnavailable(f"the class tables cannot be made ({describe_error(err)})") from err

    @classmethod
    def open(cls, url: str, *, limits: ClassLimits = ClassLimits()) -> "ClassRoom":
        """A class room on its own engine (tests; the app shares the workspace store's engine)."""
        full = engine_url(url)
        args = {"check_same_thread": False, "timeout": 15} if full.startswith("sqlite") else {}
        return cls(sa.create_engine(full, connect_args=args), limits=limits)

    def _run(self, what: str, work: Any) -> Any:
        try:
            with self.engine.begin() as conn:
                return work(conn)
        except SQLAlchemyError as err:
            raise StoreUnavailable(f"the class store cannot {what} ({describe_error(err)})") from err

    # -- the teacher ------------------------------------------------------------------------------
    def start(self, *, lesson: str, title: str, page: str = "lessons", person: str = "",
              now: Optional[float] = None) -> tuple[str, str]:
        """Open a class; returns its code and the teacher's secret (keep it in the teacher's session only).

        ``person``: who asks (the app passes the connection's address, or the session where there is
        none); one person opens at most ``limits.starts`` classes per ``limits.start_window`` seconds.
        """
        now = time.time() if now is None else now
        secret = secrets.token_urlsafe(24)

        def work(conn: sa.Connection) -> str:
            conn.execute(_CLASSES.delete().where(_CLASSES.c.updated < now - self.limits.lifetime))
            if person:
                self._throttle_start(conn, _hash(person), now)
            open_now = conn.execute(sa.select(sa.func.count()).select_from(_CLASSES)).scalar() or 0
            if open_now >= self.limits.classes:
                raise ClassError(f"this server already has {open_now} open classes; try again later")
            for _ in range(8):
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
                try:
                    with conn.begin_nested():
                        conn.execute(_CLASSES.insert().values(
                            code=code, secret_hash=_hash(secret), speaker_hash=_hash(speaker_token(secret)),
                            title=title[:200], lesson=lesson[:80], step=0,
                            page=page[:40], view="{}", revealed="[]", version=1, created=now, updated=now))
                    return code
                except IntegrityError:
                    continue  # that code is taken: draw another
            raise ClassError("no free class code was found; try again")

        return self._run("open a class", work), secret

    def _throttle_start(self, conn: sa.Connection, who: str, now: float) -> None:
        window, most = self.limits.start_window, self.limits.starts
        conn.execute(_STARTS.delete().where(_STARTS.c.at < now - window))
        times = conn.execute(sa.select(_STARTS.c.at).where(_STARTS.c.person == who).order_by(_STARTS.c.at)).scalars().all()
        if len(times) >= most:
            wait = max(1, round((times[len(times) - most] + window - now) / 60))
            raise ClassError(f"you have opened {len(times)} classes in the last {window / 60:.0f} minutes (at most "
                             f"{most}); try again in {wait} minute{'s' if wait != 1 else ''}")
        conn.execute(_STARTS.insert().values(person=who, at=now))

    def _owned(self, conn: sa.Connection, code: str, secret: str, *, speaker: bool = False) -> Any:
        """The class row when ``secret`` is its teacher's (or, with ``speaker``, the speaker token)."""
        row = conn.execute(sa.select(_CLASSES).where(_CLASSES.c.code == clean_code(code))).first()
        if row is None:
            raise ClassError(f"there is no class {clean_code(code)!r} (it may have ended)")
        given = _hash(secret or "")
        if not (hmac.compare_digest(row.secret_hash, given) or speaker and hmac.compare_digest(row.speaker_hash, given)):
            raise ClassError("only the teacher who started this class can do that")
        return row

    def move(self, code: str, secret: str, *, lesson: Optional[str] = None, step: Optional[int] = None,
             page: str = "lessons", view: Optional[dict[str, Any]] = None, now: Optional[float] = None) -> ClassState:
        """Put the class where the teacher is (a new version when anything changed); a lesson or step
        of None keeps the class's (the teacher is on another page)."""
        view_json = json.dumps(view or {}, sort_keys=True)
        if len(view_json) > 4000:
            raise ClassError("this view's address is too long to share with the class")

        def work(conn: sa.Connection) -> ClassState:
            row = self._owned(conn, code, secret)
            new = (row.lesson if lesson is None else lesson[:80], row.step if step is None else int(step),
                   page[:40], view_json)
            if (row.lesson, row.step, row.page, row.view) != new:
                conn.execute(_CLASSES.update().where(_CLASSES.c.code == row.code).values(
                    lesson=new[0], step=new[1], page=new[2], view=new[3], version=row.version + 1,
                    updated=time.time() if now is None else now))
            return self._state(conn, row.code)

        return self.copies.noted(self._run("move the class", work))

    def reveal(self, code: str, secret: str, *, step: int, shown: bool = True) -> ClassState:
        """Show (or hide again) the answer of ``step`` to the class."""

        def work(conn: sa.Connection) -> ClassState:
            row = self._owned(conn, code, secret)
            revealed = set(json.loads(row.revealed))
            revealed = revealed | {int(step)} if shown else revealed - {int(step)}
            conn.execute(_CLASSES.update().where(_CLASSES.c.code == row.code).values(
                revealed=json.dumps(sorted(revealed)), version=row.version + 1, updated=time.time()))
            return self._state(conn, row.code)

        return self.copies.noted(self._run("reveal the answer", work))

    def tally(self, code: str, secret: str, *, step: int) -> list[tuple[str, int]]:
        """Each answer given at ``step`` with how many gave it, most common first (computed in the
        database); the teacher's secret or the speaker token."""

        def work(conn: sa.Connection) -> list[tuple[str, int]]:
            row = self._owned(conn, code, secret, speaker=True)
            n = sa.func.count().label("n")
            rows = conn.execute(sa.select(_ANSWERS.c.answer, n).where(
                _ANSWERS.c.code == row.code, _ANSWERS.c.step == int(step)).group_by(_ANSWERS.c.answer)
                .order_by(n.desc(), _ANSWERS.c.answer)).all()
            return [(a, int(c)) for a, c in rows]

        return self._run("count the answers", work)

    def names(self, code: str, secret: str, *, limit: int = 60) -> list[str]:
        """The students' names in the order they joined (the teacher's, up to ``limit``)."""

        def work(conn: sa.Connection) -> list[str]:
            row = self._owned(conn, code, secret)
            return list(conn.execute(sa.select(_STUDENTS.c.name).where(_STUDENTS.c.code == row.code)
                                     .order_by(_STUDENTS.c.joined).limit(limit)).scalars())

        return self._run("read the students", work)

    def answers_csv(self, code: str, secret: str) -> bytes:
        """Every answer of the class as CSV (step, student's name, answer, seconds since the class started)."""

        def work(conn: sa.Connection) -> bytes:
            row = self._owned(conn, code, secret)
            rows = conn.execute(sa.select(_ANSWERS.c.step, _STUDENTS.c.name, _ANSWERS.c.answer, _ANSWERS.c.at)
                                .join(_STUDENTS, _STUDENTS.c.id == _ANSWERS.c.student)
                                .where(_ANSWERS.c.code == row.code)
                                .order_by(_ANSWERS.c.step, _ANSWERS.c.at)).all()
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(["step", "student", "answer", "seconds"])
            for step, name, answer, at in rows:
                writer.writerow([step + 1, _csv_safe(name), _csv_safe(answer), f"{at - row.created:.1f}"])
            return out.getvalue().encode("utf-8-sig")

        return self._run("export the answers", work)

    def end(self, code: str, secret: str) -> None:
        """Close the class: its answers and students go with it."""

        def work(conn: sa.Connection) -> None:
            row = self._owned(conn, code, secret)
            for table in (_ANSWERS, _STUDENTS, _CLASSES):
                conn.execute(table.delete().where(table.c.code == row.code))

        self._run("end the class", work)

    # -- the students ----------------------------------------------------------------------------
    def join(self, code: str, *, name: str = "", now: Optional[float] = None) -> str:
        """A new student id in class ``code`` (the name is optional, cut to the limit)."""
        now = time.time() if now is None else now
        name = " ".join(str(name).split())[:self.limits.name_chars] or "Anonymous"

        def work(conn: sa.Connection) -> str:
            state = self._state(conn, clean_code(code))
            if state.students >= self.limits.students:
                raise ClassError(f"class {state.code} is full ({self.limits.students} students)")
            student = secrets.token_urlsafe(18)
            conn.execute(_STUDENTS.insert().values(id=student, code=state.code, name=name, joined=now, last_answer=0.0))
            return student

        return self._run("join the class", work)

    def state(self, code: str, *, max_age: float = 0.0) -> ClassState:
        """Where the class is now; :class:`ClassError` when there is no such class. ``max_age``: a state
        this room read or wrote at most that long ago, and no older than the newest version it knows,
        may be the answer (a server's followers rerun for a move together: one read, not forty)."""
        key = clean_code(code)
        return self.copies.state(key, max_age=max_age,
                                 read=lambda: self._run("read the class", lambda conn: self._state(conn, key)))

    def version(self, code: str, *, max_age: float = 0.0) -> Optional[int]:
        """The class's version alone (the cheap poll), None when the class is gone.

        ``max_age``: a version this room read or wrote at most that many seconds ago may be the answer
        (a move made through this room is seen at once): the class watcher and a page that polls
        (where the watcher cannot rerun it) share one read.
        """
        key = clean_code(code)
        query = sa.select(_CLASSES.c.version).where(_CLASSES.c.code == key)
        return self.copies.version(key, max_age=max_age,
                                   read=lambda: self._run("read the class", lambda conn: conn.execute(query).scalar()))

    def answer(self, code: str, student: str, *, step: int, answer: str, now: Optional[float] = None) -> None:
        """Keep ``student``'s answer to ``step`` (replacing their earlier one); refused once revealed,
        too soon after their last answer, or too long."""
        now = time.time() if now is None else now
        if len(answer) > self.limits.answer_chars:
            raise ClassError(f"an answer is at most {self.limits.answer_chars} characters")

        def work(conn: sa.Connection) -> None:
            state = self._state(conn, clean_code(code))
            who = conn.execute(sa.select(_STUDENTS.c.last_answer).where(
                _STUDENTS.c.id == student, _STUDENTS.c.code == state.code)).first()
            if who is None:
                raise ClassError("join the class before answering")
            if int(step) in state.revealed:
                raise ClassError("the answer is already shown; answers are closed for this question")
            if now - who.last_answer < self.limits.answer_gap:
                raise ClassError("one answer at a time: wait a moment and send it again")
            conn.execute(_STUDENTS.update().where(_STUDENTS.c.id == student).values(last_answer=now))
            key = {"code": state.code, "step": int(step), "student": student}
            done = conn.execute(_ANSWERS.update().where(*(getattr(_ANSWERS.c, k) == v for k, v in key.items()))
                                .values(answer=answer, at=now)).rowcount
            if not done:
                conn.execute(_ANSWERS.insert().values(**key, answer=answer, at=now))

        self._run("keep the answer", work)

    def answered(self, code: str, *, step: int) -> int:
        """How many students answered ``step`` (a count only: what they answered needs the teacher's secret)."""
        return int(self._run("count the answers", lambda conn: conn.execute(
            sa.select(sa.func.count()).select_from(_ANSWERS).where(
                _ANSWERS.c.code == clean_code(code), _ANSWERS.c.step == int(step))).scalar()) or 0)

    def my_answer(self, code: str, student: str, *, step: int) -> Optional[str]:
        """What ``student`` answered at ``step`` (None if nothing yet)."""
        return self._run("read the answer", lambda conn: conn.execute(sa.select(_ANSWERS.c.answer).where(
            _ANSWERS.c.code == clean_code(code), _ANSWERS.c.step == int(step), _ANSWERS.c.student == student)).scalar())

    def _state(self, conn: sa.Connection, code: str) -> ClassState:
        row = conn.execute(sa.select(_CLASSES).where(_CLASSES.c.code == code)).first()
        if row is None or row.updated < time.time() - self.limits.lifetime:
            raise ClassError(f"there is no class {code!r} (it may have ended)")
        students = conn.execute(sa.select(sa.func.count()).select_from(_STUDENTS)
                                .where(_STUDENTS.c.code == code)).scalar() or 0
        return ClassState(code=row.code, title=row.title, lesson=row.lesson, step=row.step, page=row.page,
                          view=json.loads(row.view), revealed=frozenset(json.loads(row.revealed)),
                          version=row.version, students=int(students))


def _csv_safe(text: str) -> str:
    """A cell a spreadsheet shows as text: a leading =, +, - or @ would be read as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
