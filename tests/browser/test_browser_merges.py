"""The BPE step-through page in Chromium on a real ``streamlit run``: training, stepping, keys, escaping."""

from __future__ import annotations

import re

import pytest

from tests._builders import train_bpe
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.training import TrainOptions
from ui.widgets.tokens import display_text

pytestmark = pytest.mark.browser

HOSTILE = (
    "<script>window.__xss=1</script> <img src=x onerror=\"window.__xss=1\"> hug pug pun\n" * 5
)


def wait_idle(page) -> None:
    """Wait until Streamlit says no script run is going on (tests then wait on the state they expect)."""
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=90_000)


def open_merges(page, base: str) -> None:
    """Open the app at its root, then the page through the navigation (as a user does)."""
    page.goto(base + "/")
    wait_idle(page)
    page.get_by_role("link", name="BPE step-through").first.click()
    wait_idle(page)
    page.get_by_role("heading", name="BPE step-through").wait_for(timeout=60_000)


def press(page, key: str) -> None:
    """Click a Streamlit button by its widget key."""
    page.locator(f".st-key-{key} button").click()
    wait_idle(page)


def use_sample_then_merges(page, base: str, option: "str | re.Pattern[str]") -> None:
    """Choose a bundled sample on the Corpus page, then open the BPE page through the navigation."""
    from playwright.sync_api import expect

    page.goto(base + "/")
    sample = page.get_by_label("Sample", exact=True)
    expect(sample).to_be_visible(timeout=90_000)  # a busy server may take a while to draw a new session
    sample.click()
    page.get_by_role("option", name=option).click()
    page.get_by_role("button", name="Use this sample").click()
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Now using")
    page.get_by_role("link", name="BPE step-through").first.click()
    expect(page.get_by_role("heading", name="BPE step-through")).to_be_visible(timeout=60_000)
    wait_idle(page)


def step_button(page, action: str):
    """One of the step controls: first, prev, next, last, play."""
    return page.locator(f".tp-step-{action}")


def open_settings(page) -> None:
    """Open the settings panel (it is closed while a run is on show, to keep the steps above the fold)."""
    from playwright.sync_api import expect

    wait_idle(page)
    train_button = page.locator(".st-key-merges_train button")
    summary = page.locator("[data-testid=stExpander] summary").filter(has_text="Settings")
    # The panel may open on its own while the page is still drawing; then the click closes it
    # again. Toggle until the button shows (each try waits on the page, never a fixed sleep).
    for _ in range(3):
        if train_button.is_visible():
            return
        summary.click()
        try:
            expect(train_button).to_be_visible(timeout=10_000)
            return
        except AssertionError:
            wait_idle(page)
    expect(train_button).to_be_visible(timeout=30_000)


def train(page, steps: str) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    button = page.locator(".st-key-merges_train button")
    for _ in range(3):
        open_settings(page)
        try:  # a rerun still settling the panel may fold it under the click: open it again and retry
            button.click(timeout=10_000)
            break
        except PlaywrightTimeout:
            wait_idle(page)
    else:
        button.click()
    wait_idle(page)
    expect(page.get_by_role("heading", name=re.compile(f"^Step 0 of {steps}"))).to_be_visible(timeout=90_000)
    expect(step_button(page, "play")).to_be_visible()  # the controls (and their keys) are mounted


def banner_chips(page) -> list[str]:
    return page.locator(".tp-merge .tp-chip").all_inner_texts()


