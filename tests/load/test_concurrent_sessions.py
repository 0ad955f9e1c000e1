"""Twenty users at once on one server, each with text nobody else has (bench/bench_sessions.py
drives them: two in Chromium tabs, eighteen as websocket sessions of bench/session_light.py making
the same moves, so the server does twenty sessions' work while the machine draws two pages): each pastes its corpus, steps through BPE on it, trains "BPE on bytes" at 300 tokens
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
    EXPECTED_COUNTS,
    FOREIGN_WORD,
    TRAINED_LABEL,
    UPLOADED_LABEL,
    Search,
    SessionResult,
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
# Chromium tabs among them: every tab drawing every page cost the twenty-tab version of this test
# 249 s on 2 cores; the light sessions send the server what a tab sends (issue 39: the test command's
# time, heavy browser flows not repeated).
BROWSERS = 2

# The same flows with two sessions ran on the shared server as a test of their own: this test's
# twenty sessions run every one of them, so they are no longer repeated (issue 39: the test
# command's time). The checks of ``leaks`` itself stay here.

def _clean(index: int, other: int) -> SessionResult:
    """A result as a session that saw only its own data records it."""
    word, seen_other = session_word(index), session_word(other)
    searches = [Search(tok, query, 2 if query == word else 0)
                for tok in (TRAINED_LABEL, UPLOADED_LABEL) for query in (FOREIGN_WORD, seen_other, word)]
    return SessionResult(word, seen_other, heading="Step 7 of 7",
                         seen={"merges": f"Step 7 of 7 {word}", "compare": f"Tokens: word 1 {word}"},
                         searches=searches, counts=dict(EXPECTED_COUNTS))


def test_leaks_accepts_sessions_that_saw_only_their_own_data():
    assert leaks([_clean(0, 1), _clean(1, 0)]) == []


def test_leaks_reports_every_way_one_session_can_show_anothers_data():
    """What the issue saw (the second user's search listing the first user's tokens, its Compare
    counts being the first user's), and a page showing the other's word, are each reported."""
    first, second = _clean(0, 1), _clean(1, 0)
    second.searches = [Search(s.tokenizer, s.query, 3 if s.query == first.word else s.count) for s in second.searches]
    second.counts["compare " + TRAINED_LABEL] = 4
    second.seen["batch"] = "Rows 1 " + first.word
    problems = leaks([first, second])
    assert len([p for p in problems if f"{first.word!r} finds 3 tokens" in p]) == 2
    assert any(f"compare {TRAINED_LABEL} shows 4 tokens, not 1" in p for p in problems)
    assert any(p.startswith(second.word + ": batch shows other sessions' words") for p in problems)
    assert all(p.startswith(second.word) for p in problems)


def test_leaks_reports_a_session_that_stopped_or_missed_its_own_word():
    broken = _clean(0, 1)
    broken.error, broken.seen["compare"], broken.searches = "TimeoutError: Batch", "", broken.searches[:2]
    problems = leaks([broken, _clean(1, 0)])
    assert any("stopped: TimeoutError: Batch" in p for p in problems)
    assert any("own word not shown on compare" in p for p in problems)
    assert any("did not search" in p for p in problems)


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
    results = sessions(url, SESSIONS, browsers=BROWSERS)
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
