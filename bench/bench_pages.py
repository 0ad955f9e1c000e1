"""Click latency of every page with a big corpus in use: click to updated page, per page and interaction.

Run from the repository root (needs Playwright and Debian's Chromium, as the browser tests do)::

    python -m bench.bench_pages                  # a 50 MB corpus, 7 repetitions of each interaction
    python -m bench.bench_pages --mb 5 --reps 3  # the quick look (a couple of minutes)
    python -m bench.bench_ui --pages ...         # the same, from the older bench's entry point
    python -m bench.bench_pages --mb 5 --reps 3 --profile /tmp/prof   # and why: one pyinstrument text
                                                 # tree per server run over 100 ms (bench/profile_server.py)

What is measured. A fresh ``streamlit run`` (own cache folder) is driven by Chromium the way a user
drives it. On the Corpus page a generated text file of ``--mb`` MB (:mod:`bench.corpus`) is uploaded
through the real file uploader and made the active corpus with *Use uploaded files*; then every page is
opened from the sidebar, in menu order, within that one browser session. On each page the bench first
lets the page's *first computation* on that corpus finish (opening the page; on the BPE page, a Train
with ``--merges`` merges) and times it, noting which indicators were on screen meanwhile: a progress
bar (``stProgress``), a spinner (``stSpinner``), a Cancel button, and Streamlit's own "running" badge
(``stStatusWidget``, shown for every run, so not a progress indicator of the page). Then it times
``--reps`` repetitions of a few ordinary clicks that rerun the page but train nothing (switch a radio,
toggle a checkbox, step a number input, type a search, Next / N on the BPE page, switch a tab, open the
page again from the sidebar). A click counts as done when the page shows the expected change *and* the
app is idle (``data-test-script-state=notRunning``), checked at every animation frame; for a change the
browser shows before the server answers (a ticked box, a typed value), and for any click that sent the
server something, a run must also have finished since the click, seen as a ``script_finished`` message
on the app's WebSocket (a fast run can leave the script-state attribute unchanged). Before each click
the page settles (idle, no server message for 150 ms, not timed). The table gives the median and 95th percentile per interaction and whether the median is under the
target of 300 ms (issue 24). Figures depend on the machine and its load: on a shared 2-core box they
are rough, so compare runs made on the same machine at the same time.

Widgets are addressed by their Streamlit keys (``.st-key-<key>``), all listed in :data:`KEYS`; a page
that raises or an interaction that times out is reported (page, interaction, repetition, what the page
shows) and the bench carries on; failed pages are tried once more at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402
from bench.corpus import bench_corpus_path  # noqa: E402

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
  const b = window.__bench = {starts: 0, sent: 0, finished: 0, finishedAt: 0, lastMessage: 0, state: null, seen: {}};
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
    """Milliseconds from ``action`` to ``done_js(arg)`` holding with the app idle, checked every frame.

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
    predicate = (f"(a) => ({done_js})(a.arg) && document.querySelector({IDLE!r}) !== null && "
                 + (ran if rerun else f"(window.__bench.sent === a.sent || {ran})"))
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
    if server_ms is not None:
        finished = page.evaluate("() => window.__bench.finishedAt")
        server_ms.append(max(0.0, finished - clicked) if finished > clicked else float("nan"))
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


# ------------------------------------------------------------------------------------------ the pages


@dataclass(frozen=True)
class Interaction:
    """One ordinary click, repeated: ``make(i)`` gives the i-th action, its done predicate and argument,
    and whether a rerun must be seen (see :func:`timed`)."""

    name: str
    make: Callable[[Any, int], tuple[Callable[[], None], str, object, bool]]
    setup: Optional[Callable[[Any], None]] = None  # once before the repetitions (not timed)


def _alternate_radio(name: str, a: str, b: str) -> Callable[[Any, int], tuple]:
    def make(page: Any, i: int) -> tuple:
        label = b if i % 2 == 0 else a
        return radio_option(page, name, label).click, RADIO_IS, radio_arg(name, label), True
    return make


def _toggle_checkbox(name: str) -> Callable[[Any, int], tuple]:
    def make(page: Any, i: int) -> tuple:
        box = page.locator(key(name))
        want = not box.locator("input[type=checkbox]").is_checked()
        return box.locator("label").first.click, CHECKBOX_IS, {"key": KEYS[name], "want": want}, True
    return make


