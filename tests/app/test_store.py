"""The workspace store on SQLite and on a real PostgreSQL server (a throwaway cluster the test
command's PostgreSQL makes): round trips, deduplication, random links, quotas and expiry, and every
way the database can fail becoming one clear StoreUnavailable."""

from __future__ import annotations

import sqlite3
import time
import zlib

import pytest
import sqlalchemy as sa

from ui.store.backend import LinkNotFound, Quota, QuotaExceeded, Store, StoreUnavailable

BIG = Quota(workspace_bytes=10**9, total_bytes=10**10)




@pytest.fixture(params=["sqlite", "postgresql"])
def open_store(request, tmp_path):
    """A function opening a fresh, empty store on either database with a given quota."""
    if request.param == "sqlite":
        def make(quota: Quota = BIG) -> Store:
            return Store.open(str(tmp_path / "ws.sqlite3"), quota=quota)
    else:
        url = request.getfixturevalue("postgres_url")
        with Store.open(url).engine.begin() as conn:  # empty it: the server is shared by the module
            conn.execute(sa.text("DELETE FROM tp_links"))
            conn.execute(sa.text("DELETE FROM tp_blobs"))

        def make(quota: Quota = BIG) -> Store:
            return Store.open(url, quota=quota)
    return make


def test_round_trip_and_random_links(open_store):
    store = open_store()
    payload = "zorbluxian plimwhistle ünïcödé\n".encode() * 1000
    link = store.put("corpus", "corpus-0123abcd", payload, meta={"name": "mine"}, workspace="w1")
    got = store.get(link)
    assert (got.kind, got.digest, got.meta, got.payload) == ("corpus", "corpus-0123abcd", {"name": "mine"}, payload)
    other = store.put("corpus", "corpus-0123abcd", payload, meta={"name": "mine"}, workspace="w2")
    assert other != link and "0123abcd" not in link + other  # never the content's digest
    assert len(link) >= 24  # 18 random bytes: 144 bits, URL-safe base64


def test_content_is_kept_once_and_compressed(open_store):
    store = open_store()
    payload = b"the same text " * 10_000
    store.put("corpus", "corpus-same", payload, meta={}, workspace="a")
    once = store.usage()
    store.put("corpus", "corpus-same", payload, meta={}, workspace="b")
    assert store.usage() == once < len(payload) / 20
    assert store.usage("a") == store.usage("b") == once
    # The same workspace saving the same content again gets its link back.
    assert store.put("corpus", "corpus-same", payload, meta={}, workspace="a") == \
        store.put("corpus", "corpus-same", payload, meta={}, workspace="a")


def test_the_same_content_under_another_name_gets_a_link_of_its_own(open_store):
    """Two trainings reaching the same vocabulary share the bytes, never a link or its name."""
    store = open_store()
    payload = b'{"model": "the same 81 pieces"}' * 100
    first = store.put("tokenizer", "tok-same", payload, meta={"name": "Unigram 500 \u2192 81"}, workspace="a")
    once = store.usage()
    second = store.put("tokenizer", "tok-same", payload, meta={"name": "Unigram 300 \u2192 81"}, workspace="a")
    assert second != first
    assert store.get(first).meta == {"name": "Unigram 500 \u2192 81"}  # the shared link is unchanged
    assert store.get(second).meta == {"name": "Unigram 300 \u2192 81"}
    assert store.usage() == once  # stored once
    assert store.put("tokenizer", "tok-same", payload, meta={"name": "Unigram 500 \u2192 81"}, workspace="a") == first


def test_unknown_links_are_said(open_store):
    store = open_store()
    with pytest.raises(LinkNotFound, match="expired"):
        store.get("nothing-here-at-all-0000")


def test_a_workspace_quota_refuses_with_a_message(open_store):
    store = open_store(Quota(workspace_bytes=2_000, total_bytes=10**9))
    store.put("corpus", "corpus-1", _random(1_500), meta={}, workspace="w")
    with pytest.raises(QuotaExceeded, match="your workspace past its quota"):
        store.put("corpus", "corpus-2", _random(1_500), meta={}, workspace="w")
    store.put("corpus", "corpus-2", _random(1_500), meta={}, workspace="other")  # others are not held back


def test_a_workspace_holds_items_that_fill_its_quota_exactly(open_store):
    a, b = _random(1_500, seed=1), _random(1_500, seed=2)
    size_a, size_b = len(zlib.compress(a, 6)), len(zlib.compress(b, 6))  # what the store keeps
    exact = open_store(Quota(workspace_bytes=size_a + size_b, total_bytes=10**9))
    exact.put("corpus", "a", a, meta={}, workspace="w")
    exact.put("corpus", "b", b, meta={}, workspace="w")  # exactly full: still allowed
    short = open_store(Quota(workspace_bytes=size_a + size_b - 1, total_bytes=10**9))
    short.put("corpus", "a", a, meta={}, workspace="v")
    with pytest.raises(QuotaExceeded, match="your workspace past its quota"):
        short.put("corpus", "b", b, meta={}, workspace="v")
    whole = open_store(Quota(workspace_bytes=10**9, total_bytes=size_a))
    whole.put("corpus", "a", a, meta={}, workspace="u")  # an item as large as the whole store fits


