"""Many users at once: N browser sessions on one ``streamlit run`` server, all at the same time.

Each session is a user of a class, with text nobody else has (one made-up word, repeated):

1. pastes it on the Corpus page, opens the BPE step-through page, trains, steps to the last merge;
2. on the Tokenizers page trains "BPE on bytes" at 300 tokens (the default name, the same for
   every session) and searches its vocabulary for its own word (found) and for a word nobody uses
   and a word of another session running at the same time (neither found: "0 tokens");
3. uploads a ``tokenizer.json`` of its own (the same type, size and file name for every session,
   trained on its own word) and searches again;
4. opens Batch with that tokenizer and its word as the row, Compare with its word as the text (the
   aligned view shows its word's tokens) and the Unigram lattice page.

What every page showed is kept (:class:`SessionResult`); :func:`leaks` says which session missed its
own data or showed another's. Prints the wall time, each phase's median and slowest time, the
server's peak resident memory (VmHWM of the server process) and the size of the workspace store::

    python -m bench.bench_sessions --sessions 20

One Chromium, one tab per session (its own websocket, so its own Streamlit session), driven with
Playwright's async API (sync Playwright cannot run one instance per thread); with ``--browsers K``
only K sessions are tabs and the others websocket sessions making the same moves
(:mod:`bench.session_light`): the server's work is the same, the renderer's CPU is spared.
``tests/load/test_concurrent_sessions.py`` runs twenty. The sessions' data is :mod:`bench.session_data`, their
moves in the browser :mod:`bench.session_flow`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.app_server import CHROMIUM, running_app  # noqa: E402, F401 (CHROMIUM: for the tests)

# What tests and the class bench import from here, defined beside it.
from bench.session_data import (  # noqa: E402, F401
    EXPECTED_COUNTS,
    FOREIGN_WORD,
    PHASES,
    TRAINED_LABEL,
    UPLOADED_LABEL,
    Search,
    SessionResult,
    session_word,
)
from bench.session_flow import sessions  # noqa: E402


@contextlib.contextmanager
def server(cache: Path) -> Iterator[tuple[str, int]]:
    """``streamlit run app.py`` on a free loopback port; yield its URL and process id, then stop it."""
    with running_app(cache) as app:
        yield app.url, app.pid


def peak_rss_mb(pid: int) -> float:
    """The peak resident memory of process ``pid`` so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError(f"no VmHWM in /proc/{pid}/status")


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process ``pid`` has used so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def store_files(cache: Path) -> list[Path]:
    """The workspace store's files under the server's cache folder (the SQLite file, its -wal and -shm)."""
    return sorted(cache.glob("workspaces.sqlite3*"))


def store_mb(cache: Path) -> float:
    """The size of the workspace store in ``cache`` (every file of it), in MB."""
    return sum(p.stat().st_size for p in store_files(cache)) / 1e6


def leaks(results: list[SessionResult]) -> list[str]:
    """Sessions that miss their own data or show another session's, as readable lines: a page whose
    text holds another session's word (or the word nobody uses), a search for a word not its own
    that finds tokens, a search for its own word that finds none, a missing page."""
    words = [r.word for r in results] + [FOREIGN_WORD]
    problems = []
    for r in results:
        if r.error:
            problems.append(f"{r.word}: stopped: {r.error}")
        for page in ("merges", "compare"):
            if r.word not in r.seen.get(page, ""):
                problems.append(f"{r.word}: own word not shown on {page} ({r.heading})")
        for page, text in r.seen.items():
            others = [w for w in words if w != r.word and w in text]
            if others:
                problems.append(f"{r.word}: {page} shows other sessions' words {others}")
        for s in r.searches:
            if s.query == r.word and s.count < 1:
                problems.append(f"{r.word}: its own word finds no token of {s.tokenizer}")
            if s.query != r.word and s.count != 0:
                problems.append(f"{r.word}: {s.query!r} finds {s.count} tokens of its {s.tokenizer}")
        for what, expected in EXPECTED_COUNTS.items():
            if r.counts.get(what) != expected:
                problems.append(f"{r.word}: {what} shows {r.counts.get(what)} tokens, not {expected}")
        searched = {(s.tokenizer, s.query) for s in r.searches}
        for tok in (TRAINED_LABEL, UPLOADED_LABEL):
            for query in (r.word, r.other, FOREIGN_WORD):
                if (tok, query) not in searched:
                    problems.append(f"{r.word}: did not search {tok} for {query!r}")
    return problems


def phase_medians(results: list[SessionResult]) -> dict[str, tuple[float, float]]:
    """Each phase's median and slowest time (seconds) over the sessions that reached it."""
    out = {}
    for phase in PHASES:
        times = [r.seconds[phase] for r in results if phase in r.seconds]
        if times:
            out[phase] = (statistics.median(times), max(times))
    return out


def report(n: int, wall: float, results: list[SessionResult], peak: float, idle: float, store: float,
           server_cpu: float) -> str:
    """The figures of a run, as printed lines. The server's CPU time against the wall time says where
    the time went: the server runs every session's scripts under one interpreter lock, so with CPU
    to spare its CPU time is about the wall time; much less means the browser or other programs had
    the CPU (the load average says how busy the machine was)."""
    load = os.getloadavg()[0]
    lines = [f"{n} concurrent sessions in {wall:.1f} s; server CPU {server_cpu:.1f} s; load average {load:.1f} "
             f"on {os.cpu_count()} cores; server peak RSS {peak:.0f} MB (after start-up {idle:.0f} MB); "
             f"workspace store {store:.2f} MB"]
    for phase, (median, slowest) in phase_medians(results).items():
        lines.append(f"  {phase:13} median {median:6.2f} s   slowest {slowest:6.2f} s")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--browsers", type=int, default=None,
                    help="how many of them are Chromium tabs (default all); the rest are websocket sessions")
    args = ap.parse_args(argv)
    if os.environ.get("TOKENIZER_PLAYGROUND_DB"):
        print("note: TOKENIZER_PLAYGROUND_DB is set; the store size below counts the cache folder's SQLite file only")
    with tempfile.TemporaryDirectory(prefix="tp-bench-sessions-") as tmp, server(Path(tmp)) as (url, pid):
        idle_mb, cpu = peak_rss_mb(pid), cpu_seconds(pid)
        start = time.perf_counter()
        results = sessions(url, args.sessions, browsers=args.browsers)
        wall = time.perf_counter() - start
        peak, cpu = peak_rss_mb(pid), cpu_seconds(pid) - cpu
        store = store_mb(Path(tmp))
    print(report(args.sessions, wall, results, peak, idle_mb, store, cpu))
    problems = leaks(results)
    print("no session saw another's data" if not problems else "\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