def _step_number(name: str) -> Callable[[Any, int], tuple]:
    """Press the number input's + (even repetitions) or - button: a committed change, no typing."""
    def make(page: Any, i: int) -> tuple:
        box = page.locator(key(name))
        was = box.locator("input").input_value()
        button = box.get_by_test_id("stNumberInputStepUp" if i % 2 == 0 else "stNumberInputStepDown")
        # The button changes the shown value before the rerun: the rerun is what is waited for.
        return button.click, INPUT_CHANGED, {"key": KEYS[name], "was": was}, True
    return make


def _click_tab(label: str, widget: str) -> Callable[[Any], None]:
    """Open a tab and wait for ``widget`` in it, fresh (a tab may rerun the page to draw itself)."""
    def setup(page: Any) -> None:
        tab = page.locator("[data-testid=stMain]").get_by_role("tab", name=LABELS[label], exact=True).first
        ready = (f"(t) => ({TAB_IS})(t) && "
                 f"document.querySelector('.st-key-{KEYS[widget]}:not([data-stale=true]) input') !== null")
        timed(page, f"open the {LABELS[label]} tab", tab.click, ready, LABELS[label], rerun=False)
    return setup


def _switch_tab(a: str, b: str) -> Callable[[Any, int], tuple]:
    def make(page: Any, i: int) -> tuple:
        label = b if i % 2 == 0 else a
        tab = page.locator("[data-testid=stMain]").get_by_role("tab", name=LABELS[label], exact=True).first
        return tab.click, TAB_IS, LABELS[label], False  # a rerun is waited for only if the tab asks one
    return make


def _type_search(page: Any, i: int) -> tuple:
    box = page.locator(f"{key('tokenizers_search')} input")
    text = "ing" if i % 2 == 0 else ""

    def act() -> None:
        box.fill(text)
        box.press("Enter")
    return act, INPUT_IS, {"key": KEYS["tokenizers_search"], "want": text}, True


def _next_button(page: Any, i: int) -> tuple:
    k = _step_of(page)
    return page.locator(STEP_NEXT).first.click, STEP_IS, k + 1, False


def _n_key(page: Any, i: int) -> tuple:
    k = _step_of(page)
    return (lambda: page.keyboard.press("n")), STEP_IS, k + 1, False


def _jump(page: Any, i: int) -> tuple:
    k = _step_of(page)
    box = page.locator(f"{key('merges_jump')} input")

    def act() -> None:
        box.fill(str(k + 5))
        box.press("Enter")
    return act, STEP_IS, k + 5, False


def _focus_body(page: Any) -> None:
    page.locator("[data-testid=stMain] h1").first.click()  # keys go to the page, not a field


def _step_of(page: Any) -> int:
    text = page.locator("h3").filter(has_text="Step ").first.inner_text()
    return int(text.split()[1].replace(",", ""))


@dataclass(frozen=True)
class PagePlan:
    """A page: its sidebar title and heading, its first computation (beyond opening it) and its clicks."""

    title: str
    heading: str
    interactions: tuple[Interaction, ...]
    # Extra first computation after the page opened (e.g. the BPE page's Train): (label, run) where run
    # performs it and returns milliseconds; None when opening the page is the first computation.
    first: Optional[Callable[[Any, argparse.Namespace], tuple[str, float]]] = None


def _train_bpe(page: Any, args: argparse.Namespace) -> tuple[str, float]:
    """Set the merge budget (a committed number input), then time Train to Step 0 on show."""
    budget = page.locator(f"{key('merges_budget')} input")
    wait_idle(page)  # a page still running shows its inputs inert, and may close the expander after
    if not budget.is_visible():  # the settings expander is closed once a run is on show
        page.locator("[data-testid=stExpander] summary").filter(has_text="Settings").first.click()
    budget.wait_for(state="visible", timeout=30_000)
    budget.fill(str(args.merges))
    budget.press("Enter")
    page.wait_for_function(INPUT_IS, arg={"key": KEYS["merges_budget"], "want": str(args.merges)},
                           polling="raf", timeout=30_000)
    wait_idle(page)
    reset_seen(page)
    ms = timed(page, "BPE Train", page.locator(f"{key('merges_train')} button").click, ANY_STEP, None,
               rerun=False, timeout_s=args.first_timeout)
    return f"Train {args.merges:,} merges", ms