def test_train_on_the_default_corpus_and_step_five_merges(streamlit_server, browser_page, tmp_path):
    from playwright.sync_api import expect

    page = browser_page
    open_merges(page, streamlit_server)
    train(page, "2,000")
    for _ in range(5):
        step_button(page, "next").click()
    expect(page.get_by_role("heading", name="Step 5 of 2,000")).to_be_visible()

    # The page's default settings: BPE on characters, whitespace words, 2,000 merges, [UNK] special.
    _, result = train_bpe(load_sample("default").lines(),
                          options=TrainOptions(num_merges=2000, special_tokens=("[UNK]",)))
    rec = result.trace[4]
    assert banner_chips(page) == [display_text(t) for t in (rec.left, rec.right, rec.token)]
    expect(page.locator(".tp-metric").first).to_contain_text(f"{rec.count:,}")
    page.screenshot(path=str(tmp_path / "merges-step5.png"), full_page=True)
    assert (tmp_path / "merges-step5.png").stat().st_size > 10_000

    # Keyboard: N is "next", P is "previous" (ignored while typing in a field).
    page.get_by_role("heading", name="BPE step-through").click()
    page.keyboard.press("n")
    expect(page.get_by_role("heading", name="Step 6 of 2,000")).to_be_visible()
    page.keyboard.press("p")
    expect(page.get_by_role("heading", name="Step 5 of 2,000")).to_be_visible()
    assert page.console_errors == []


def test_rapid_clicks_and_key_presses_are_never_lost(streamlit_server, browser_page):
    """N clicks move exactly N steps, also while the previous run is still rendering."""
    from playwright.sync_api import expect

    page = browser_page
    open_merges(page, streamlit_server)
    train(page, "2,000")
    heading = page.get_by_role("heading", name=re.compile(r"^Step [\d,]+ of 2,000"))
    for _ in range(9):  # no waiting in between: most clicks land while a run is going on
        step_button(page, "next").click()
    expect(heading).to_have_text("Step 9 of 2,000", timeout=30_000)
    for _ in range(3):
        step_button(page, "prev").click()
    expect(heading).to_have_text("Step 6 of 2,000", timeout=30_000)

    page.get_by_role("heading", name="BPE step-through").click()  # focus outside any field
    for key in ["ArrowRight"] * 6 + ["n"] * 4 + ["ArrowLeft", "p"]:
        page.keyboard.press(key)
    expect(heading).to_have_text("Step 14 of 2,000", timeout=30_000)
    page.keyboard.press("End")
    expect(heading).to_have_text("Step 2,000 of 2,000", timeout=30_000)
    expect(step_button(page, "next")).to_be_disabled()
    page.keyboard.press("Home")
    expect(page.get_by_role("heading", name=re.compile("^Step 0 of 2,000"))).to_be_visible(timeout=30_000)
    expect(step_button(page, "prev")).to_be_disabled()
    # The scrubber: letting go sends the step it rests on; on a focused scrubber an arrow key moves
    # one step (the range's own key, not the page's: not two).
    scrubber = page.locator(".tp-step-range")
    scrubber.fill("1234")
    expect(page.get_by_role("heading", name=re.compile("^Step 1,234 of 2,000"))).to_be_visible(timeout=30_000)
    expect(page.locator(".tp-step-where")).to_have_text("Step 1,234 of 2,000")
    scrubber.press("ArrowRight")
    expect(page.get_by_role("heading", name=re.compile("^Step 1,235 of 2,000"))).to_be_visible(timeout=30_000)
    step_button(page, "prev").click()  # the buttons move the scrubber too
    expect(scrubber).to_have_value("1234", timeout=30_000)
    page.keyboard.press("Home")  # (the scrubber has the focus: Home is its own key, to its start)
    expect(page.get_by_role("heading", name=re.compile("^Step 0 of 2,000"))).to_be_visible(timeout=30_000)
    # Typing in a field does not step.
    text = page.locator(".st-key-merges_text input")
    text.click()
    text.press("n")
    text.press("ArrowLeft")
    expect(page.get_by_role("heading", name=re.compile("^Step 0 of 2,000"))).to_be_visible()
    assert page.console_errors == []


