"""The collector's pause is safe with many threads: never left off, never on while any pause runs,
and off entirely where pauses are not allowed (the app's server)."""

from __future__ import annotations

import gc
import random
import threading
import time

import pytest

from tokenizer_core import gc_pause


@pytest.fixture(autouse=True)
def restore_allowed():
    gc_pause.allow_pauses(True)  # an AppTest run earlier in this process (the app's router) said False
    yield
    gc_pause.allow_pauses(True)
    gc.enable()


def test_many_threads_pausing_in_any_order_leave_collection_on():
    seen_on_inside = []
    rng = random.Random(7)
    delays = [[rng.random() / 500 for _ in range(3)] for _ in range(40)]

    def work(d):
        time.sleep(d[0])
        with gc_pause.paused_gc():
            time.sleep(d[1])
            seen_on_inside.append(gc.isenabled())
            with gc_pause.paused_gc():  # nested, as encode_batch inside a training would be
                time.sleep(d[2])
                seen_on_inside.append(gc.isenabled())

    for _ in range(5):
        threads = [threading.Thread(target=work, args=(d,)) for d in delays]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert gc.isenabled()
    assert not any(seen_on_inside)


def test_a_collection_switched_off_before_stays_off():
    gc.disable()
    with gc_pause.paused_gc():
        pass
    assert not gc.isenabled()


def test_where_pauses_are_not_allowed_collection_is_never_switched_off():
    gc_pause.allow_pauses(False)
    with gc_pause.paused_gc():
        assert gc.isenabled()
    assert gc.isenabled()


def test_the_app_server_does_not_pause_collection():
    from tests._pages import open_page

    open_page("pages/batch.py")
    assert not gc_pause.pauses_allowed()


def test_importing_a_tokenizer_file_pauses_collection_only_where_pauses_are_allowed(monkeypatch, tmp_path):
    from tokenizer_core.io import importers

    seen = []
    monkeypatch.setitem(importers.IMPORTERS, "hf", lambda path: seen.append(gc.isenabled()))
    path = tmp_path / "tokenizer.json"
    path.write_text("{}", encoding="utf-8")
    assert gc.isenabled()
    importers.import_tokenizer("hf", path)
    gc_pause.allow_pauses(False)
    try:
        importers.import_tokenizer("hf", path)
    finally:
        gc_pause.allow_pauses(True)
    assert seen == [False, True] and gc.isenabled()
