"""The workspace store: what must outlive a session (uploaded and pasted corpora, shelf tokenizers),
behind one small interface, on SQLite (the default, a file) or PostgreSQL (several app servers).

No Streamlit here, so it is tested directly. Content is kept once per digest (**blobs**, compressed,
deduplicated across users); people reach it through **links**: random ids of 144 bits, never the
content's digest, so nobody fetches a corpus by guessing what it holds. Limits keep a shared server
alive: a quota per workspace (a browser session) and one in total; past the total, the least
recently used links go first, but never one used in the last ``in_use_seconds`` (an open session
touches what it shows). Every database failure becomes :class:`StoreUnavailable` with a sentence
for people; the app then works on without persistence.

>>> s = Store.open("sqlite://", quota=Quota(workspace_bytes=10**6, total_bytes=10**7))
>>> link = s.put("corpus", "corpus-abc", b"hello " * 100, meta={"name": "notes"}, workspace="w1")
>>> len(link) >= 24, s.get(link).payload[:11], s.get(link).meta["name"]
(True, b'hello hello', 'notes')
"""

from __future__ import annotations

import json
import secrets
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional, Union

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

SCHEMA_VERSION = "1"
_META = sa.MetaData()
_INFO = sa.Table("tp_info", _META, sa.Column("key", sa.String(40), primary_key=True),
                 sa.Column("value", sa.String(200), nullable=False))