def test_the_store_evicts_only_what_it_must_at_exactly_its_total(open_store):
    a, b, c = (_random(1_500, seed=s) for s in (1, 2, 3))
    size_a, size_b = len(zlib.compress(a, 6)), len(zlib.compress(b, 6))
    assert len(zlib.compress(c, 6)) == size_a == size_b  # random bytes: equal lengths, equal sizes
    store = open_store(Quota(workspace_bytes=10**9, total_bytes=size_a + size_b, in_use_seconds=0.0))
    first = store.put("corpus", "a", a, meta={}, workspace="w1")
    time.sleep(0.002)  # distinct last-used times
    second = store.put("corpus", "b", b, meta={}, workspace="w2")
    assert store.get(first).payload == a  # the two fill the store exactly: nothing went
    time.sleep(0.002)
    store.put("corpus", "c", c, meta={}, workspace="w3")  # one must go: the least recently used
    assert store.get(first).payload == a
    with pytest.raises(LinkNotFound):
        store.get(second)
    assert store.usage() == size_a + size_b


def test_the_store_never_grows_past_its_quota_under_a_stream_of_uploads(open_store):
    quota = Quota(workspace_bytes=10**9, total_bytes=20_000, in_use_seconds=0.0)
    store = open_store(quota)
    links = []
    for i in range(40):
        links.append(store.put("corpus", f"corpus-{i}", _random(3_000, seed=i), meta={}, workspace=f"w{i % 7}"))
        assert store.usage() <= quota.total_bytes
        time.sleep(0.002)  # distinct last-used times
    assert store.get(links[-1]).payload == _random(3_000, seed=39)
    with pytest.raises(LinkNotFound):  # the least recently used went first
        store.get(links[0])


def test_what_open_sessions_use_is_never_deleted(open_store):
    store = open_store(Quota(workspace_bytes=10**9, total_bytes=8_000, in_use_seconds=3600))
    first = store.put("corpus", "corpus-a", _random(3_000, seed=1), meta={}, workspace="w1")
    store.put("corpus", "corpus-b", _random(3_000, seed=2), meta={}, workspace="w2")
    with pytest.raises(QuotaExceeded, match="in use by open sessions"):
        store.put("corpus", "corpus-c", _random(3_000, seed=3), meta={}, workspace="w3")
    assert store.get(first).payload == _random(3_000, seed=1)


def test_a_corrupt_file_is_unavailable_not_a_traceback(tmp_path):
    path = tmp_path / "ws.sqlite3"
    path.write_bytes(b"this is not a database, just text that happens to sit here\n" * 100)
    with pytest.raises(StoreUnavailable, match="cannot be used"):
        Store.open(str(path))


def test_a_foreign_database_is_unavailable(tmp_path):
    path = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE tp_links (x TEXT)")  # someone else's table of the same name
    with pytest.raises(StoreUnavailable):
        Store.open(str(path))
    other = tmp_path / "other-version.sqlite3"
    Store.open(str(other))
    with sqlite3.connect(other) as conn:
        conn.execute("UPDATE tp_info SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreUnavailable, match="schema '99'"):
        Store.open(str(other))


def test_postgresql_down_is_unavailable_quickly():
    from bench.app_server import free_port

    started = time.perf_counter()
    with pytest.raises(StoreUnavailable, match="cannot be used"):
        Store.open(f"postgresql://postgres@127.0.0.1:{free_port()}/postgres", connect_timeout=2)
    assert time.perf_counter() - started < 30


def test_a_full_disk_refuses_the_save_and_keeps_what_was_there(tmp_path):
    store = Store.open(str(tmp_path / "small.sqlite3"), quota=BIG)
    kept = store.put("corpus", "corpus-small", b"x" * 100, meta={}, workspace="w")

    @sa.event.listens_for(store.engine, "connect")
    def _tiny(dbapi_connection, _record):  # noqa: ANN001, ANN202 (the database file may not grow)
        dbapi_connection.execute("PRAGMA max_page_count = 12")

    store.engine.dispose()
    with pytest.raises(StoreUnavailable, match="refused the save"):
        store.put("corpus", "corpus-big", _random(200_000), meta={}, workspace="w")
    assert store.get(kept).payload == b"x" * 100


def _random(n: int, *, seed: int = 0) -> bytes:
    import random

    return random.Random(seed).randbytes(n)  # incompressible, so sizes are predictable
