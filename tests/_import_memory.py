"""Run in a process of its own by tests/load/test_import_memory.py (and bench/bench_imports.py): ten
sessions import the same tokenizer files through the app's import path, then close; prints what
the process held at each point, as JSON.

Usage: python -m tests._import_memory FILE...
"""

from __future__ import annotations

import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def rss_mb() -> float:
    """This process' resident memory in MB (Linux)."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def script() -> None:
    """One session: import each file named in its state onto its shelf (the Import button's path)."""
    from pathlib import Path

    import streamlit as st

    from ui.shelf import state as shelf
    from ui.tokenizers import imports

    for path in st.session_state.get("files_to_import", []):
        pairs = [(Path(path).name, Path(path).read_bytes())]
        tok, digest = imports.imported_tokenizer(pairs, lowercase=True)
        shelf.add(tok, name=imports.name_of(pairs, tok), kind="imported", detail="test", digest=digest)


def main(files: list[str], sessions: int = 10) -> dict:
    os.environ.setdefault("TOKENIZER_PLAYGROUND_DB", str(Path(tempfile.mkdtemp()) / "ws.sqlite3"))
    from streamlit.testing.v1 import AppTest

    from ui.tokenizers import imports

    def session(paths: list[str]) -> AppTest:
        at = AppTest.from_function(script, default_timeout=900)
        at.session_state["files_to_import"] = paths
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    warm = session(files[:1])  # every module and the store opened once, then let go
    del warm
    gc.collect()
    imports.give_back_memory()
    out: dict = {"baseline_mb": rss_mb(), "seconds": []}
    for cycle in (1, 2):  # twice: memory that stays after the first close must not grow with the second
        open_sessions = []
        for _ in range(sessions):
            start = time.perf_counter()
            open_sessions.append(session(files))
            if cycle == 1:
                out["seconds"].append(time.perf_counter() - start)
                if len(open_sessions) == 1:
                    out["one_session_mb"] = rss_mb()
        if cycle == 1:
            out["all_sessions_mb"] = rss_mb()
            out["live_while_open"] = imports.live_count()
        del open_sessions
        gc.collect()
        # The server gives the memory back shortly after the last release: wait until it has (a
        # loaded machine runs the timer late), then a moment for the system's figure to follow.
        deadline = time.monotonic() + 120
        time.sleep(imports.TRIM_DELAY_S)
        while imports.trim_pending() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        suffix = "" if cycle == 1 else "_again"
        out["after_close_mb" + suffix] = rss_mb()
        out["live_after_close" + suffix] = imports.live_count()
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
