"""Two users on the same server at the same time, as issue #25 tried it by hand: each pastes text
nobody else has (a made-up word), steps through BPE on it, trains "BPE on bytes" at 300 tokens on
the Tokenizers page under the default name (the same for both), uploads a tokenizer.json of its own
(same name, type and size), and opens Batch, Compare and the Unigram lattice. Neither ever shows the
other's words, tokens or counts: searching its vocabulary for the other's word (or a word nobody
uses) finds "0 tokens", for its own word at least one, and the counts its pages give are those of
its own tokenizers. bench/bench_sessions.py drives the sessions (tests/test_concurrent_sessions.py
runs twenty)."""

from __future__ import annotations

import os

import pytest

from bench.bench_sessions import (
    CHROMIUM,
    EXPECTED_COUNTS,
    FOREIGN_WORD,
    TRAINED_LABEL,
    UPLOADED_LABEL,
    Search,
    SessionResult,
    leaks,
    phase_medians,
    session_word,
    sessions,
)

SESSIONS = 2


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


@pytest.mark.browser
@pytest.mark.slow
def test_two_concurrent_sessions_see_only_their_own_data(streamlit_server):
    pytest.importorskip("playwright")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    results = sessions(streamlit_server, SESSIONS)
    for phase, (median, slowest) in phase_medians(results).items():
        print(f"  {phase:13} median {median:6.2f} s   slowest {slowest:6.2f} s")
    assert [r.word for r in results] == [session_word(0), session_word(1)]
    assert [r.other for r in results] == [session_word(1), session_word(0)]
    problems = leaks(results)
    assert not problems, "\n".join(problems)
    # Each searched both tokenizers for its own word, the other's and a word nobody uses.
    assert all(len(r.searches) == 6 for r in results)
    assert {page for r in results for page in r.seen} == {
        "merges", "tokenizers " + TRAINED_LABEL, "tokenizers " + UPLOADED_LABEL, "batch", "compare", "lattice"}
