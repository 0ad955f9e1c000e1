"""``streamlit run`` with every script run profiled by pyinstrument, for finding why a click is slow.

Used by ``python -m bench.bench_pages --profile DIR`` (through :func:`bench.app_server.running_app`):
each script run of the server (a whole page or a fragment) taking at least ``BENCH_PROFILE_MIN_MS``
(default 100) is written to ``$BENCH_PROFILE_DIR/NNNN-<ms>ms.txt`` as pyinstrument's text tree, NNNN
counting runs in order so they can be matched with the clicks. Profiling slows every run down (a
sample every millisecond), so timings taken with it on are not figures to report.

    python -m bench.profile_server run app.py    # as `streamlit run app.py`
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from pathlib import Path
from typing import Any


def install(out_dir: Path, min_ms: float) -> None:
    """Wrap Streamlit's ``ScriptRunner._run_script``: it runs on the script thread, and pyinstrument
    samples only the thread that starts it, so the profile is of the page's own code."""
    from pyinstrument import Profiler
    from streamlit.runtime.scriptrunner import script_runner

    out_dir.mkdir(parents=True, exist_ok=True)
    original = script_runner.ScriptRunner._run_script
    numbers = itertools.count(1)

    def profiled(self: Any, rerun_data: Any) -> None:
        profiler = Profiler(interval=0.001)
        start = time.perf_counter()
        profiler.start()
        try:
            original(self, rerun_data)
        finally:
            profiler.stop()
            ms = (time.perf_counter() - start) * 1000
            n = next(numbers)
            if ms >= min_ms:
                kind = "fragment" if getattr(rerun_data, "fragment_id_queue", None) else "page"
                text = profiler.output_text(unicode=True, color=False, show_all=os.environ.get("BENCH_PROFILE_ALL") == "1")
                (out_dir / f"{n:04d}-{ms:.0f}ms-{kind}.txt").write_text(text, encoding="utf-8")

    script_runner.ScriptRunner._run_script = profiled


def main() -> None:
    install(Path(os.environ["BENCH_PROFILE_DIR"]), float(os.environ.get("BENCH_PROFILE_MIN_MS", "100")))
    from streamlit.web import cli

    sys.argv = ["streamlit", *sys.argv[1:]]
    cli.main()


if __name__ == "__main__":
    main()
