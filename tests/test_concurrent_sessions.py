"""Twenty users at once on one server: each pastes its own corpus, trains BPE on the step-through
page and steps to the end, all at the same time (bench/bench_sessions.py drives them). Each sees its
own word and no other session's (no cache or state shared across sessions), the server is still
healthy afterwards, and its peak resident memory is reported."""

from __future__ import annotations

import os
import urllib.request

import pytest

from bench.bench_sessions import CHROMIUM, leaks, peak_rss_mb, server, session_word, sessions

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.solo]

SESSIONS = 20


@pytest.fixture(scope="module")
def app_with_pid(tmp_path_factory):
    """A server of this module's own (its process id is needed for the memory figure)."""
    pytest.importorskip("playwright")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed")
    with server(tmp_path_factory.mktemp("sessions-cache")) as (url, pid):
        yield url, pid


def test_session_words_are_distinct_and_never_inside_each_other():
    words = [session_word(i) for i in range(1000)]
    assert len(set(words)) == 1000 and all(len(w) == 8 for w in words)


def test_twenty_concurrent_sessions_see_only_their_own_data(app_with_pid):
    url, pid = app_with_pid
    results = sessions(url, SESSIONS)
    assert [r.word for r in results] == [session_word(i) for i in range(SESSIONS)]
    assert leaks(results) == []
    assert all(r.heading.startswith("Step ") for r in results)
    with urllib.request.urlopen(url + "/_stcore/health", timeout=10) as response:  # the server survived
        assert response.status == 200
    peak = peak_rss_mb(pid)
    print(f"\nserver peak RSS with {SESSIONS} concurrent sessions: {peak:.0f} MB")
    assert peak > 0
