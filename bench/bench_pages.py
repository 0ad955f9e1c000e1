"""Click latency of every page with a big corpus in use: click to updated page, per page and interaction.

Run from the repository root (needs Playwright and Debian's Chromium, as the browser tests do)::

    python -m bench.bench_pages                  # a 50 MB corpus, 7 repetitions of each interaction
    python -m bench.bench_pages --mb 5 --reps 3  # the quick look (a couple of minutes)
    python -m bench.bench_pages --record         # and keep the tables for the manual (docs/bench/pages.json)
    python -m bench.bench_ui --pages ...         # the same, from the older bench's entry point
    python -m bench.bench_pages --mb 5 --reps 3 --profile /tmp/prof   # and why: one pyinstrument text
                                                 # tree per server run over 100 ms (bench/profile_server.py)

What is measured. A fresh ``streamlit run`` (own cache folder) is driven by Chromium as a user drives
it: a generated ``--mb`` MB text (:mod:`bench.corpus`) is uploaded on the Corpus page and put in use,
then every page is opened from the sidebar, in menu order, in that one browser session. On each page
the bench times the page's *first computation* on that corpus (opening it; on the BPE page a Train of
``--merges`` merges) and notes which indicators showed meanwhile (a progress bar, a spinner, Cancel,
Streamlit's running badge). Then it times ``--reps`` repetitions of ordinary clicks that rerun the page
but train nothing (a radio, a checkbox, a number input, a search, Next / N on the BPE page, a tab, the
page again from the sidebar). A click is done when the page shows the expected change *and* the app is
idle, checked at every animation frame, and, for any click that sent the server something, a run has
finished since (a ``script_finished`` message on the app's WebSocket). The page settles before each
click (idle, 150 ms without a server message; not timed). A click's time starts at the press the
page receives (pointerdown or keydown, in the page's clock), not at Playwright's call, which first
waits for the element to be visible and still for two frames. The table gives each interaction's median
and 95th percentile against the 300 ms target (issue 24); figures depend on the machine's load, so
compare runs made on the same machine at the same time.

Widgets are addressed by their Streamlit keys (:data:`bench.page_clicks.KEYS`); a page that raises or
an interaction that times out is reported (page, interaction, repetition, what the page shows) and the
bench carries on; failed pages are tried once more at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402
from bench.corpus import bench_corpus_path  # noqa: E402
from bench.page_clicks import (  # noqa: E402
    ANY_STEP,
    CHECKBOX_IS,
    H2_STARTS,
    HEADING_IS,
    INPUT_CHANGED,
    INPUT_IS,
    KEYS,
    LABELS,
    OBSERVER_JS,
    RADIO_IS,
    STEP_IS,
    STEP_NEXT,
    TAB_IS,
    BenchError,
    FirstRun,
    Results,
    figures,
    key,
    no_exception,
    open_page,
    radio_arg,
    radio_option,
    report,
    reset_seen,
    seen,
    timed,
    wait_idle,
)
from bench.results import record  # noqa: E402

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
    ap.add_argument("--record", action="store_true", help="keep the figures for the manual (docs/bench/pages.json)")
    return ap.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    if args.only and "Corpus" not in args.only:
        args.only = ["Corpus", *args.only]
    corpus = bench_corpus_path(args.mb)
    started = time.perf_counter()
    out = bench(args, corpus)
    print(report(out, mb=args.mb, reps=args.reps, merges=args.merges))
    print(f"\n(bench took {time.perf_counter() - started:.0f} s)")
    if args.record:
        note = f"bench_pages --mb {args.mb} --reps {args.reps} --merges {args.merges}" + (
            " --only " + " ".join(args.only) if args.only else "")
        print("recorded in", record("pages", figures(out), note=note))
    return 1 if out.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