_BLOBS = sa.Table(
    "tp_blobs", _META,
    sa.Column("digest", sa.String(80), primary_key=True),
    sa.Column("data", sa.LargeBinary, nullable=False),  # zlib-compressed payload
    sa.Column("raw_bytes", sa.BigInteger, nullable=False),
    sa.Column("stored_bytes", sa.BigInteger, nullable=False),
)
_LINKS = sa.Table(
    "tp_links", _META,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("digest", sa.String(80), nullable=False, index=True),
    sa.Column("workspace", sa.String(40), nullable=False, index=True),
    sa.Column("meta", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("last_used", sa.Float, nullable=False, index=True),
)


class StoreError(Exception):
    """Base of the store's errors; the message is written for people."""


class StoreUnavailable(StoreError):
    """The database cannot be used (unreachable, corrupt, foreign, full disk)."""


class LinkNotFound(StoreError):
    """A link id the store does not hold (never made, or expired)."""


class QuotaExceeded(StoreError):
    """Saving would take a workspace, or the whole store, past its quota."""


@dataclass(frozen=True)
class Quota:
    """Bytes (compressed, as stored) one workspace may hold, and the whole store."""

    workspace_bytes: int = 300_000_000
    total_bytes: int = 2_000_000_000
    in_use_seconds: float = 3600.0


@dataclass(frozen=True)
class Stored:
    """What a link gives back."""

    link: str
    kind: str
    digest: str
    meta: dict[str, Any]
    payload: bytes


def engine_url(setting: str) -> str:
    """A SQLAlchemy URL from ``TOKENIZER_PLAYGROUND_DB``: a URL as it is (PostgreSQL through psycopg 3),
    anything else a path to a SQLite file.

    >>> engine_url("/tmp/x.db"), engine_url("postgresql://u@h/db")
    ('sqlite:////tmp/x.db', 'postgresql+psycopg://u@h/db')
    """
    if "://" not in setting:
        return "sqlite:///" + setting
    if setting.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + setting.split("://", 1)[1]
    return setting


def describe_error(err: BaseException) -> str:
    text = str(getattr(err, "orig", None) or err).strip().splitlines()
    return text[0][:200] if text else type(err).__name__


class Store:
    """The store over one SQLAlchemy engine (thread-safe: one connection per operation)."""

    def __init__(self, engine: Engine, *, quota: Quota) -> None:
        self.engine = engine
        self.quota = quota

    @classmethod
    def open(cls, url: str, *, quota: Quota = Quota(), connect_timeout: float = 5.0) -> "Store":
        """Connect and create the tables if they are missing; :class:`StoreUnavailable` when the
        database cannot be reached, is not a database, or belongs to something else."""
        full = engine_url(url)
        try:
            if full.startswith("sqlite"):
                engine = sa.create_engine(full, connect_args={"check_same_thread": False, "timeout": 15})
                sa.event.listen(engine, "connect", _sqlite_pragmas)
            else:
                engine = sa.create_engine(full, pool_pre_ping=True, connect_args={"connect_timeout": int(connect_timeout)})
            store = cls(engine, quota=quota)
            store._prepare()
        except (SQLAlchemyError, OSError, ValueError) as err:
            raise StoreUnavailable(f"the workspace database cannot be used ({describe_error(err)})") from err
        return store

    def _prepare(self) -> None:
        inspector = sa.inspect(self.engine)
        for table in _META.sorted_tables:  # refuse someone else's tables before writing anything
            if inspector.has_table(table.name):
                found = {c["name"] for c in inspector.get_columns(table.name)}
                if not set(table.c.keys()) <= found:
                    raise StoreUnavailable(f"the workspace database holds a table {table.name!r} of another "
                                           "program; point TOKENIZER_PLAYGROUND_DB at a file of its own")
        _META.create_all(self.engine, checkfirst=True)
        with self.engine.begin() as conn:
            found = conn.execute(sa.select(_INFO.c.value).where(_INFO.c.key == "schema")).scalar()
            if found is None:
                conn.execute(_INFO.insert().values(key="schema", value=SCHEMA_VERSION))
            elif found != SCHEMA_VERSION:
                raise StoreUnavailable(f"the workspace database has schema {found!r}, this app needs {SCHEMA_VERSION!r}")
            for table in (_LINKS, _BLOBS):  # a table of the same name but another shape fails here
                conn.execute(sa.select(*table.c).limit(1)).all()

    # -- the interface --------------------------------------------------------------------------
    def put(self, kind: str, digest: str, payload: Union[bytes, Callable[[], bytes]], *, meta: dict[str, Any],
            workspace: str) -> str:
        """Keep ``payload`` (deduplicated by ``digest``) and return a new link id to it (or this
        workspace's existing link to the same content under the same ``meta``).

        A link never changes after it is handed out: the same content saved under another name (two
        trainings that reach the same vocabulary) gets a link of its own, sharing the stored bytes.
        ``payload`` may be a function giving the bytes: it is called only when they are not stored
        yet (a 40 MB tokenizer imported again by another student is not serialized again)."""
        meta_json = json.dumps(meta, sort_keys=True)
        try:
            with self.engine.begin() as conn:
                now = time.time()
                existing = conn.execute(sa.select(_LINKS.c.id).where(
                    _LINKS.c.workspace == workspace, _LINKS.c.digest == digest, _LINKS.c.kind == kind,
                    _LINKS.c.meta == meta_json)).scalar()
                if existing is not None:
                    conn.execute(_LINKS.update().where(_LINKS.c.id == existing).values(last_used=now))
                    return existing
                stored = conn.execute(sa.select(_BLOBS.c.stored_bytes).where(_BLOBS.c.digest == digest)).scalar()
                data = None
                if stored is None:
                    raw = payload() if callable(payload) else payload
                    data = zlib.compress(raw, 6)
                    stored = len(data)
                self._check_workspace(conn, workspace, stored)
                if data is not None:
                    self._make_room(conn, stored, now)
                    conn.execute(_BLOBS.insert().values(digest=digest, data=data, raw_bytes=len(raw),
                                                        stored_bytes=stored))
                link = secrets.token_urlsafe(18)  # 144 random bits
                conn.execute(_LINKS.insert().values(id=link, kind=kind, digest=digest, workspace=workspace,
                                                    meta=meta_json, created=now, last_used=now))
                return link
        except SQLAlchemyError as err:
            raise StoreUnavailable(f"the workspace database refused the save ({describe_error(err)})") from err

    def get(self, link: str) -> Stored:
        """What ``link`` names (and it counts as used now); :class:`LinkNotFound` when unknown or expired."""
        try:
            with self.engine.begin() as conn:
                row = conn.execute(sa.select(_LINKS.c.kind, _LINKS.c.digest, _LINKS.c.meta, _BLOBS.c.data)
                                   .join(_BLOBS, _BLOBS.c.digest == _LINKS.c.digest)
                                   .where(_LINKS.c.id == link)).first()
                if row is None:
                    raise LinkNotFound(f"no saved item has the id {link[:40]!r} (it may have expired)")
                conn.execute(_LINKS.update().where(_LINKS.c.id == link).values(last_used=time.time()))
        except SQLAlchemyError as err:
            raise StoreUnavailable(f"the workspace database cannot be read ({describe_error(err)})") from err
        try:
            payload = zlib.decompress(row.data)
        except zlib.error as err:
            raise StoreUnavailable(f"the saved item {link[:40]!r} is damaged ({err})") from err
        return Stored(link=link, kind=row.kind, digest=row.digest, meta=json.loads(row.meta), payload=payload)

    def touch(self, links: list[str]) -> None:
        """Mark links as in use (an open session shows them), so expiry leaves them alone."""
        if not links:
            return
        try:
            with self.engine.begin() as conn:
                conn.execute(_LINKS.update().where(_LINKS.c.id.in_(links)).values(last_used=time.time()))
        except SQLAlchemyError as err:
            raise StoreUnavailable(f"the workspace database cannot be written ({describe_error(err)})") from err

    def usage(self, workspace: Optional[str] = None) -> int:
        """Bytes stored in all (or the blobs one workspace links to)."""
        try:
            with self.engine.connect() as conn:
                return self._usage(conn, workspace)
        except SQLAlchemyError as err:
            raise StoreUnavailable(f"the workspace database cannot be read ({describe_error(err)})") from err

    # -- limits ---------------------------------------------------------------------------------
    def _usage(self, conn: sa.Connection, workspace: Optional[str]) -> int:
        if workspace is None:
            return int(conn.execute(sa.select(sa.func.coalesce(sa.func.sum(_BLOBS.c.stored_bytes), 0))).scalar())
        digests = sa.select(_LINKS.c.digest).where(_LINKS.c.workspace == workspace).distinct().subquery()
        query = sa.select(sa.func.coalesce(sa.func.sum(_BLOBS.c.stored_bytes), 0)).join(
            digests, digests.c.digest == _BLOBS.c.digest)
        return int(conn.execute(query).scalar())

    def _check_workspace(self, conn: sa.Connection, workspace: str, size: int) -> None:
        used = self._usage(conn, workspace)
        if used + size > self.quota.workspace_bytes:
            raise QuotaExceeded(
                f"saving this ({size / 1e6:.1f} MB compressed) would take your workspace past its quota "
                f"of {self.quota.workspace_bytes / 1e6:.0f} MB ({used / 1e6:.1f} MB used). It is used in "
                "this session but a link to it will not work after a reload.")
        if size > self.quota.total_bytes:
            raise QuotaExceeded(f"this item ({size / 1e6:.1f} MB compressed) is larger than the whole store "
                                f"({self.quota.total_bytes / 1e6:.0f} MB).")

    def _make_room(self, conn: sa.Connection, size: int, now: float) -> None:
        """Drop the least recently used links not in use, then blobs no link names, until ``size`` fits."""
        total = self._usage(conn, None)
        if total + size <= self.quota.total_bytes:
            return
        idle_before = now - self.quota.in_use_seconds
        candidates = conn.execute(sa.select(_LINKS.c.id, _LINKS.c.digest).where(_LINKS.c.last_used < idle_before)
                                  .order_by(_LINKS.c.last_used)).all()
        for link, digest in candidates:
            conn.execute(_LINKS.delete().where(_LINKS.c.id == link))
            still = conn.execute(sa.select(sa.func.count()).select_from(_LINKS).where(_LINKS.c.digest == digest)).scalar()
            if not still:
                freed = conn.execute(sa.select(_BLOBS.c.stored_bytes).where(_BLOBS.c.digest == digest)).scalar() or 0
                conn.execute(_BLOBS.delete().where(_BLOBS.c.digest == digest))
                total -= freed
                if total + size <= self.quota.total_bytes:
                    return
        raise QuotaExceeded(
            f"the server's store is full ({total / 1e6:.0f} of {self.quota.total_bytes / 1e6:.0f} MB, all of it in "
            "use by open sessions). It is used in this session but a link to it will not work after a reload.")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers go on while one session writes; NORMAL sync is safe with WAL.
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()
