"""The head script that keeps a step key pressed before the controls listen (ui/early_keys.py):
it goes into pages, asked for uncompressed, and never into assets or other methods."""

from __future__ import annotations

import asyncio
import threading

from ui.early_keys import SCRIPT, EarlyKeys, inject

PAGE = b"<!doctype html><html><head><meta charset='utf-8'></head><body>app</body></html>"


def _serve(path: str, *, method: str = "GET", content_type: bytes = b"text/html; charset=utf-8",
           body: bytes = PAGE) -> tuple[dict, bytes, list]:
    seen_headers: list = []

    async def inner(scope, receive, send):  # noqa: ANN001, ANN202 - a tiny ASGI app
        seen_headers.extend(scope["headers"])
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]})
        half = len(body) // 2
        await send({"type": "http.response.body", "body": body[:half], "more_body": True})
        await send({"type": "http.response.body", "body": body[half:]})

    sent: list[dict] = []

    async def send(message):  # noqa: ANN001, ANN202
        sent.append(message)

    async def receive():  # noqa: ANN202
        return {"type": "http.request"}

    scope = {"type": "http", "method": method, "path": path,
             "headers": [(b"accept-encoding", b"gzip, br"), (b"host", b"x")]}
    # In a thread of its own: browser tests in the same worker leave an event loop running here.
    worker = threading.Thread(target=asyncio.run, args=(EarlyKeys(inner)(scope, receive, send),))
    worker.start()
    worker.join()
    start = next(m for m in sent if m["type"] == "http.response.start")
    return dict(start["headers"]), b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"), \
        seen_headers


def test_a_page_gets_the_script_first_in_its_head_with_its_length_fixed():
    headers, body, asked = _serve("/lessons")
    assert body == inject(PAGE) and body.index(SCRIPT) == PAGE.index(b"<head>") + len(b"<head>")
    assert int(headers[b"content-length"]) == len(body)
    assert b"accept-encoding" not in dict(asked)  # asked uncompressed, so the script can go in


def test_assets_and_other_responses_pass_untouched():
    for path, content_type in (("/static/js/main.js", b"text/javascript"), ("/_stcore/health", b"text/plain")):
        headers, body, asked = _serve(path, content_type=content_type)
        assert body == PAGE and dict(asked)[b"accept-encoding"] == b"gzip, br"
    headers, body, _ = _serve("/lessons", method="HEAD")
    assert body == PAGE


def test_the_script_holds_no_user_text_and_knows_the_stepper_keys():
    text = SCRIPT.decode()
    for key in ('"ArrowRight": "next"', '"n": "next"', '"Home": "first"', '"End": "last"', '" ": "play"'):
        assert key in text
    assert "__tpEarlyStepKeys" in text and "lessons|merges" in text