def _batch_corpus_rows(page: Any, args: argparse.Namespace) -> tuple[str, float]:
    """Make the batch from lines of the corpus (the page starts on typed rows, which ignore it)."""
    option = radio_option(page, "batch_source", "rows_corpus")
    ms = timed(page, "Batch rows from the corpus", option.click, RADIO_IS, radio_arg("batch_source", "rows_corpus"),
               timeout_s=args.first_timeout)
    return "Rows: lines of the corpus", ms


PLANS: tuple[PagePlan, ...] = (
    PagePlan("Corpus", "Corpus", (
        Interaction("Replace-invalid checkbox", _toggle_checkbox("corpus_replace")),
        Interaction("Source radio (Paste / Sample)", _alternate_radio("corpus_source", "sample", "paste")),
    )),
    PagePlan("Tokenizers", "Tokenizers", (
        Interaction("Search tokens (type + Enter)", _type_search),
        Interaction("Unused only checkbox", _toggle_checkbox("tokenizers_unused")),
        Interaction("Tab Vocabulary / Pipeline", _switch_tab("vocab_tab", "pipeline_tab")),
    )),
    PagePlan("BPE step-through", "BPE step-through", (
        Interaction("Next button", _next_button),
        Interaction("N key", _n_key, setup=_focus_body),
        Interaction("Jump to step (+5)", _jump),
    ), first=_train_bpe),
    PagePlan("Compare", "Compare", (
        Interaction("Metrics: d_model +/-", _step_number("compare_d_model"), setup=_click_tab("metrics_tab", "compare_d_model")),
        Interaction("Text source radio", _alternate_radio("compare_source", "compare_type", "compare_example")),
    )),
    PagePlan("Unigram lattice", "Unigram lattice", (
        Interaction("n-best n +/-", _step_number("lattice_nbest"), setup=_click_tab("nbest_tab", "lattice_nbest")),
    )),
    PagePlan("Batch", "Batch", (
        Interaction("Field radio", _alternate_radio("batch_field", "field_a", "field_b")),
    ), first=_batch_corpus_rows),
)


# ------------------------------------------------------------------------------------------ the run


def load_corpus(page: Any, url: str, path: Path, args: argparse.Namespace, out: Results) -> None:
    """Open the app, upload ``path`` on the Corpus page and make it the active corpus (both timed)."""
    from playwright.sync_api import expect

    print(f"  Corpus: uploading {path.name}…", file=sys.stderr, flush=True)
    page.goto(url + "/")
    page.wait_for_function(HEADING_IS, arg="Corpus", polling="raf", timeout=120_000)
    wait_idle(page)
    option = radio_option(page, "corpus_source", "upload")
    timed(page, "choose Upload files", option.click, RADIO_IS, radio_arg("corpus_source", "upload"))
    box = page.locator(key("corpus_upload"))
    reset_seen(page)
    start = time.perf_counter()
    box.locator("input[type=file]").set_input_files(str(path))
    # The chip shortens long names; its Remove button names the file whole: the upload arrived.
    expect(box.get_by_role("button", name=f"Remove {path.name}")).to_be_visible(timeout=args.first_timeout * 1000)
    use = page.locator(f"{key('corpus_use_upload')} button:enabled")
    expect(use).to_be_visible(timeout=args.first_timeout * 1000)
    wait_idle(page, args.first_timeout)
    out.first.append(FirstRun("Corpus", f"upload {path.stat().st_size / 1e6:.0f} MB", time.perf_counter() - start,
                              seen(page)))
    no_exception(page, "Corpus upload")
    reset_seen(page)
    ms = timed(page, "Use uploaded files", use.click, H2_STARTS, "Active corpus: " + path.name.split(".")[0],
               rerun=False, timeout_s=args.first_timeout)
    out.first.append(FirstRun("Corpus", "Use uploaded files (stats drawn)", ms / 1000, seen(page)))
    no_exception(page, "Use uploaded files")