def test_play_runs_to_the_end_and_retraining_starts_at_zero(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    use_sample_then_merges(page, streamlit_server, re.compile("^Sennrich"))
    train(page, "10")
    speed = page.locator(".tp-step-speed")
    expect(speed).to_have_value("0.5")
    speed.select_option("0.1")  # the fastest: kept by the page and named in the address
    expect(page).to_have_url(re.compile(r"[?&]speed=0\.1\b"), timeout=30_000)
    expect(speed).to_have_value("0.1")
    page.get_by_role("heading", name="BPE step-through").click()
    page.keyboard.press(" ")  # Space: play
    expect(step_button(page, "play")).to_have_text(re.compile("Pause"))
    expect(page.get_by_role("heading", name="Step 10 of 10")).to_be_visible(timeout=30_000)
    expect(step_button(page, "play")).to_have_text(re.compile("Play"))  # stopped at the end

    open_settings(page)
    budget = page.locator(".st-key-merges_budget input")
    budget.fill("8")
    budget.press("Enter")
    wait_idle(page)
    train(page, "8")  # another run: from step 0
    assert page.console_errors == []


def test_hostile_tokens_render_as_text(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(streamlit_server + "/")
    wait_idle(page)
    page.get_by_text("Paste text", exact=True).click()
    area = page.get_by_label("Text", exact=True)
    area.fill(HOSTILE)
    area.press("Control+Enter")
    page.get_by_role("button", name="Use this text").click()
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Now using", timeout=30_000)

    page.get_by_role("link", name="BPE step-through").first.click()
    expect(page.get_by_role("heading", name="BPE step-through")).to_be_visible(timeout=60_000)
    page.locator(".st-key-merges_pre_tokenizer").click()
    page.get_by_role("option", name="Split at spaces only").click()
    expect(page.get_by_role("combobox", name="Pre-tokenizer")).to_have_value("Split at spaces only", timeout=30_000)
    wait_idle(page)
    train(page, "")
    step_button(page, "last").click()
    expect(step_button(page, "next")).to_be_disabled()
    # The slider and the jump box follow the step one run later; typing before they do would let
    # their old value (0) come back as a change (see the closing note's follow-up issue).
    expect(page.locator(".st-key-merges_jump input")).not_to_have_value("0", timeout=30_000)
    wait_idle(page)  # a rerun still drawing the page would reset the text typed below
    text = page.locator(".st-key-merges_text input")
    hostile = '<script>window.__xss=1</script> <img src=x onerror="window.__xss=1">'
    text.fill(hostile)
    text.press("Enter")
    wait_idle(page)
    expect(text).to_have_value(hostile)

    # Whole words became tokens: they are shown as chips with their literal text.
    expect(page.locator(".tp-chip", has_text="<script>window.__xss=1</script>").first).to_be_visible(timeout=30_000)
    expect(page.locator(".tp-chip", has_text="<img").first).to_be_visible(timeout=30_000)
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script", has_text="__xss").count() == 0
    assert page.console_errors == []


def test_candidate_chart_of_a_few_pairs_is_readable(streamlit_server, browser_page):
    """Few candidate bars used to be squashed into a line by a legend under the chart; the bars are
    now markup and the curve an SVG drawn by the page: both are drawn to size on the last step."""
    from playwright.sync_api import expect

    page = browser_page
    use_sample_then_merges(page, streamlit_server, "Wikipedia: aaabdaaabac")
    train(page, "")
    step_button(page, "last").click()  # 4 candidates: the merged pair (count 2) and three pairs seen once
    expect(step_button(page, "next")).to_be_disabled(timeout=30_000)
    expect(page.get_by_role("heading", name=re.compile(r"^Step [1-9][\d,]* of"))).to_be_visible(timeout=30_000)
    wait_idle(page)
    rows = page.locator(".st-key-merges_candidates_chart .tp-bar-row")
    expect(rows.first).to_be_visible(timeout=30_000)
    bars = page.evaluate("""() => [...document.querySelectorAll('.st-key-merges_candidates_chart .tp-bar-row')]
        .map(r => { const bar = r.children[1].firstElementChild, b = bar.getBoundingClientRect();
                    return [b.width, b.height, Number(bar.nextElementSibling.textContent.replace(/,/g, ''))]; })""")
    assert len(bars) >= 3, bars
    top_w, top_h, top_count = bars[0]
    assert top_h >= 16 and all(h == top_h for _, h, _ in bars), bars
    assert all(abs(w - top_w * c / top_count) < 2 for w, _, c in bars), bars  # lengths follow the counts
    legend = page.locator(".tp-legend").first.inner_text()
    assert "merged" in legend and "runner-up" in legend
    line = page.locator(".st-key-merges_compression_chart svg.tp-drawing polyline")
    expect(line).to_have_count(1, timeout=30_000)
    box = line.bounding_box()
    assert box is not None and box["width"] > 150 and box["height"] > 20
    dot = page.locator(".st-key-merges_compression_chart svg.tp-drawing circle")
    expect(dot.locator("title")).to_have_text(re.compile(r"^merge step [1-9]\d*: [\d,]+ tokens$"))
    assert page.console_errors == []


# First appearance of the page's parts, in the browser's own clock (performance.now()), recorded on
# every change of the page from its very first script on: the heading, the step controls drawn (their
# Next button has a box), the merge, and the heavy parts (charts, the encoder's text box). ``early``
# says whether the controls were already on screen when the first heavy part arrived.
APPEARANCE_JS = """
window.__seen = {};
const parts = {
  heading: () => [...document.querySelectorAll('h1')].some(h => h.textContent.includes('BPE step-through')),
  controls: () => { const b = document.querySelector('.tp-step-next'); return !!b && b.getBoundingClientRect().height > 0; },
  merge: () => !!document.querySelector('.tp-merge'),
  heavy: () => !!document.querySelector('.st-key-merges_candidates_chart, .st-key-merges_compression_chart, .st-key-merges_text'),
};
new MutationObserver(() => {
  const now = performance.now();
  for (const [name, shown] of Object.entries(parts)) {
    if (!(name in window.__seen) && shown()) {
      window.__seen[name] = now;
      if (name === 'heavy') window.__seen.early = 'controls' in window.__seen;
    }
  }
}).observe(document, {subtree: true, childList: true, attributes: true});
"""


def test_a_link_to_a_trained_run_draws_the_step_controls_before_the_rest(streamlit_server, browser):
    """Skeleton first: a fresh page (a link, a reload) on a trained run shows the heading, the step
    controls and the merge, and only then the charts and the encoder (measured on this 2-core box:
    heading to controls 140-250 ms, median ~200 ms; 430-590 ms, median ~500 ms, when the whole view
    came in one run). Asserted as an order, not a time bound."""
    from playwright.sync_api import expect

    link = f"{streamlit_server}/merges?step=3&n=300"
    warm = browser.new_context(viewport={"width": 1280, "height": 720})  # trains the run once (server cache)
    try:
        page = warm.new_page()
        page.goto(link)
        expect(page.locator(".tp-step-next")).to_be_visible(timeout=120_000)
    finally:
        warm.close()
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(APPEARANCE_JS)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(link)
        page.wait_for_function("() => 'heavy' in window.__seen && 'merge' in window.__seen", timeout=90_000)
        expect(page.get_by_role("heading", name="Step 3 of 300")).to_be_visible()
        seen = page.evaluate("window.__seen")
        assert seen["early"] is True, seen  # the controls were on screen before any heavy part arrived
        assert seen["heading"] <= seen["controls"] <= seen["heavy"], seen
        # Then the rest is drawn and the controls work as ever.
        expect(page.locator(".st-key-merges_text input")).to_be_visible(timeout=30_000)
        expect(page.locator("svg.tp-drawing polyline").first).to_be_attached(timeout=30_000)
        page.locator(".tp-step-next").click()
        expect(page.get_by_role("heading", name="Step 4 of 300")).to_be_visible(timeout=30_000)
        assert errors == []
    finally:
        context.close()
