"""Timing one click of a Streamlit page in Chromium, for :mod:`bench.bench_pages`: the widget keys and
labels the bench touches, the script installed in every document that counts runs and messages, the
checks a click waits for, the records of a run, and :func:`timed` (click to updated page and idle app).

>>> key("merges_train")
'.st-key-merges_train'
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

TARGET_MS = 300.0
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"

#: Every widget key the bench touches, in one place: other work renames keys, and a rename should
#: cost one line here. Values are Streamlit keys, addressed as ``.st-key-<key>``.
KEYS: dict[str, str] = {
    "corpus_source": "corpus_source",
    "corpus_upload": "corpus_upload",
    "corpus_use_upload": "corpus_use_upload",
    "corpus_replace": "corpus_replace",
    "tokenizers_search": "tokenizers_search",
    "tokenizers_unused": "tokenizers_unused",
    "merges_budget": "merges_budget",
    "merges_train": "merges_train",
    "merges_jump": "merges_jump",
    "compare_source": "compare_source",
    "compare_d_model": "compare_d_model",
    "lattice_nbest": "lattice_nbest",
    "batch_field": "batch_field",
    "batch_source": "batch_source",
}
#: Option and tab labels the bench clicks (what a user reads; renamed less often than keys).
LABELS: dict[str, str] = {
    "upload": "Upload files",
    "sample": "Sample corpus",
    "paste": "Paste text",
    "vocab_tab": "Vocabulary",
    "pipeline_tab": "Pipeline on a text",
    "metrics_tab": "Metrics",
    "compare_type": "Type or paste",
    "compare_example": "An example",
    "nbest_tab": "n-best and entropy",
    "field_a": "tokens",
    "field_b": "input_ids",
    "rows_typed": "Type (one row per line)",
    "rows_corpus": "Lines of the corpus",
}
STEP_NEXT = ".tp-step-next"  # the stepper component's Next button (ui/widgets/stepper.py)

# Installed in every document before the app's own scripts. It counts script runs started and
# messages the page sent to the server (WebSocket.send: a rerun request, a component's new state), and
# remembers which indicators were seen since the last reset. A run start is a change of the stApp
# script state away from notRunning: the mutation records' old values replay every change, so a run
# shorter than a frame still counts, and the state read after each batch catches an stApp element
# inserted while already running. The indicator scan is debounced (10 ms): a spinner shorter than that
# is not worth reporting.
OBSERVER_JS = r"""
(() => {
  if (window.__bench) return;
  const A = 'data-test-script-state';
  const b = window.__bench = {starts: 0, sent: 0, finished: 0, finishedAt: 0, lastMessage: 0, state: null, seen: {},
                              input: 0, doneAt: 0};
  // The user's press as the page receives it (capture phase, before any handler): a timing starts here.
  for (const t of ['pointerdown', 'keydown']) window.addEventListener(t, () => { b.input = performance.now(); }, true);
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (...args) { b.sent++; return send.apply(this, args); };
  // Top-level fields of a ForwardMsg (protobuf): field 6 is script_finished, the last of every run.
  const scan = (u) => {
    let i = 0;
    const varint = () => { let v = 0, m = 1, x; do { x = u[i++]; v += (x & 127) * m; m *= 128; } while (x & 128 && i < u.length); return v; };
    while (i < u.length) {
      const tag = varint(), field = Math.floor(tag / 8), wire = tag & 7;
      if (field === 6) { b.finished++; b.finishedAt = performance.now(); return; }
      if (wire === 0) varint(); else if (wire === 2) i += varint(); else if (wire === 1) i += 8;
      else if (wire === 5) i += 4; else return;
    }
  };
  const WS = window.WebSocket;
  const Patched = function (...args) {
    const ws = new WS(...args);
    ws.addEventListener('message', (e) => {
      b.lastMessage = performance.now();
      if (e.data instanceof ArrayBuffer) scan(new Uint8Array(e.data));
      else if (e.data instanceof Blob) e.data.arrayBuffer().then((x) => scan(new Uint8Array(x)));
    });
    return ws;
  };
  Patched.prototype = WS.prototype;
  Object.assign(Patched, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  window.WebSocket = Patched;
  const PROBES = {progress: '[data-testid=stProgress]', spinner: '[data-testid=stSpinner]',
                  running: '[data-testid=stStatusWidget]', exception: '[data-testid=stException]'};
  let pending = false;
  const look = () => {
    pending = false;
    for (const [k, s] of Object.entries(PROBES)) if (document.querySelector(s)) b.seen[k] = true;
    for (const btn of document.querySelectorAll('[data-testid=stMain] button')) {
      if (btn.textContent.trim().endsWith('Cancel')) { b.seen.cancel = true; break; }
    }
  };
  const step = (v) => { if (b.state === 'notRunning' && v !== 'notRunning') b.starts++; b.state = v; };
  const start = () => new MutationObserver((muts) => {
    for (const m of muts) if (m.type === 'attributes' && m.attributeName === A) step(m.oldValue);
    const app = document.querySelector('[data-testid=stApp]');
    if (app) step(app.getAttribute(A));
    if (!pending) { pending = true; setTimeout(look, 10); }
  }).observe(document.documentElement, {subtree: true, childList: true, attributes: true,
                                        attributeOldValue: true, attributeFilter: [A]});
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""

# Predicates, each a JS function of one argument, checked at every animation frame.
HEADING_IS = "(t) => [...document.querySelectorAll('h1')].some(h => h.textContent.trim() === t)"
H2_STARTS = "(t) => [...document.querySelectorAll('h2')].some(h => h.textContent.trim().startsWith(t))"
STEP_IS = "(n) => [...document.querySelectorAll('h3')].some(h => h.textContent.startsWith(`Step ${n} of`))"
ANY_STEP = "() => [...document.querySelectorAll('h3')].some(h => /^Step [\\d,]+ of/.test(h.textContent))"
RADIO_IS = """(a) => [...document.querySelectorAll(`.st-key-${a.key} label`)]
    .some(l => l.textContent.trim() === a.text && l.querySelector('input') && l.querySelector('input').checked)"""
CHECKBOX_IS = """(a) => { const i = document.querySelector(`.st-key-${a.key} input[type=checkbox]`);
    return i !== null && i.checked === a.want; }"""
INPUT_IS = """(a) => { const i = document.querySelector(`.st-key-${a.key} input`);
    return i !== null && i.value === a.want; }"""
INPUT_CHANGED = """(a) => { const i = document.querySelector(`.st-key-${a.key} input`);
    return i !== null && i.value !== a.was; }"""
TAB_IS = """(t) => [...document.querySelectorAll('[data-testid=stMain] [role=tab][aria-selected=true]')]
    .some(x => x.textContent.trim() === t)"""
TRUE = "() => true"


# ------------------------------------------------------------------------------------------ records


@dataclass
class FirstRun:
    """A page's first computation on the corpus: what it was, seconds, and the indicators seen."""

    page: str
    what: str
    seconds: float
    seen: dict[str, bool]


@dataclass
class Results:
    """Everything one bench run measured, and what failed (with the page's words)."""

    samples: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    #: Per interaction, each click's milliseconds until the page handled its run's last message: the
    #: request, the server's run and its deltas, and whatever the browser's main thread was busy with
    #: meanwhile (drawing earlier deltas delays the message's handling); the rest is drawing.
    server: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    first: list[FirstRun] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)  # page title -> what went wrong


class BenchError(RuntimeError):
    """An interaction that did not complete: the message names it, its step and what the page shows."""


# ------------------------------------------------------------------------------------------ driving


def describe(page: Any) -> str:
    """What the page shows, in a line: headings, alerts, an exception (for error messages)."""
    info = page.evaluate("""() => {
        const t = (s, n) => [...document.querySelectorAll(s)].slice(0, n)
            .map(e => e.textContent.trim().replace(/\\s+/g, ' ').slice(0, 120));
        const app = document.querySelector('[data-testid=stApp]');
        const radios = [...document.querySelectorAll('[data-testid=stMain] label')]
            .filter(l => l.querySelector('input[type=radio]:checked')).map(l => l.textContent.trim());
        return {h: t('h1, h2, h3', 4), alerts: t('[data-testid=stAlertContainer]', 2), radios,
                exception: t('[data-testid=stException]', 1),
                state: app ? app.getAttribute('data-test-script-state') : null};
    }""")
    return (f"headings {info['h']}, radios set to {info['radios']}, alerts {info['alerts']}, "
            f"exception {info['exception']}, script state {info['state']}")


def _starts(page: Any) -> int:
    """Script runs finished so far (script_finished messages received)."""
    return int(page.evaluate("() => window.__bench ? window.__bench.finished : 0"))


def timed(page: Any, what: str, action: Callable[[], None], done_js: str = TRUE, arg: object = None, *,
          rerun: bool = True, timeout_s: float = 60.0, server_ms: Optional[list[float]] = None) -> float:
    """Milliseconds from ``action`` to ``done_js(arg)`` holding with the app idle, checked every frame;
    from the press the page received (pointerdown or keydown, in the page's clock) when the action
    made one, since a user's time starts at the press, not at Playwright's checks before it.

    ``rerun``: also require that a script run started after the action, for changes the browser shows
    by itself before the server has answered (a ticked box, a typed value). ``server_ms``: a list that
    gets the milliseconds from the action to the page's handling of the last run's ``script_finished``
    message. Raises :class:`BenchError`
    naming ``what`` and what the page shows when that does not happen within ``timeout_s``.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    # Settle first: a run the last click set off later (a rerun the page asks itself) must not be
    # taken for this click's. Quiet = idle and no message from the server for 150 ms (not timed).
    page.wait_for_function(f"() => document.querySelector({IDLE!r}) !== null && "
                           "performance.now() - window.__bench.lastMessage > 150", polling="raf",
                           timeout=timeout_s * 1000)
    before, sent, clicked = page.evaluate("() => [window.__bench.finished, window.__bench.sent, performance.now()]")
    # A run is seen by its script_finished message: the script-state attribute is not enough, as a fast
    # run's running/notRunning updates can reach the DOM as one (no change at all). A click that sent
    # the server anything (a tab that reruns, a component's state) is done only once a run finished,
    # whatever the caller expected.
    ran = "window.__bench.finished > a.before"
    holds = (f"({done_js})(a.arg) && document.querySelector({IDLE!r}) !== null && "
             + (ran if rerun else f"(window.__bench.sent === a.sent || {ran})"))
    # The frame it first holds is noted in the page's clock, to be set against the press's time.
    predicate = f"(a) => {{ const ok = {holds}; if (ok) window.__bench.doneAt = performance.now(); return ok; }}"
    page.evaluate("() => { window.__bench.input = 0; window.__bench.doneAt = 0; }")
    start = time.perf_counter()
    action()
    try:
        page.wait_for_function(predicate, arg={"arg": arg, "before": before, "sent": sent}, polling="raf",
                               timeout=timeout_s * 1000)
    except PlaywrightTimeout:
        runs = _starts(page) - before
        shown = page.evaluate(f"(arg) => Boolean(({done_js})(arg))", arg)
        raise BenchError(f"{what}: no update within {timeout_s:.0f} s (waited for {done_js[:70]!r} "
                         f"with {arg!r}{', after a rerun' if rerun else ''}); expected change shown: {shown}; "
                         f"{runs} script run(s) finished since the click; the page shows {describe(page)}"
                         ) from None
    elapsed = (time.perf_counter() - start) * 1000
    pressed, done, finished = page.evaluate(
        "() => [window.__bench.input, window.__bench.doneAt, window.__bench.finishedAt]")
    # From the press the page received, where there was one (a click, a key): Playwright's click first
    # waits for the element to be visible and still for two frames (about 40 ms on an idle machine,
    # more under load), a wait no user's click has. An action without a press (a file handed to an
    # uploader) is timed from the call.
    origin = pressed if pressed > clicked else clicked
    if pressed > clicked and done >= pressed:
        elapsed = done - pressed
    if server_ms is not None:
        server_ms.append(max(0.0, finished - origin) if finished > origin else float("nan"))
    return elapsed


def wait_idle(page: Any, timeout_s: float = 120.0) -> None:
    """Wait until the app's script run has finished."""
    page.wait_for_selector(IDLE, timeout=timeout_s * 1000)


def reset_seen(page: Any) -> None:
    page.evaluate("() => { window.__bench.seen = {}; }")


def seen(page: Any) -> dict[str, bool]:
    return dict(page.evaluate("() => window.__bench.seen"))


def no_exception(page: Any, what: str) -> None:
    """Raise :class:`BenchError` when the page shows a Python exception."""
    if page.locator("[data-testid=stException]").count():
        raise BenchError(f"{what}: the page raised: {describe(page)}")


def key(name: str) -> str:
    """The CSS selector of the widget the bench calls ``name`` (see :data:`KEYS`)."""
    return f".st-key-{KEYS[name]}"


def radio_option(page: Any, name: str, label: str) -> Any:
    return page.locator(key(name)).get_by_text(LABELS[label], exact=True)


def radio_arg(name: str, label: str) -> dict[str, str]:
    return {"key": KEYS[name], "text": LABELS[label]}


def open_page(page: Any, title: str, heading: str, timeout_s: float) -> float:
    """Open a page from the sidebar (the session, and so the corpus, stays); milliseconds to idle."""
    link = page.locator("[data-testid=stSidebarNav]").get_by_role("link", name=title, exact=True).first
    return timed(page, f"open {title} from the sidebar", link.click, HEADING_IS, heading, rerun=False,
                 timeout_s=timeout_s)


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def report(out: Results, *, mb: int, reps: int, merges: int) -> str:
    """The two tables (first computations; clicks) and the failures, as text."""
    lines = [f"{os.cpu_count()} cores; {mb} MB corpus uploaded; {reps} repetitions; BPE Train "
             f"{merges:,} merges; viewport 1280x900; target: median under {TARGET_MS:.0f} ms", "",
             "First computation on the corpus (may be long; should show progress):",
             f"{'page':<18} {'what':<34} {'seconds':>8}  progress spinner cancel running-badge"]
    for f in out.first:
        flags = "  ".join(f"{'yes' if f.seen.get(k) else 'no':<{w}}" for k, w in
                          (("progress", 8), ("spinner", 7), ("cancel", 6), ("running", 5)))
        lines.append(f"{f.page:<18} {f.what:<34} {f.seconds:8.2f}  {flags}")
    lines += ["", "Clicks (click to updated page, app idle; finished: click to the run's last message handled, median):",
              f"{'page':<18} {'interaction':<34} {'median':>8} {'p95':>8} {'finished':>8} {'n':>3}  "
              f"under {TARGET_MS:.0f} ms"]
    for (page_title, name), samples in out.samples.items():
        med = statistics.median(samples)
        server = [s for s in out.server.get((page_title, name), []) if s == s]  # NaN: no run seen
        shown = f"{statistics.median(server):6.0f}ms" if server else f"{'-':>8}"
        lines.append(f"{page_title:<18} {name:<34} {med:6.0f}ms {_p95(samples):6.0f}ms {shown} {len(samples):3d}  "
                     f"{'yes' if med < TARGET_MS else 'NO'}")
    if out.failures:
        lines += ["", "Failures:"] + [f"- {title}: {why}" for title, why in out.failures.items()]
    return "\n".join(lines)


def figures(out: Results) -> dict[str, Any]:
    """The manual's table of a run (``bench_pages --record``): per page and interaction the median and 95th
    percentile, click to updated and idle page, with the finished column; the first computations and any
    failure as its caption."""
    def shown(seen_now: dict[str, bool]) -> str:
        names = [name for flag, name in (("progress", "a progress bar"), ("spinner", "a spinner"),
                                         ("cancel", "Cancel"), ("running", "the running badge")) if seen_now.get(flag)]
        return f" ({', '.join(names)})" if names else ""

    rows = []
    for (page_title, name), samples in out.samples.items():
        server = [s for s in out.server.get((page_title, name), []) if s == s]  # NaN: no run seen
        rows.append([page_title, name, f"{statistics.median(samples):,.0f} ms", f"{_p95(samples):,.0f} ms",
                     f"{statistics.median(server):,.0f} ms" if server else "-"])
    caption = "First computations on the corpus: " + "; ".join(
        f"{f.page}, {f.what}: {f.seconds:.1f} s{shown(f.seen)}" for f in out.first) + "."
    if out.failures:
        caption += " Failed: " + "; ".join(f"{title}: {why}" for title, why in out.failures.items()) + "."
    return {"columns": ["page", "interaction", "median", "95th percentile", "finished (median)"], "rows": rows,
            "caption": caption}
