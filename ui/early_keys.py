"""The first key press on a page with step controls counts: a script in the page's head keeps it.

Lessons and the BPE page show their text a second or more before any component's script runs (the
browser loads those parts of Streamlit's frontend on first use), and the step controls listen for
keys only once theirs has run. :data:`SCRIPT`, put in the ``<head>`` of the app's HTML by
:class:`EarlyKeys` (an ASGI middleware of the ``st.App``), listens from the first moment: a step key
pressed before the controls listen is kept with its page and time, and the controls replay it when
they mount (:mod:`ui.widgets.stepper`). The script is static: no user text is ever in it.

>>> inject(b"<html><head><title>x</title></head></html>").count(b"__tpEarlyKeys") > 0
True
>>> inject(b"no head here")
b'no head here'
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ui.widgets.stepper import STEP_KEYS

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Keys the step controls take, and what they do (:data:`ui.widgets.stepper.STEP_KEYS`).
SCRIPT = b"""<script>
(function () {
  if (window.__tpEarlyKeys) return;
  var actions = __KEYS__;
  window.__tpEarlyKeys = function (e) {
    var root = window.__tpStepperRoot;
    if (root && root.isConnected) return;  // the controls listen themselves
    if (e.altKey || e.ctrlKey || e.metaKey || !/\\/(lessons|merges)$/.test(location.pathname)) return;
    var el = document.activeElement;
    if (el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].indexOf(el.tagName) >= 0)) return;
    if (!actions[e.key]) return;
    (window.__tpEarlyStepKeys = window.__tpEarlyStepKeys || []).push(
      { action: actions[e.key], path: location.pathname, at: Date.now() });
  };
  document.addEventListener("keydown", window.__tpEarlyKeys);
})();
</script>""".replace(b"__KEYS__", json.dumps(STEP_KEYS).encode())


def inject(html: bytes) -> bytes:
    """``html`` with :data:`SCRIPT` at the start of its head (unchanged when it has no ``<head>``)."""
    at = html.find(b"<head>")
    if at < 0:
        return html
    at += len(b"<head>")
    return html[:at] + SCRIPT + html[at:]


class EarlyKeys:
    """ASGI middleware: puts :data:`SCRIPT` into every uncompressed HTML page the server sends (the
    app's one page, ``index.html``, under every page path); everything else passes through."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        last = str(scope.get("path", "")).rsplit("/", 1)[-1]
        page = "/_stcore/" not in str(scope.get("path", "")) and ("." not in last or last.endswith(".html"))
        if page:  # a page (not an asset): asked for uncompressed, so
            # the script can go in; the page is a few kilobytes
            scope = {**scope, "headers": [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"accept-encoding"]}
        start: dict[str, Any] = {}
        body: list[bytes] = []

        async def hold(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = {k.lower(): v for k, v in message.get("headers", [])}
                html = headers.get(b"content-type", b"").startswith(b"text/html")
                if not html or b"content-encoding" in headers:
                    start["pass"] = True
                    await send(message)
                    return
                start["message"] = message
                return
            if start.get("pass") or message["type"] != "http.response.body":
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            page = inject(b"".join(body))
            first = start["message"]
            headers = [(k, v) for k, v in first.get("headers", []) if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(page)).encode()))
            await send({**first, "headers": headers})
            await send({"type": "http.response.body", "body": page})

        await self.app(scope, receive, hold)
