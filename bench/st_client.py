"""A light Streamlit session: what a browser tab does to the server, without a browser.

It speaks the app's own protocol over the websocket (``/_stcore/stream``): it asks for a page with
a query string, keeps the elements the script sends (by their delta path), fills and clicks widgets
by label or key (sending every widget's value on each rerun, as the browser does), and honours the
server's ``auto_rerun`` requests (a ``st.fragment(run_every=...)`` is timed by the client), and runs
the server starts itself (the class watcher's, which take a student where the class is), as a
browser tab does. What it does not do is draw: no
renderer, no JavaScript, about a hundredth of a browser tab's CPU. The live class's load test and
bench mix these with real browser students.

>>> from streamlit.proto.WidgetStates_pb2 import WidgetState
>>> _widget_value(WidgetState(id="x", string_value="hi"))
'hi'
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Optional
from urllib.parse import urlparse

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

#: Element types whose proto carries a widget ``id`` (what the client can fill or click).
_WIDGETS = frozenset({"button", "text_input", "number_input", "radio", "checkbox", "selectbox", "text_area",
                      "button_group", "slider", "multiselect", "toggle", "file_uploader"})


class ClientError(RuntimeError):
    """The server closed the session, or what was asked for did not appear in time."""


@dataclass(frozen=True)
class Widget:
    """One widget on the page as the server described it."""

    kind: str  # the element type: "button", "text_input", "number_input", "button_group", ...
    id: str
    label: str
    proto: Any

    def options(self) -> list[str]:
        """A choice widget's option labels (``radio``, ``selectbox``, ``button_group``)."""
        if self.kind == "button_group":
            return [o.content for o in self.proto.options]
        return list(getattr(self.proto, "options", []))


def _widget_value(state: WidgetState) -> Any:
    kind = state.WhichOneof("value")
    return None if kind is None else getattr(state, kind)


def _element_texts(element: Element) -> Iterator[str]:
    kind = element.WhichOneof("type")
    if kind is None:
        return
    proto = getattr(element, kind)
    for name in ("body", "label", "value"):
        value = getattr(proto, name, None)
        if isinstance(value, str) and value:
            yield value


