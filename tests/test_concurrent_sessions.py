"""Twenty users at once on one server, each with text nobody else has (bench/bench_sessions.py
drives them): each pastes its corpus, steps through BPE on it, trains "BPE on bytes" at 300 tokens
on the Tokenizers page under the default name (the same for all twenty), uploads a tokenizer.json
of its own (same file name, type and size for all), and opens Batch, Compare and the Unigram
lattice, all at the same time. Each sees its own words, tokens and counts and never another
session's (no cache or state shared across sessions), and the server is still healthy afterwards.
Prints the wall time, each phase's median, the server's peak resident memory and the size of the
workspace store (SQLite, with its -wal file)."""

from __future__ import annotations

import os
import time
import urllib.request
from pathlib import Path

import pytest

from bench.bench_sessions import (
    CHROMIUM,
    cpu_seconds,
    leaks,
    peak_rss_mb,
    report,
    server,
    session_word,
    sessions,
    store_files,
    store_mb,
)

SESSIONS = 20


@pytest.fixture(scope="module")
def app_with_pid(tmp_path_factory):
    """A server of this module's own (its process id is needed for the memory figure, its cache
    folder for the store's size)."""
    pytest.importorskip("playwright")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed")
    cache = tmp_path_factory.mktemp("sessions-cache")
    with server(cache) as (url, pid):
        yield url, pid, cache


def test_session_words_are_distinct_and_never_inside_each_other():
    words = [session_word(i) for i in range(1000)]
    assert len(set(words)) == 1000 and all(len(w) == 8 for w in words)
    assert not any(a != b and a in b for a in words[:SESSIONS] for b in words[:SESSIONS])


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.solo
def test_twenty_concurrent_sessions_see_only_their_own_data(app_with_pid):
    url, pid, cache = app_with_pid
    idle, cpu = peak_rss_mb(pid), cpu_seconds(pid)
    start = time.perf_counter()
    results = sessions(url, SESSIONS)
    wall = time.perf_counter() - start
    peak, cpu = peak_rss_mb(pid), cpu_seconds(pid) - cpu
    store = store_mb(Path(cache))
    print("\n" + report(SESSIONS, wall, results, peak, idle, store, cpu))
    print("workspace store files: " + ", ".join(f"{p.name} {p.stat().st_size / 1e6:.2f} MB" for p in store_files(cache)))
    assert [r.word for r in results] == [session_word(i) for i in range(SESSIONS)]
    problems = leaks(results)
    assert not problems, "\n".join(problems)
    assert all(r.heading.startswith("Step ") for r in results)
    with urllib.request.urlopen(url + "/_stcore/health", timeout=10) as response:  # the server survived
        assert response.status == 200
    assert peak > 0 and store > 0  # the pasted corpora and shelf tokenizers were saved
