"""One teacher and forty students (browser sessions and light websocket sessions) on two app servers
sharing the test PostgreSQL: every student follows each step within 2 s at the median, every answer
is counted once, hostile names and answers never run (bench/bench_class.py measures the same)."""

from __future__ import annotations

import pytest

from tests._postgres import binaries, throwaway_postgres

pytestmark = pytest.mark.solo  # it loads the machine by design: run alone, after the parallel tests


def test_a_class_of_forty_on_two_servers_follows_and_counts_every_answer_once():
    from bench.bench_class import run_class, servers

    if binaries() is None:
        pytest.fail("PostgreSQL is not installed: the test command installs Debian's postgresql")
    with throwaway_postgres() as db, servers(2, db) as apps:
        result = run_class(apps, db, browsers=2, light=38, steps=4)
    assert len(result.follow_ms) == (2 + 38) * 4  # every student, browser or light, on every step
    assert result.follow_median_ms < 2000, result.follow_ms
    assert result.answers_sent == result.answers_counted == 40
    assert result.scripts_run == []
    assert all(cpu > 0 for cpu in result.cpu_s.values()) and len(result.cpu_s) == 2
    assert result.light_runs >= 38 * (2 + 4)  # each light student joined, and its page ran on every step