def run_page(page: Any, plan: PagePlan, args: argparse.Namespace, out: Results) -> None:
    """The first computation of one page, then its interactions; raises :class:`BenchError`."""
    if plan.title != "Corpus":  # the Corpus page is open already, with its first computation done
        reset_seen(page)
        ms = open_page(page, plan.title, plan.heading, args.first_timeout)
        out.first.append(FirstRun(plan.title, "open from the sidebar", ms / 1000, seen(page)))
        no_exception(page, f"open {plan.title}")
    if plan.first is not None:
        reset_seen(page)
        what, ms = plan.first(page, args)
        out.first.append(FirstRun(plan.title, what, ms / 1000, seen(page)))
        no_exception(page, f"{plan.title}: {what}")
    for inter in plan.interactions:
        if inter.setup is not None:
            inter.setup(page)
            wait_idle(page)
        samples: list[float] = []
        server: list[float] = []
        for i in range(args.reps):
            action, done_js, arg, rerun = inter.make(page, i)
            label = f"{plan.title} / {inter.name}, repetition {i + 1}"
            samples.append(timed(page, label, action, done_js, arg, rerun=rerun, server_ms=server))
            no_exception(page, label)
        out.samples[(plan.title, inter.name)] = samples
        out.server[(plan.title, inter.name)] = server


def page_switches(page: Any, plans: tuple[PagePlan, ...], args: argparse.Namespace, out: Results) -> None:
    """Open every page again from the sidebar, ``--reps`` rounds (its caches warm by now)."""
    for _ in range(args.reps):
        for plan in plans:
            if plan.title in out.failures:
                continue
            try:
                ms = open_page(page, plan.title, plan.heading, 60)
                no_exception(page, f"open {plan.title} again")
            except BenchError as err:
                out.failures[plan.title] = str(err)
                continue
            out.samples.setdefault((plan.title, "Open again from the sidebar"), []).append(ms)


@contextlib.contextmanager
def browser_page(url: str) -> Iterator[Any]:
    """A Chromium page with :data:`OBSERVER_JS` installed."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(OBSERVER_JS)
            yield context.new_page()
        finally:
            browser.close()


def bench(args: argparse.Namespace, corpus: Path) -> Results:
    """One server, one browser session: load the corpus, then every page asked for."""
    out = Results()
    plans = tuple(p for p in PLANS if not args.only or p.title in args.only)
    with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp), profile_dir=args.profile) as app, browser_page(app.url) as page:
        load_corpus(page, app.url, corpus, args, out)
        for attempt in (1, 2):
            todo = plans if attempt == 1 else tuple(p for p in plans if p.title in out.failures)
            for plan in todo:
                out.failures.pop(plan.title, None)
                print(f"  {plan.title}…", file=sys.stderr, flush=True)
                try:
                    run_page(page, plan, args, out)
                except BenchError as err:
                    out.failures[plan.title] = str(err) + (" (second try)" if attempt == 2 else "")
                    print(f"    failed: {err}", file=sys.stderr, flush=True)
                    with contextlib.suppress(Exception):
                        wait_idle(page, 60)
            if not out.failures:
                break
        page_switches(page, plans, args, out)
    return out


# ------------------------------------------------------------------------------------------ report


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def report(out: Results, args: argparse.Namespace) -> str:
    """The two tables (first computations; clicks) and the failures, as text."""
    lines = [f"{os.cpu_count()} cores; {args.mb} MB corpus uploaded; {args.reps} repetitions; BPE Train "
             f"{args.merges:,} merges; viewport 1280x900; target: median under {TARGET_MS:.0f} ms", "",
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


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--mb", type=int, default=50, help="size of the uploaded corpus in MB (default 50)")
    ap.add_argument("--reps", type=int, default=7, help="repetitions of each interaction (default 7)")
    ap.add_argument("--merges", type=int, default=300, help="merges the BPE page trains (default 300)")
    ap.add_argument("--first-timeout", type=float, default=900.0,
                    help="seconds allowed for a first computation (default 900)")
    ap.add_argument("--profile", type=Path, default=None, metavar="DIR",
                    help="profile every server script run over 100 ms into DIR (pyinstrument; slows runs down)")
    ap.add_argument("--only", nargs="*", default=[], metavar="TITLE",
                    help="only these pages (sidebar titles), after the Corpus page has loaded the corpus")
    return ap.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    if args.only and "Corpus" not in args.only:
        args.only = ["Corpus", *args.only]
    corpus = bench_corpus_path(args.mb)
    started = time.perf_counter()
    out = bench(args, corpus)
    print(report(out, args))
    print(f"\n(bench took {time.perf_counter() - started:.0f} s)")
    return 1 if out.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
