"""One way to start the app for tests and benchmarks: ``streamlit run app.py`` on a free loopback
port, with its own cache folder, stopped afterwards; and the Chromium they drive it with.

>>> port = free_port()
>>> 1024 < port < 65536
True
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
#: Debian's Chromium (Playwright cannot download its own browser here). Its headless shell
#: (``apt-get install chromium-headless-shell``: Blink and V8 without the desktop browser around
#: them) when installed: a page load costs it about a third less CPU, which on 2 cores is the
#: browser tests' largest cost. ``TP_CHROMIUM`` names another binary.
CHROMIUM = os.environ.get("TP_CHROMIUM") or next(
    (p for p in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if os.path.exists(p)), "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-sync",
                 "--no-first-run", "--disable-component-update"]


@dataclass(frozen=True)
class RunningApp:
    """A started server: its base URL, process id and start time (``time.perf_counter()``)."""

    url: str
    pid: int
    started: float


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_app(cache: Path, *, timeout: float = 90.0, profile_dir: Optional[Path] = None) -> Iterator[RunningApp]:
    """Start the app with ``TOKENIZER_PLAYGROUND_CACHE=cache``; yield once it answers its health
    check (polled every 50 ms, so cold-start timings stay exact), then stop it.

    ``profile_dir``: profile every slow script run into that folder (see :mod:`bench.profile_server`).
    """
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    launcher = ["streamlit"] if profile_dir is None else ["bench.profile_server"]
    profiling = {} if profile_dir is None else {"BENCH_PROFILE_DIR": str(profile_dir)}
    process = subprocess.Popen(
        [sys.executable, "-m", *launcher, "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         # A source file saved during a run (an editor, a helper) must not reload modules under a
         # live session: classes held in caches would stop matching their reloaded selves.
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env={**os.environ, "TOKENIZER_PLAYGROUND_CACHE": str(cache), **profiling},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_healthy(url, process, timeout)
        yield RunningApp(url, process.pid, started)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _wait_healthy(url: str, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited early with status {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"streamlit did not become healthy at {url} within {timeout:.0f} s")
