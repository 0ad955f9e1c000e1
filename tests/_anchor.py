"""A blank page on 127.0.0.1 that keeps the tests' browser context's renderer process alive.

Chromium starts a renderer process for every new tab and lets it go when the tab closes, so each
test's fresh tab paid for a new process and compiled the app's scripts again in a new V8 isolate.
With ``--process-per-site`` every tab of one site shares a process, and a site is the host without
its port: one tab left open on any 127.0.0.1 address keeps that process, and its compiled scripts,
for every app server the tests start (a fifth less CPU and time per page load, measured).

>>> with anchor_url() as url:
...     url.startswith("http://127.0.0.1:")
True
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = b"<!doctype html><title>anchor</title><p>Keeps the tests' renderer process alive.</p>"


class _Blank(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet
        pass


@contextlib.contextmanager
def anchor_url() -> Iterator[str]:
    """Serve :data:`PAGE` on a free 127.0.0.1 port in a thread; yield its address, then stop."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Blank)
    thread = threading.Thread(target=server.serve_forever, name="anchor-page", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