class Session:
    """One Streamlit session on ``base_url`` (``http://host:port``); use it as a context manager.

    ``on_text(session, text)`` (optional) is called from the reader thread for each element's text as
    it arrives, with no waiting: what a bench needs to time when a page first shows something.
    """

    def __init__(self, base_url: str, *, on_text: Optional[Callable[[Session, str], None]] = None,
                 timeout: float = 60.0) -> None:
        parts = urlparse(base_url)
        self._ws_url = f"ws://{parts.netloc}{parts.path.rstrip('/')}/_stcore/stream"
        self._origin = f"{parts.scheme}://{parts.netloc}"
        self._on_text = on_text
        self.timeout = timeout
        self._lock = threading.Condition()
        self._elements: dict[tuple[int, ...], tuple[Element, int]] = {}
        self._states: dict[str, WidgetState] = {}
        self._run = 0  # counts script runs (new_session messages)
        self._running = False
        self._finished = 0  # runs finished so far
        self._timers: dict[str, float] = {}  # fragment id -> seconds between its automatic reruns
        self._next_due: dict[str, float] = {}
        self.page = ""  # the page's URL path, as first asked for
        self.page_hash = ""  # the page the server is on (its navigation message), sent with every rerun
        self.query = ""
        self.runs = 0
        self.closed: Optional[str] = None
        self._ws: Any = None
        self._stack = contextlib.ExitStack()
        self._threads: list[threading.Thread] = []
        self._send_lock = threading.Lock()
        self.session_id = ""  # the server's id of this session (its first run says it): uploads name it
        self._file_urls: dict[str, Any] = {}  # request id -> the server's FileURLsResponse

    # -- connection ---------------------------------------------------------------------------
    def __enter__(self) -> Session:
        self._ws = self._stack.enter_context(connect(self._ws_url, subprotocols=["streamlit"], origin=self._origin,
                                                     open_timeout=self.timeout, max_size=None))
        for target in (self._reader, self._ticker):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._ws is not None:
            with self._lock:
                self.closed = self.closed or "closed by the client"
                self._lock.notify_all()
            self._stack.close()
        for thread in self._threads:
            thread.join(timeout=5)

    def _send(self, msg: BackMsg) -> None:
        with self._send_lock:
            try:
                self._ws.send(msg.SerializeToString())
            except ConnectionClosed as exc:
                raise ClientError(f"the server closed the session: {exc}") from exc

    def _reader(self) -> None:
        try:
            for data in self._ws:
                msg = ForwardMsg()
                msg.ParseFromString(data)
                self._receive(msg)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a message this client cannot read: say so instead of hanging
            with self._lock:
                self.closed = f"the client failed on a message: {exc!r}"
        with self._lock:
            self.closed = self.closed or "closed by the server"
            self._lock.notify_all()

    def _ticker(self) -> None:
        """The browser's side of ``st.fragment(run_every=...)``: rerun each timed fragment when due."""
        while self.closed is None:
            now = time.monotonic()
            with self._lock:
                due = [f for f, at in self._next_due.items() if at <= now and not self._running]
                for fragment in due:
                    self._next_due[fragment] = now + self._timers[fragment]
            for fragment in due:
                try:
                    self._rerun(fragment_id=fragment, auto=True)
                except ClientError:
                    return
            time.sleep(0.05)

    # -- what the server sends ----------------------------------------------------------------
    def _receive(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        texts: list[str] = []
        with self._lock:
            if kind == "new_session":
                if msg.new_session.HasField("initialize"):
                    self.session_id = msg.new_session.initialize.session_id
                self._run += 1
                self._running = True
                if not msg.metadata.run.fragment_ids:
                    self._timers.clear()  # a whole run declares its timed fragments again
                    self._next_due.clear()
            elif kind == "delta":
                path = tuple(msg.metadata.delta_path)
                delta = msg.delta
                if delta.WhichOneof("type") == "new_element":
                    self._elements[path] = (delta.new_element, self._run)
                    texts = list(_element_texts(delta.new_element))
                elif delta.WhichOneof("type") == "add_block":
                    self._elements.pop(path, None)
            elif kind == "script_finished":
                status = msg.script_finished
                if status == ForwardMsg.FINISHED_SUCCESSFULLY:
                    # a whole run: what it did not send again is gone from the page
                    self._elements = {p: e for p, e in self._elements.items() if e[1] == self._run}
                if status != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    self._running = False
                    self._finished += 1
                    self.runs += 1
                self._lock.notify_all()
            elif kind == "auto_rerun":
                fragment = msg.auto_rerun.fragment_id
                self._timers[fragment] = max(msg.auto_rerun.interval, 0.05)
                self._next_due.setdefault(fragment, time.monotonic() + self._timers[fragment])
            elif kind == "navigation":
                # The browser reruns the page it shows by its hash: a rerun without it lands on the
                # default page (and an app that routes, as a class's follow does, runs twice).
                self.page_hash = msg.navigation.page_script_hash
                self.page = next((p.url_pathname for p in msg.navigation.app_pages
                                  if p.page_script_hash == self.page_hash), self.page)
            elif kind == "file_urls_response":
                self._file_urls[msg.file_urls_response.response_id] = msg.file_urls_response
                self._lock.notify_all()
            elif kind == "page_info_changed":
                self.query = msg.page_info_changed.query_string
            elif kind == "session_status_changed":
                if not msg.session_status_changed.script_is_running:
                    self._running = False
                    self._lock.notify_all()
        if self._on_text is not None:
            for text in texts:
                self._on_text(self, text)

    # -- what the client sends ----------------------------------------------------------------
    def _rerun(self, *, fragment_id: str = "", auto: bool = False, trigger: Optional[WidgetState] = None) -> None:
        with self._lock:
            states = [s for k, s in self._states.items() if trigger is None or k != trigger.id]
        if trigger is not None:
            states.append(trigger)
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_name = self.page
        msg.rerun_script.page_script_hash = self.page_hash
        msg.rerun_script.widget_states.CopyFrom(WidgetStates(widgets=states))
        msg.rerun_script.fragment_id = fragment_id
        msg.rerun_script.is_auto_rerun = auto
        with self._lock:
            self._running = True
        self._send(msg)

    @property
    def timed_fragments(self) -> dict[str, float]:
        """The page's timed fragments this client reruns (fragment id -> seconds between runs)."""
        with self._lock:
            return dict(self._timers)

    def open(self, page: str = "", query: str = "") -> None:
        """Ask for ``page`` (its URL path, "" for the home page) with ``query`` and wait for the run."""
        self.page, self.query, self.page_hash = page, query, ""
        with self._lock:
            self._states.clear()
            done = self._finished
        self._rerun()
        self.wait_idle(after=done)

    def wait_idle(self, *, after: Optional[int] = None) -> None:
        """Wait until a run finished after run count ``after`` (default: now) and none is running."""
        deadline = time.monotonic() + self.timeout
        with self._lock:
            goal = self._finished if after is None else after
            while self._running or self._finished <= goal and after is not None:
                if self.closed is not None:
                    raise ClientError(self.closed)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ClientError(f"the page did not finish its run within {self.timeout:.0f} s")
                self._lock.wait(left)

    # -- reading the page ----------------------------------------------------------------------
    def texts(self) -> list[str]:
        """Every element's text on the page, in page order."""
        with self._lock:
            items = sorted(self._elements.items())
        return [t for _, (element, _) in items for t in _element_texts(element)]

    def elements(self) -> list[Element]:
        """Every element on the page, in page order (for what ``texts`` does not say: a metric's label)."""
        with self._lock:
            items = sorted(self._elements.items())
        return [element for _, (element, _) in items]

    def wait_for_text(self, pattern: str, *, timeout: Optional[float] = None) -> str:
        """The first text on the page matching the regular expression ``pattern``, waiting for it."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        regex = re.compile(pattern)
        while True:
            found = next((t for t in self.texts() if regex.search(t)), None)
            if found is not None:
                return found
            with self._lock:
                if self.closed is not None:
                    raise ClientError(self.closed)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ClientError(f"no text matching {pattern!r} appeared within the timeout")
                self._lock.wait(min(left, 0.1))

    def widgets(self) -> list[Widget]:
        with self._lock:
            items = sorted(self._elements.items())
        out = []
        for _, (element, _) in items:
            kind = element.WhichOneof("type")
            if kind in _WIDGETS:
                proto = getattr(element, kind)
                out.append(Widget(kind, proto.id, getattr(proto, "label", ""), proto))
        return out

    def widget(self, *, label: Optional[str] = None, key: Optional[str] = None) -> Widget:
        """The widget with this label (exactly) or whose id ends with this user key."""
        for w in self.widgets():
            if (label is not None and w.label == label) or (key is not None and w.id.endswith("-" + key)):
                return w
        raise ClientError(f"no widget {label or key!r} on the page; there are {[w.label for w in self.widgets()]}")

    # -- acting -------------------------------------------------------------------------------
    def fill(self, widget: Widget, value: Any) -> None:
        """Set a widget's value (kept and sent with the next rerun: a form's fields wait for its submit)."""
        state = WidgetState(id=widget.id)
        if widget.kind in ("text_input", "text_area"):
            state.string_value = str(value)
        elif widget.kind == "number_input":
            state.double_value = float(value)  # the widget's wire type, an int input's too
        elif widget.kind in ("radio", "selectbox"):
            if value not in widget.options():
                raise ClientError(f"{value!r} is not one of {widget.label!r}'s options {widget.options()}")
            state.string_value = str(value)
        elif widget.kind in ("button_group", "multiselect"):
            if widget.kind == "multiselect" and not set(value) <= set(widget.options()):
                raise ClientError(f"{value!r} are not all among {widget.label!r}'s options {widget.options()}")
            state.string_array_value.data[:] = [str(v) for v in value]
        elif widget.kind in ("checkbox", "toggle"):
            state.bool_value = bool(value)
        else:
            raise ClientError(f"filling a {widget.kind} is not supported")
        with self._lock:
            self._states[widget.id] = state

    def upload(self, widget: Widget, name: str, data: bytes, *, mime: str = "application/octet-stream") -> None:
        """Hand a file to a file uploader as the browser does, then rerun: ask the server where to put
        it (a ``file_urls_request``), PUT it there with the XSRF cookie and header the server checks
        (the cookie comes with any answer of the server, its health check's here), and set the
        widget's value to the uploaded file."""
        import requests  # Streamlit's own dependency

        if widget.kind != "file_uploader":
            raise ClientError(f"{widget.label!r} is a {widget.kind}, not a file uploader")
        request_id = f"upload-{time.monotonic_ns()}"
        msg = BackMsg()
        msg.file_urls_request.request_id = request_id
        msg.file_urls_request.file_names[:] = [name]
        msg.file_urls_request.session_id = self.session_id
        self._send(msg)
        deadline = time.monotonic() + self.timeout
        with self._lock:
            while request_id not in self._file_urls:
                left = deadline - time.monotonic()
                if self.closed is not None or left <= 0:
                    raise ClientError(self.closed or "the server gave no upload address in time")
                self._lock.wait(left)
            answer = self._file_urls.pop(request_id)
        if answer.error_msg or not answer.file_urls:
            raise ClientError(f"the server refused the upload: {answer.error_msg or 'no address'}")
        urls = answer.file_urls[0]
        with requests.Session() as http:
            http.get(f"{self._origin}/_stcore/health", timeout=self.timeout)
            token = http.cookies.get("_streamlit_xsrf", "")
            put = http.put(self._origin + urls.upload_url if urls.upload_url.startswith("/") else urls.upload_url,
                           files={"file": (name, data, mime)}, headers={"X-Xsrftoken": token}, timeout=self.timeout)
        if put.status_code >= 300:
            raise ClientError(f"the upload was refused: HTTP {put.status_code} {put.text[:200]}")
        state = WidgetState(id=widget.id)
        info = state.file_uploader_state_value.uploaded_file_info.add()
        info.file_id, info.name, info.size = urls.file_id, name, len(data)
        info.file_urls.CopyFrom(urls)
        with self._lock:
            self._states[widget.id] = state
        self.rerun()

    def rerun(self) -> None:
        """Rerun the page with every widget's value (what the browser does when a widget changes)."""
        with self._lock:
            done = self._finished
        self._rerun()
        self.wait_idle(after=done)

    def click(self, widget: Widget, *, wait: bool = True) -> None:
        """Press a button (a form's submit button sends the form's fields with it) and wait for the run."""
        with self._lock:
            done = self._finished
        self._rerun(trigger=WidgetState(id=widget.id, trigger_value=True))
        if wait:
            self.wait_idle(after=done)
